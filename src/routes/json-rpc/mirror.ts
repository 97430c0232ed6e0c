import type { Outcome } from "../../billing/ledger/audit.ts";
import type { CallContext, MeterServices } from "../../billing/metering/context.ts";
import {
  auditOnly,
  type CallOutcome,
  meter,
  type PlannedCall,
} from "../../billing/metering/pipeline.ts";
import { priceOf } from "../../billing/pricing/prices.ts";
import type { HttpReply } from "../../http/reply.ts";
import {
  fromRpcRefusal,
  type GatewayError,
  gatewayError,
  httpStatusOf,
} from "../../protocol/errors/codes.ts";
import { rpcErrorObject } from "../../protocol/errors/render.ts";
import { responseTooLarge } from "../../protocol/errors/too-large.ts";
import {
  type LoneSurrogates,
  parseRequestBody,
  type RequestItem,
  type RpcVersion,
  replyObject,
} from "../../protocol/json/envelope.ts";
import { type Json, stringifyJson } from "../../protocol/json/json.ts";
import { answerForReply, keptBytes } from "../../protocol/json/raw-answer.ts";
import { arrayParts } from "../../protocol/json/reply-parts.ts";
import type { Checked, RpcAnswer, RpcErrorObject } from "../../protocol/json/types.ts";
import { complete, type Verified } from "../../protocol/verified.ts";
import { overlongList } from "../../util/list-items.ts";

/** The `upstream` of an answer served from the response cache (src/cache/). */
export const CACHE_UPSTREAM = "cache";

/** A call that passed the gateway's checks: priced, and to be executed. */
export interface AcceptedCall {
  id: Json | undefined;
  version: RpcVersion;
  method: string;
  params: Json[];
  price: number;
}

/**
 * What became of an accepted call: an answer — a result or the upstream's own JSON-RPC error,
 * both charged — or a failure of the gateway to get one, not charged, or a refusal the gateway
 * made once it was executing (a limit only the call's batch reached), not charged and audited as
 * `rejected` rather than as an upstream failure. `upstream` names who answered ("cache" for an
 * answer served from the transaction cache) for the audit record.
 */
export type CallResult =
  /**
   * `bytes`: what the answer takes in the reply, when known without writing it. `verified`: how
   * far the gateway checked it (absent: not at all).
   */
  | {
      kind: "answer";
      answer: RpcAnswer;
      upstream: string;
      bytes?: number | undefined;
      verified?: Verified | undefined;
    }
  | { kind: "failure"; error: GatewayError }
  | { kind: "refused"; error: GatewayError }
  /**
   * Answered, but the request's answers together are over server.responseBytesMax: not passed
   * on, charged as answered (the upstream did the work: DESIGN.md's rule), RESPONSE_TOO_LARGE.
   */
  | { kind: "too-large"; error: GatewayError; upstream: string | null };

/** What differs between the JSON-RPC mirrors; everything else is handleRpcMirror. */
export interface MirrorProtocol<S extends MeterServices = MeterServices> {
  /** Parameter checks per method, made as the upstream makes them, before anything is charged. */
  methods: Record<
    string,
    (params: Json[] | { [key: string]: Json }, ctx: CallContext<S>) => Checked
  >;
  /** The upstream's answer to a method it does not have. */
  unknownMethod(method: string): RpcErrorObject;
  /** Executes the accepted calls of one request; one result per call, in order. */
  execute(ctx: CallContext<S>, calls: AcceptedCall[]): Promise<CallResult[]>;
  /** The HTTP status of a single (non-batch) reply carrying this JSON-RPC error. */
  errorStatus(version: RpcVersion, code: number): number;
  /**
   * Every reply in this version's shape, whatever the request said: Electrum servers answer
   * JSON-RPC 2.0 to requests without `jsonrpc` too (clients such as electrum-cash send none).
   */
  replyVersion?: RpcVersion;
  /**
   * Bytes a call's answer will take at least, as far as the gateway knows before asking (0: not
   * known): a request whose calls add up past server.responseBytesMax is refused up front.
   */
  answerBytesMin?(ctx: CallContext<S>, call: AcceptedCall): number;
  /**
   * The upstream's own words for an answer over the limit, where its software has such a limit
   * (ElectrumX); absent: the gateway's RESPONSE_TOO_LARGE.
   */
  tooLarge?(limitBytes: number): RpcErrorObject;
  /** How the upstream's JSON reader takes a lone surrogate's escape (envelope.ts). */
  loneSurrogates: LoneSurrogates;
}

