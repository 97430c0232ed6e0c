import type { CallContext } from "../app/context.ts";
import { type GatewayError, gatewayError, httpStatusOf, jsonRpcCodeOf } from "../errors/codes.ts";
import type { HttpReply } from "../http/reply.ts";
import {
  parseRequestBody,
  type RequestItem,
  type RpcVersion,
  replyObject,
} from "../jsonrpc/envelope.ts";
import type { Json } from "../jsonrpc/json.ts";
import type { RpcAnswer, RpcErrorObject } from "../jsonrpc/types.ts";
import type { AuditInput, Outcome } from "../ledger/audit.ts";
import { settle } from "../ledger/ledger.ts";
import { priceOf } from "../pricing/prices.ts";
import { auditRecord, creditHeaders, reserveFor } from "./metering.ts";

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
 * both charged — or a failure of the gateway to get one, not charged. `upstream` names who
 * answered ("cache" for an answer served from the transaction cache) for the audit record.
 */
export type CallResult =
  | { kind: "answer"; answer: RpcAnswer; upstream: string }
  | { kind: "failure"; error: GatewayError };

export type Checked = { ok: true; params: Json[] } | { ok: false; error: RpcErrorObject };

/** What differs between the JSON-RPC mirrors; everything else is handleRpcMirror. */
export interface MirrorProtocol {
  /** Parameter checks per method, made as the upstream makes them, before anything is charged. */
  methods: Record<string, (params: Json[] | { [key: string]: Json }, ctx: CallContext) => Checked>;
  /** The upstream's answer to a method it does not have. */
  unknownMethod(method: string): RpcErrorObject;
  /** Executes the accepted calls of one request; one result per call, in order. */
  execute(ctx: CallContext, calls: AcceptedCall[]): Promise<CallResult[]>;
  /** The HTTP status of a single (non-batch) reply carrying this JSON-RPC error. */
  errorStatus(version: RpcVersion, code: number): number;
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
 * is read once (src/jsonrpc/envelope.ts); each call is checked and priced; the whole request is
 * reserved at once; accepted calls are executed by the protocol; then one audit record per call
 * and the charges are settled in one transaction before anything is sent (ledger invariant 3).
 */
export async function handleRpcMirror(
  ctx: CallContext,
  body: string,
  protocol: MirrorProtocol,
): Promise<HttpReply> {
  const { app } = ctx;
  const request = parseRequestBody(body);
  if (
    request.kind === "fatal" ||
    (request.kind === "batch" && request.items.length > app.config.server.batchItemsMax)
  ) {
    const error =
      request.kind === "fatal"
        ? request.error
        : {
            code: -32600,
            message: `Batch too large: at most ${app.config.server.batchItemsMax} requests`,
          };
    await settle(app.db, ctx.owner.accountId, null, [
      audit(ctx, "(invalid)", "rejected", String(error.code), 200, 0, 0),
    ]);
    return { status: 200, body: replyObject("2.0", null, { error }) };
  }
  const items = request.kind === "single" ? [request.item] : request.items;
  // Core answers an empty batch with an empty array.
  if (items.length === 0) return { status: 200, body: [] };

  const slots = items.map((item) => plan(ctx, item, protocol));
  const calls = slots.flatMap((s) => (s.kind === "call" ? [s.call] : []));
  const estimate = calls.reduce((sum, c) => sum + c.price, 0);

  const reservation = await reserveFor(ctx, estimate);
  if (!reservation.ok) {
    const { error } = reservation;
    await settle(
      app.db,
      ctx.owner.accountId,
      null,
      slots.map((s) =>
        s.kind === "call"
          ? audit(ctx, s.call.method, "insufficient_credits", error.code, 429, s.call.price, 0)
          : audit(ctx, s.method, s.outcome, String(s.error.code), 429, 0, 0),
      ),
    );
    const replies = slots.map((s) =>
      s.kind === "call"
        ? replyObject(s.call.version, s.call.id, { error: toRpcError(error) })
        : replyObject(s.version, s.id, { error: s.error }),
    );
    return {
      status: httpStatusOf(error.code),
      body: request.kind === "single" ? replies[0] : replies,
      headers: creditHeaders(estimate, 0, reservation.available),
    };
  }

  const results = calls.length > 0 ? await protocol.execute(ctx, calls) : [];

  const replies: Record<string, unknown>[] = [];
  const records: AuditInput[] = [];
  let single = 200;
  let failure: GatewayError | null = null;
  let resultIndex = 0;
  for (const slot of slots) {
    if (slot.kind === "reply") {
      replies.push(replyObject(slot.version, slot.id, { error: slot.error }));
      single = protocol.errorStatus(slot.version, slot.error.code);
      records.push(audit(ctx, slot.method, slot.outcome, String(slot.error.code), single, 0, 0));
      continue;
    }
    const c = slot.call;
    const result: CallResult = results[resultIndex++] ?? {
      kind: "failure",
      error: gatewayError("INTERNAL", "no answer"),
    };
    if (result.kind === "failure") {
      failure ??= result.error;
      app.log.warn({ requestId: ctx.requestId, detail: result.error.detail }, result.error.message);
      replies.push(replyObject(c.version, c.id, { error: toRpcError(result.error) }));
      single = httpStatusOf(result.error.code);
      records.push(audit(ctx, c.method, "upstream_failure", result.error.code, single, c.price, 0));
    } else if ("error" in result.answer) {
      const { answer, upstream } = result;
      replies.push(replyObject(c.version, c.id, answer));
      single = protocol.errorStatus(c.version, answer.error.code);
      records.push(
        audit(
          ctx,
          c.method,
          "upstream_error",
          String(answer.error.code),
          single,
          c.price,
          c.price,
          upstream,
        ),
      );
    } else {
      replies.push(replyObject(c.version, c.id, result.answer));
      single = 200;
      records.push(audit(ctx, c.method, "ok", null, 200, c.price, c.price, result.upstream));
    }
  }
  // Invariant 3: nothing is sent until the charge and its audit records are committed.
  const settled = await settle(app.db, ctx.owner.accountId, reservation.hold, records);
  // A batch is HTTP 200 whatever its items say (Core), unless no item could reach an upstream.
  const allFailed =
    failure !== null &&
    slots.every((s) => s.kind === "call") &&
    results.every((r) => r.kind === "failure");
  const batchStatus = allFailed ? httpStatusOf(failure!.code) : 200;
  return {
    status: request.kind === "single" ? single : batchStatus,
    body: request.kind === "single" ? replies[0] : replies,
    headers: creditHeaders(estimate, settled.charged, settled.available),
  };
}

function plan(ctx: CallContext, item: RequestItem, protocol: MirrorProtocol): Slot {
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
  const price = priceOf(ctx.app.config, item.method, ctx.network);
  if (!check || price === undefined) return reply(protocol.unknownMethod(item.method));
  const checked = check(item.params, ctx);
  if (!checked.ok) return reply(checked.error);
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
  return {
    code: jsonRpcCodeOf(error.code),
    message: error.message,
    data: { code: error.code, ...(error.data as Record<string, Json> | undefined) },
  };
}

function audit(
  ctx: CallContext,
  method: string,
  outcome: Outcome,
  errorCode: string | null,
  httpStatus: number,
  estimatedCc: number,
  chargedCc: number,
  upstream: string | null = null,
): AuditInput {
  return auditRecord(ctx, {
    method,
    outcome,
    errorCode,
    httpStatus,
    estimatedCc,
    chargedCc,
    upstream,
  });
}
