import type { CallContext } from "../app/context.ts";
import { type GatewayError, gatewayError, httpStatusOf, jsonRpcCodeOf } from "../errors/codes.ts";
import type { HttpReply } from "../http/reply.ts";
import {
  legacyErrorStatus,
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
import { checkGetRawTransaction } from "./node-methods.ts";

/** A call that passed the gateway's checks and will be forwarded. */
interface Forward {
  id: Json | undefined;
  version: RpcVersion;
  method: string;
  params: Json[];
  price: number;
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
  | { kind: "forward"; forward: Forward };

const METHODS: Record<string, typeof checkGetRawTransaction> = {
  getrawtransaction: checkGetRawTransaction,
};

/**
 * The full-node mirror: POST /<node>/<network>/<token> with a JSON-RPC call or batch.
 * Envelopes are read as Bitcoin Core v28+ reads them — "2.0" replies with HTTP 200 and one of
 * result/error; legacy 1.0 requests get Core's legacy shape and statuses, so stock Core clients
 * work unchanged. Calls are checked as Core checks them, priced, reserved as a whole, forwarded as
 * one upstream batch, and settled with one audit record per call before anything is sent.
 */
export async function handleNodeRpc(ctx: CallContext, body: string): Promise<HttpReply> {
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

  const slots = items.map((item) => plan(ctx, item));
  const forwards = slots.flatMap((s) => (s.kind === "forward" ? [s.forward] : []));
  const estimate = forwards.reduce((sum, f) => sum + f.price, 0);

  const reservation = await reserveFor(ctx, estimate);
  if (!reservation.ok) {
    const { error } = reservation;
    await settle(
      app.db,
      ctx.owner.accountId,
      null,
      slots.map((s) =>
        s.kind === "forward"
          ? audit(
              ctx,
              s.forward.method,
              "insufficient_credits",
              error.code,
              429,
              s.forward.price,
              0,
            )
          : audit(ctx, s.method, s.outcome, String(s.error.code), 429, 0, 0),
      ),
    );
    const replies = slots.map((s) =>
      s.kind === "forward"
        ? replyObject(s.forward.version, s.forward.id, { error: toRpcError(error) })
        : replyObject(s.version, s.id, { error: s.error }),
    );
    return {
      status: httpStatusOf(error.code),
      body: request.kind === "single" ? replies[0] : replies,
      headers: creditHeaders(estimate, 0, reservation.available),
    };
  }

  let answers: RpcAnswer[] | null = null;
  let failure: GatewayError | null = null;
  let upstream: string | null = null;
  if (forwards.length > 0) {
    const pool = app.nodes.get(ctx.network);
    const out = pool
      ? await pool.batch(forwards.map((f) => ({ method: f.method, params: f.params })))
      : {
          ok: false as const,
          error: gatewayError("UPSTREAM_UNAVAILABLE", "no full node for this network"),
        };
    if (out.ok) {
      answers = out.answers;
      upstream = out.upstream;
    } else {
      failure = out.error;
      app.log.warn({ requestId: ctx.requestId, detail: out.error.detail }, out.error.message);
    }
  }

  const replies: Record<string, unknown>[] = [];
  const records: AuditInput[] = [];
  let single = 200;
  let forwardIndex = 0;
  for (const slot of slots) {
    if (slot.kind === "reply") {
      replies.push(replyObject(slot.version, slot.id, { error: slot.error }));
      single = slot.version === "1.0" ? legacyErrorStatus(slot.error.code) : 200;
      records.push(audit(ctx, slot.method, slot.outcome, String(slot.error.code), single, 0, 0));
      continue;
    }
    const f = slot.forward;
    const answer = answers?.[forwardIndex++];
    if (!answer) {
      const err = failure ?? gatewayError("INTERNAL", "no answer");
      replies.push(replyObject(f.version, f.id, { error: toRpcError(err) }));
      single = httpStatusOf(err.code);
      records.push(
        audit(ctx, f.method, "upstream_failure", err.code, single, f.price, 0, upstream),
      );
    } else if ("error" in answer) {
      replies.push(replyObject(f.version, f.id, answer));
      single = f.version === "1.0" ? legacyErrorStatus(answer.error.code) : 200;
      records.push(
        audit(
          ctx,
          f.method,
          "upstream_error",
          String(answer.error.code),
          single,
          f.price,
          f.price,
          upstream,
        ),
      );
    } else {
      replies.push(replyObject(f.version, f.id, answer));
      single = 200;
      records.push(audit(ctx, f.method, "ok", null, 200, f.price, f.price, upstream));
    }
  }
  // Invariant 3: nothing is sent until the charge and its audit records are committed.
  const settled = await settle(app.db, ctx.owner.accountId, reservation.hold, records);
  // A batch is HTTP 200 whatever its items say (Core), unless no item could reach a node at all.
  const batchStatus =
    failure && slots.every((s) => s.kind === "forward") ? httpStatusOf(failure.code) : 200;
  return {
    status: request.kind === "single" ? single : batchStatus,
    body: request.kind === "single" ? replies[0] : replies,
    headers: creditHeaders(estimate, settled.charged, settled.available),
  };
}

function plan(ctx: CallContext, item: RequestItem): Slot {
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
  const reply = (error: RpcErrorObject, method = item.method): Slot => ({
    kind: "reply",
    id: item.id,
    version: item.version,
    method: method.slice(0, 64),
    error,
    outcome: "rejected",
  });
  if (item.version === "2.0" && item.id === undefined) {
    // Our one departure from Core: it executes notifications unseen; we refuse them, because
    // every call is charged and a caller must see what it paid for.
    return {
      ...(reply({
        code: -32600,
        message: "Notifications are not supported: every call is charged, so give it an id",
      }) as Extract<Slot, { kind: "reply" }>),
      id: null,
    };
  }
  const check = METHODS[item.method];
  const price = priceOf(ctx.app.config, item.method, ctx.network);
  if (!check || price === undefined) return reply({ code: -32601, message: "Method not found" });
  const checked = check(item.params, ctx.network);
  if (!checked.ok) return reply(checked.error);
  return {
    kind: "forward",
    forward: {
      id: item.id,
      version: item.version,
      method: item.method,
      params: checked.params,
      price,
    },
  };
}

function toRpcError(error: GatewayError): RpcErrorObject {
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