type Slot =
  | {
      kind: "reply";
      id: Json | undefined;
      version: RpcVersion;
      method: string;
      error: RpcErrorObject;
      outcome: Outcome;
    }
  | { kind: "call"; call: AcceptedCall };

/**
 * A JSON-RPC mirror route: POST /<backend>/<network>/<token> with a call or a batch. The envelope
 * is read once (src/protocol/json/envelope.ts); each call is checked and priced here, executed by the
 * protocol, and rendered in the envelope's shape; reserving, settling (one audit record per call)
 * and the cost headers are the metering pipeline's (src/billing/metering/pipeline.ts).
 */
export async function handleRpcMirror<S extends MeterServices>(
  ctx: CallContext<S>,
  body: string,
  protocol: MirrorProtocol<S>,
): Promise<HttpReply> {
  const request = parseRequestBody(
    body,
    ctx.services.config.server.jsonDepthMax,
    protocol.loneSurrogates,
  );
  const batchMax = ctx.services.config.server.batchItemsMax;
  if (request.kind === "fatal") return refuseEnvelope(ctx, request.error, false);
  if (request.kind === "batch" && request.items.length > batchMax) {
    const message = `Batch too large: at most ${batchMax} requests`;
    return refuseEnvelope(ctx, { code: -32600, message }, true);
  }
  const single = request.kind === "single";
  const items = single ? [request.item] : request.items;
  // Core answers an empty batch with an empty array.
  if (items.length === 0) return { status: 200, body: [] };
  const slots = items.map((item) => plan(ctx, item, protocol));
  const calls = slots.flatMap((s) => (s.kind === "call" ? [s.call] : []));
  const tooLarge = knownTooLarge(ctx, calls, protocol);
  if (tooLarge) return refuseTooLarge(ctx, slots, single, protocol, tooLarge);
  const metered = await meter<{ results: CallResult[]; reply: HttpReply | null }>(ctx, {
    calls: slots.map((s) => plannedCall(s, protocol)),
    execute: async () => {
      const answered = calls.length > 0 ? await protocol.execute(ctx, calls) : [];
      const results = calls.map((_, i): CallResult => {
        const result = answered[i] ?? {
          kind: "failure",
          error: gatewayError("INTERNAL", "no answer"),
        };
        return ctx.requireVerified ? onlyVerified(result) : result;
      });
      noteTooLarge(ctx, results);
      return {
        value: { results, reply: null },
        outcomes: results.map((r, i) => outcomeOf(r, calls[i]!, protocol)),
      };
    },
    prepare: ({ results }) => ({
      results,
      reply: renderAnswered(slots, results, single, protocol),
    }),
  });
  if (!metered.ok) {
    const replies = slots.map((s) =>
      s.kind === "call"
        ? replyObject(s.call.version, s.call.id, { error: toRpcError(metered.error) })
        : replyObject(s.version, s.id, { error: s.error }),
    );
    const status = httpStatusOf(metered.error.code);
    return { status, body: single ? replies[0] : replies, headers: metered.headers };
  }
  const { reply } = metered.value;
  if (!reply) throw new Error("the mirror's reply was not rendered");
  return { ...reply, headers: { ...reply.headers, ...metered.headers } };
}

