import type { CallContext } from "../app/context.ts";
import { type GatewayError, gatewayError, httpStatusOf, jsonRpcCodeOf } from "../errors/codes.ts";
import type { HttpReply } from "../http/reply.ts";
import type { Json } from "../jsonrpc/json.ts";
import type { JsonRpcId, RpcAnswer, RpcErrorObject } from "../jsonrpc/types.ts";
import type { AuditInput, Outcome } from "../ledger/audit.ts";
import { reserve, settle } from "../ledger/ledger.ts";
import { priceOf } from "../pricing/prices.ts";
import { type EnvelopeItem, parseEnvelope, replyError, replyResult } from "./envelope.ts";
import { checkGetRawTransaction } from "./node-methods.ts";

/** A call that passed the gateway's checks and will be forwarded. */
interface Forward {
  index: number;
  id: JsonRpcId;
  method: string;
  params: Json[];
  price: number;
}

type Slot =
  | { kind: "reply"; id: JsonRpcId; method: string; error: RpcErrorObject; outcome: Outcome }
  | { kind: "forward"; forward: Forward };

const METHODS: Record<string, typeof checkGetRawTransaction> = {
  getrawtransaction: checkGetRawTransaction,
};

/**
 * The full-node mirror: POST /<node>/<network>/<token> with a JSON-RPC 2.0 call or batch.
 * Calls are checked as Core checks them, priced, reserved as a whole, forwarded as one upstream
 * batch, and settled with one audit record per call before anything is sent.
 */
export async function handleNodeRpc(ctx: CallContext, body: string): Promise<HttpReply> {
  const { app } = ctx;
  const envelope = parseEnvelope(body, app.config.server.batchItemsMax);
  if (envelope.kind === "fatal") {
    await settle(app.db, ctx.owner.accountId, null, [
      audit(ctx, "(invalid)", "rejected", String(envelope.error.code), 200, 0, 0),
    ]);
    return { status: 200, body: replyError(null, envelope.error) };
  }
  const items = envelope.kind === "single" ? [envelope.item] : envelope.items;
  if (items.length === 0) return { status: 200, body: [] };

  const slots = items.map((item, index) => plan(ctx, item, index));
  const forwards = slots.flatMap((s) => (s.kind === "forward" ? [s.forward] : []));
  const estimate = forwards.reduce((sum, f) => sum + f.price, 0);

  const reservation = await reserve(app.db, ctx.owner.accountId, estimate);
  if (!reservation.ok) {
    const error = gatewayError(
      "INSUFFICIENT_CREDITS",
      `Insufficient credits: ${reservation.available} CC available, ${reservation.required} CC required`,
      { data: { balance: reservation.available, required: reservation.required } },
    );
    await settle(
      app.db,
      ctx.owner.accountId,
      null,
      slots.map((s) => {
        const method = s.kind === "forward" ? s.forward.method : s.method;
        return audit(
          ctx,
          method,
          "insufficient_credits",
          error.code,
          429,
          s.kind === "forward" ? s.forward.price : 0,
          0,
        );
      }),
    );
    const errors = slots.map((s) =>
      replyError(s.kind === "forward" ? s.forward.id : s.id, toRpcError(error)),
    );
    return {
      status: httpStatusOf(error.code),
      body: envelope.kind === "single" ? errors[0] : errors,
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
      app.log.warn({ requestId: ctx.requestId, err: out.error.detail }, out.error.message);
    }
  }

  const replies: unknown[] = [];
  const records: AuditInput[] = [];
  let forwardIndex = 0;
  for (const slot of slots) {
    if (slot.kind === "reply") {
      replies.push(replyError(slot.id, slot.error));
      records.push(audit(ctx, slot.method, slot.outcome, String(slot.error.code), 200, 0, 0));
      continue;
    }
    const f = slot.forward;
    const answer = answers?.[forwardIndex++];
    if (!answer) {
      const err = failure ?? gatewayError("INTERNAL", "no answer");
      replies.push(replyError(f.id, toRpcError(err)));
      records.push(
        audit(
          ctx,
          f.method,
          "upstream_failure",
          err.code,
          httpStatusOf(err.code),
          f.price,
          0,
          upstream,
        ),
      );
    } else if ("error" in answer) {
      replies.push(replyError(f.id, answer.error));
      records.push(
        audit(
          ctx,
          f.method,
          "upstream_error",
          String(answer.error.code),
          200,
          f.price,
          f.price,
          upstream,
        ),
      );
    } else {
      replies.push(replyResult(f.id, answer.result));
      records.push(audit(ctx, f.method, "ok", null, 200, f.price, f.price, upstream));
    }
  }
  // Invariant 3: nothing is sent until the charge and its audit records are committed.
  const settled = await settle(app.db, ctx.owner.accountId, reservation.hold, records);
  const status =
    failure && slots.every((s) => s.kind === "forward") ? httpStatusOf(failure.code) : 200;
  return {
    status,
    body: envelope.kind === "single" ? replies[0] : replies,
    headers: creditHeaders(estimate, settled.charged, settled.available),
  };
}

function plan(ctx: CallContext, item: EnvelopeItem, index: number): Slot {
  if (item.kind === "invalid") {
    return {
      kind: "reply",
      id: item.id,
      method: "(invalid)",
      error: item.error,
      outcome: "rejected",
    };
  }
  const check = METHODS[item.method];
  const price = priceOf(ctx.app.config, item.method, ctx.network);
  if (!check || price === undefined) {
    return {
      kind: "reply",
      id: item.id,
      method: item.method.slice(0, 64),
      error: { code: -32601, message: "Method not found" },
      outcome: "rejected",
    };
  }
  const checked = check(item.params, ctx.network);
  if (!checked.ok) {
    return {
      kind: "reply",
      id: item.id,
      method: item.method,
      error: checked.error,
      outcome: "rejected",
    };
  }
  return {
    kind: "forward",
    forward: { index, id: item.id, method: item.method, params: checked.params, price },
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
  return {
    requestId: ctx.requestId,
    accountId: ctx.owner.accountId,
    tokenId: ctx.owner.tokenId,
    backend: ctx.backendSegment,
    network: ctx.network,
    method,
    outcome,
    errorCode,
    httpStatus,
    estimatedCc,
    chargedCc,
    upstream,
    durationMs: Date.now() - ctx.startedAt,
  };
}

export function creditHeaders(estimated: number, charged: number, balance: number) {
  return {
    "x-credits-estimated": String(estimated),
    "x-credits-charged": String(charged),
    "x-credits-balance": String(balance),
  };
}