/** A body that is no request, or a batch over the limit: one uncharged record, one error. */
async function refuseEnvelope(
  ctx: CallContext,
  error: { code: number; message: string },
  batchTooLarge: boolean,
): Promise<HttpReply> {
  await auditOnly(ctx, [
    {
      method: "(invalid)",
      outcome: "rejected",
      // A batch over the limit is well formed; only its size is refused.
      errorCode: batchTooLarge ? "LIMIT_EXCEEDED" : fromRpcRefusal(error.code),
      upstreamCode: String(error.code),
      httpStatus: 200,
    },
  ]);
  return { status: 200, body: replyObject("2.0", null, { error }) };
}

/** What the pipeline is told of a slot: a priced call, or one refused before pricing. */
function plannedCall<S extends MeterServices>(s: Slot, protocol: MirrorProtocol<S>): PlannedCall {
  if (s.kind === "call") return { kind: "priced", method: s.call.method, price: s.call.price };
  return {
    kind: "refused",
    method: s.method,
    outcome: s.outcome,
    errorCode: fromRpcRefusal(s.error.code),
    upstreamCode: String(s.error.code),
    httpStatus: protocol.errorStatus(s.version, s.error.code),
  };
}

/**
 * The reply to a request whose calls were executed, as bytes (rendered while the settle is in
 * flight; the cost headers are added once it is done): each call's answer or error in order, and
 * the HTTP status Core gives it. A batch whose answers pass PARTS_FROM_BYTES goes out in parts.
 */
function renderAnswered<S extends MeterServices>(
  slots: readonly Slot[],
  results: readonly CallResult[],
  single: boolean,
  protocol: MirrorProtocol<S>,
): HttpReply {
  const replies: Record<string, unknown>[] = [];
  let singleStatus = 200;
  let failureStatus: number | null = null;
  let resultIndex = 0;
  let bytes = 0;
  for (const slot of slots) {
    if (slot.kind === "reply") {
      replies.push(replyObject(slot.version, slot.id, { error: slot.error }));
      singleStatus = protocol.errorStatus(slot.version, slot.error.code);
      continue;
    }
    const result = results[resultIndex++]!;
    const rendered = renderResult(slot.call, result, protocol);
    replies.push(rendered.reply);
    singleStatus = rendered.status;
    if (failing(result)) failureStatus ??= rendered.status;
    if (result.kind === "answer") bytes += result.bytes ?? keptBytes(result.answer);
  }
  // A batch is HTTP 200 whatever its items say (Core), unless no item could reach an upstream,
  // or every one was over the size limit.
  const allFailed = slots.every((s) => s.kind === "call") && results.every(failing);
  const status = single ? singleStatus : allFailed && failureStatus !== null ? failureStatus : 200;
  const headers = { "content-type": "application/json" };
  if (single || bytes < PARTS_FROM_BYTES) {
    const raw = Buffer.from(stringifyJson(single ? replies[0] : replies));
    return { status, body: null, raw, headers };
  }
  return { status, body: null, parts: () => arrayParts(replies), headers };
}

/** One executed call's reply object, and the HTTP status it would have alone. */
function renderResult<S extends MeterServices>(
  c: AcceptedCall,
  result: CallResult,
  protocol: MirrorProtocol<S>,
): { reply: Record<string, unknown>; status: number } {
  if (result.kind === "answer") {
    const { answer } = result;
    return {
      reply: replyObject(c.version, c.id, answerForReply(answer)),
      status: "error" in answer ? protocol.errorStatus(c.version, answer.error.code) : 200,
    };
  }
  const own =
    result.kind === "too-large"
      ? protocol.tooLarge?.(result.error.data?.limitBytes as number)
      : undefined;
  return {
    reply: replyObject(c.version, c.id, { error: own ?? toRpcError(result.error) }),
    status: own ? protocol.errorStatus(c.version, own.code) : httpStatusOf(result.error.code),
  };
}

/** A result that is no answer for the client: no upstream answered, or it was over the limit. */
function failing(r: CallResult): boolean {
  return (
    r.kind === "failure" ||
    r.kind === "too-large" ||
    (r.kind === "refused" && r.error.code === "RESPONSE_TOO_LARGE")
  );
}

/**
 * A batch whose answers take more than this goes out in parts, one per call (http/reply.ts):
 * what a reply of tens of MB holds at once is then one call's text, not two copies of the whole (its
 * string and its buffer), and the event loop turns between calls instead of waiting for both.
 */
const PARTS_FROM_BYTES = 1024 * 1024;

/** What the audit log keeps of a call's result: an answer (charged) or a failure (not). */
function outcomeOf<S extends MeterServices>(
  result: CallResult,
  call: AcceptedCall,
  protocol: MirrorProtocol<S>,
): CallOutcome {
  if (result.kind === "failure") return { kind: "failed", error: result.error };
  if (result.kind === "too-large") {
    const own = protocol.tooLarge?.(0);
    return {
      kind: "answered",
      outcome: "too_large",
      errorCode: "RESPONSE_TOO_LARGE",
      upstreamCode: own ? String(own.code) : null,
      httpStatus: own
        ? protocol.errorStatus(call.version, own.code)
        : httpStatusOf("RESPONSE_TOO_LARGE"),
      upstream: result.upstream,
      cacheHits: result.upstream === CACHE_UPSTREAM ? 1 : 0,
    };
  }
  if (result.kind === "refused") {
    return {
      kind: "answered",
      outcome: "rejected",
      errorCode: result.error.code,
      httpStatus: httpStatusOf(result.error.code),
      chargedCc: 0,
    };
  }
  const { answer, upstream } = result;
  const cacheHits = upstream === CACHE_UPSTREAM ? 1 : 0;
  if ("error" in answer) {
    return {
      kind: "answered",
      outcome: "upstream_error",
      errorCode: "UPSTREAM_ERROR",
      upstreamCode: String(answer.error.code),
      httpStatus: protocol.errorStatus(call.version, answer.error.code),
      upstream,
      cacheHits,
    };
  }
  const verified = result.verified ?? "unchecked";
  return { kind: "answered", outcome: "ok", httpStatus: 200, upstream, cacheHits, verified };
}

/**
 * An answer the caller required verified (X-Blockgate-Require-Verified) that is not: refused,
 * not charged; the upstream's own errors too, since nothing checks them.
 */
function onlyVerified(result: CallResult): CallResult {
  if (result.kind !== "answer" || complete(result.verified ?? "unchecked")) return result;
  const what = result.verified === "partial" ? "only in part" : "not";
  return {
    kind: "refused",
    error: gatewayError(
      "UNVERIFIED",
      `the answer could be verified ${what}, and verification was required`,
    ),
  };
}

function plan<S extends MeterServices>(
  ctx: CallContext<S>,
  asked: RequestItem,
  protocol: MirrorProtocol<S>,
): Slot {
  const item = protocol.replyVersion ? { ...asked, version: protocol.replyVersion } : asked;
  if (item.kind === "invalid") {
    return {
      kind: "reply",
      id: item.id,
      version: item.version,
      method: "(invalid)",
      error: item.error,
      outcome: "rejected",
    };
  }
  const reply = (error: RpcErrorObject, id: Json | undefined = item.id): Slot => ({
    kind: "reply",
    id,
    version: item.version,
    method: item.method.slice(0, 64),
    error,
    outcome: "rejected",
  });
  if (item.version === "2.0" && item.id === undefined) {
    // Our one departure from the upstreams: Core executes notifications unseen (ElectrumX ignores
    // them); we refuse them, because every call is charged and a caller must see what it paid for.
    return reply(
      {
        code: -32600,
        message: "Notifications are not supported: every call is charged, so give it an id",
      },
      null,
    );
  }
  const check = Object.hasOwn(protocol.methods, item.method)
    ? protocol.methods[item.method]
    : undefined;
  if (!check || priceOf(ctx.services.config, item.method, ctx.network) === undefined) {
    return reply(protocol.unknownMethod(item.method));
  }
  const checked = check(item.params, ctx);
  if (!checked.ok) return reply(checked.error);
  // A list param (gettxoutproof's txids, testmempoolaccept's rawtxs) is work the one price of
  // its call does not cover past the gateway's bound on a list, the same on every route.
  const itemsMax = ctx.services.config.graphql.listItemsMax;
  const long = overlongList(checked.params, itemsMax);
  if (long) {
    const message = `params${long.path}: ${long.items} items in one list, at most ${itemsMax}`;
    return reply(
      toRpcError(gatewayError("LIMIT_EXCEEDED", message, { data: { limit: itemsMax } })),
    );
  }
  const key = checked.variant ? `${item.method}/${checked.variant}` : item.method;
  const price = priceOf(ctx.services.config, key, ctx.network) as number;
  return {
    kind: "call",
    call: {
      id: item.id,
      version: item.version,
      method: item.method,
      params: checked.params,
      price,
    },
  };
}

export function toRpcError(error: GatewayError): RpcErrorObject {
  return rpcErrorObject(error) as RpcErrorObject;
}

/**
 * RESPONSE_TOO_LARGE for a request whose calls' answers are known, before anything is asked, to
 * add up past server.responseBytesMax (protocol.answerBytesMin); null when they are not.
 */
function knownTooLarge<S extends MeterServices>(
  ctx: CallContext<S>,
  calls: readonly AcceptedCall[],
  protocol: MirrorProtocol<S>,
): GatewayError | null {
  if (!protocol.answerBytesMin) return null;
  let bytes = 0;
  for (const call of calls) bytes += protocol.answerBytesMin(ctx, call);
  const limitBytes = ctx.services.config.server.responseBytesMax;
  if (bytes <= limitBytes) return null;
  ctx.services.log.info(
    { requestId: ctx.requestId, calls: calls.length, limitBytes, answerBytesMin: bytes },
    "refused: the answer would be over server.responseBytesMax",
  );
  return responseTooLarge(limitBytes, { bytes, estimated: true });
}

/**
 * The request refused up front, its answer known to be too large: nothing asked, nothing
 * charged; every call is answered RESPONSE_TOO_LARGE (or the upstream's own words for it), each
 * with its audit record, and the refusals the plan made keep theirs.
 */
async function refuseTooLarge<S extends MeterServices>(
  ctx: CallContext<S>,
  slots: readonly Slot[],
  single: boolean,
  protocol: MirrorProtocol<S>,
  error: GatewayError,
): Promise<HttpReply> {
  const own = protocol.tooLarge?.(ctx.services.config.server.responseBytesMax);
  const statusOf = (version: RpcVersion) =>
    own ? protocol.errorStatus(version, own.code) : httpStatusOf(error.code);
  const audited = await auditOnly(
    ctx,
    slots.map((s) =>
      s.kind === "call"
        ? {
            method: s.call.method,
            outcome: "rejected",
            errorCode: error.code,
            upstreamCode: own ? String(own.code) : null,
            httpStatus: statusOf(s.call.version),
            estimatedCc: s.call.price,
          }
        : {
            method: s.method,
            outcome: s.outcome,
            errorCode: fromRpcRefusal(s.error.code),
            upstreamCode: String(s.error.code),
            httpStatus: protocol.errorStatus(s.version, s.error.code),
          },
    ),
  );
  const replies = slots.map((s) =>
    s.kind === "call"
      ? replyObject(s.call.version, s.call.id, { error: own ?? toRpcError(error) })
      : replyObject(s.version, s.id, { error: s.error }),
  );
  const first = slots.find((s) => s.kind === "call");
  const status = first?.kind === "call" ? statusOf(first.call.version) : 200;
  return { status, body: single ? replies[0] : replies, headers: audited.headers };
}

/** Logs, once for the request, that its answer was over the limit and not passed on. */
function noteTooLarge(ctx: CallContext, results: readonly CallResult[]): void {
  const over = results.filter((r) => r.kind === "too-large");
  const first = over[0];
  if (!first) return;
  ctx.services.log.info(
    {
      requestId: ctx.requestId,
      calls: over.length,
      limitBytes: ctx.services.config.server.responseBytesMax,
      detail: first.error.detail,
    },
    "answer over server.responseBytesMax: not passed on, charged as answered",
  );
}
