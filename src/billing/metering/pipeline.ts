import { methodOutOfScope } from "../../access/scope.ts";
import { scopeError } from "../../access/scope-errors.ts";
import { type ErrorCode, type GatewayError, httpStatusOf } from "../../protocol/errors/codes.ts";
import { combineVerified, VERIFIED_HEADER, type Verified } from "../../protocol/verified.ts";
import type { AuditInput, Outcome } from "../ledger/audit.ts";
import type { Claim } from "../ledger/credits.ts";
import { LedgerError } from "../ledger/errors.ts";
import type { Settled } from "../ledger/settle-queue.ts";
import { type AuditFields, auditRecord } from "./audit-record.ts";
import type { CallContext } from "./context.ts";
import { creditHeaders } from "./credit-headers.ts";
import { reserveFor } from "./reserve.ts";

/**
 * The metering pipeline every priced route runs: price (the plan) → reserve → execute → settle
 * (charges and audit records in one transaction) → the cost, for the route to render. Routes
 * supply how to parse, price, execute and render; reserving and settling happen only here
 * (and in the ledger itself), so ledger invariants 2 and 3 are held in one place.
 */

/** A call of the request as planned: priced, to be executed, or refused before anything runs. */
export type PlannedCall =
  | { kind: "priced"; method: string; price: number; complexity?: number | null }
  | {
      kind: "refused";
      method: string;
      outcome: Outcome;
      errorCode: ErrorCode | null;
      /** The native code of the refusal made as the upstream would make it (Core's -8). */
      upstreamCode?: string | null;
      /** What the caller's reply for it says, should the request go ahead. */
      httpStatus: number;
    };

/** What became of one priced call once executed. */
export type CallOutcome =
  | {
      /**
       * An answer reached the caller (a result, or the upstream's own error): charged. Or the
       * request was refused once it was executing, before any upstream call (`rejected`, the
       * unified API's variables): charged what ran, nothing. Or the answers were over
       * server.responseBytesMax and not passed on (`too_large`): charged, the upstream answered.
       */
      kind: "answered";
      outcome: "ok" | "upstream_error" | "rejected" | "too_large";
      errorCode?: ErrorCode | null;
      /** The upstream's own code for its error (Core's -5), beside our UPSTREAM_ERROR. */
      upstreamCode?: string | null;
      httpStatus: number;
      /** What the work done costs; the call's price unless given, never more than that price. */
      chargedCc?: number;
      upstream?: string | null;
      /** The complexity measured while executing, instead of the planned one. */
      complexity?: number | null;
      /** Calls answered from the response cache (charged as misses; flagged in the audit row). */
      cacheHits?: number;
      /** How far the gateway checked the answer (X-Blockgate-Verified); absent: not at all. */
      verified?: Verified;
    }
  /** The gateway could not get an answer (no upstream, timeout): not charged. */
  | { kind: "failed"; error: GatewayError };

export interface MeterPlan<T> {
  /** Every call of the request, in order: its audit records are written in this order. */
  calls: readonly PlannedCall[];
  /**
   * Runs the priced calls, only once their estimate is reserved: the route's own result, and one
   * outcome per priced call, in the order of `calls`.
   */
  execute(): Promise<{ value: T; outcomes: readonly CallOutcome[] }>;
  /**
   * What of the route's answer needs no figure of the settle (rendering its bytes), done while the
   * settle's statement is in flight, so its CPU time overlaps the database's instead of adding to
   * the latency. The answer is still sent only once settled (invariant 3); should the settle fail,
   * what this made is dropped.
   */
  prepare?(value: T): T;
}

/** Settled: what the route renders, cost headers included. */
export type Metered<T> =
  | {
      ok: true;
      value: T;
      estimated: number;
      charged: number;
      available: number;
      auditIds: number[];
      headers: Record<string, string>;
    }
  | {
      /** Refused before anything ran: the balance is short of the estimate (429). */
      ok: false;
      error: GatewayError;
      estimated: number;
      available: number;
      required: number;
      auditIds: number[];
      headers: Record<string, string>;
    };

/** Runs one request's calls through reserve → execute → settle. */
export async function meter<T>(ctx: CallContext, given: MeterPlan<T>): Promise<Metered<T>> {
  // A rerun of an idempotent request whose first attempt was charged runs free of charge.
  const plan = ctx.idempotency?.rerun ? free(given) : given;
  const estimated = plan.calls.reduce((sum, c) => sum + (c.kind === "priced" ? c.price : 0), 0);
  // The token's methods, once the body says which: one call outside them refuses the request.
  const method = methodOutOfScope(
    ctx.owner.scope ?? null,
    plan.calls.flatMap((c) => (c.kind === "priced" ? [c.method] : [])),
  );
  if (method !== null) {
    ctx.services.metrics.outOfScope.inc({ route: ctx.backend, scope: "method" });
    return refuseAll(ctx, plan, estimated, scopeError("method", method), "forbidden");
  }
  // The plan's credit caps take the estimate first; what the calls do not cost goes back below.
  const capped = await ctx.services.limits.spend(ctx.owner, estimated, ctx.caps ?? null);
  if (!capped.ok) {
    ctx.services.metrics.creditCapped.inc({ route: ctx.backend });
    return refuseAll(ctx, plan, estimated, capped.error, "credit_cap", {
      headers: { "retry-after": String(capped.retryAfterSeconds) },
    });
  }
  const reservation = await reserveFor(ctx, estimated);
  if (!reservation.ok) {
    await capped.giveBack(estimated);
    return refuseAll(ctx, plan, estimated, reservation.error, "insufficient_credits", {
      available: reservation.available,
      required: reservation.required,
    });
  }

  const { value, outcomes } = await executeReserved(ctx, plan, reservation.claim, () =>
    capped.giveBack(estimated),
  );
  logFailures(ctx, outcomes);
  let next = 0;
  const records: AuditInput[] = plan.calls.map((c) =>
    c.kind === "priced"
      ? settledRecord(ctx, c, outcomes[next++])
      : auditRecord(ctx, {
          method: c.method,
          outcome: c.outcome,
          errorCode: c.errorCode,
          upstreamCode: c.upstreamCode ?? null,
          httpStatus: c.httpStatus,
        }),
  );
  // Invariant 3: the route answers only after the charges and their records are committed.
  const settle = () =>
    ctx.services.credits.settle(
      ctx.owner.accountId,
      reservation.claim,
      records,
      ctx.idempotency?.key ?? null,
    );
  const settling = ctx.charge ? ctx.charge(settle) : settle();
  const prepared = plan.prepare ? await whileSettling(settling, value, plan.prepare) : value;
  const settled = await settling;
  await capped.giveBack(estimated - settled.charged);
  return {
    ok: true,
    value: prepared,
    estimated,
    charged: settled.charged,
    available: settled.available,
    auditIds: settled.auditIds,
    headers: {
      ...creditHeaders(estimated, settled.charged, settled.available),
      [VERIFIED_HEADER]: verifiedOf(outcomes),
    },
  };
}

/**
 * Runs the plan's work once its credits are reserved, counted as coming to the settle queue. A
 * plan answers its calls' failures as outcomes; one that throws instead still gives back what was
 * reserved for it (a hold released, a lease's credits freed) and its caps, charging nothing.
 */
async function executeReserved<T>(
  ctx: CallContext,
  plan: MeterPlan<T>,
  claim: Claim,
  giveBackCaps: () => Promise<void>,
): Promise<Awaited<ReturnType<MeterPlan<T>["execute"]>>> {
  const coming = ctx.services.credits.queue.coming();
  try {
    return await plan.execute();
  } catch (err) {
    await ctx.services.credits
      .settle(ctx.owner.accountId, claim, [])
      .catch((e: unknown) =>
        ctx.services.log.error({ err: e }, "releasing a failed call's credits"),
      );
    await giveBackCaps();
    throw err;
  } finally {
    coming();
  }
}

/**
 * One delivery of something already made (a chain event, made once for all its subscribers)
 * through the pipeline: the token's scope and the plan's caps as `meter` checks them, then a
 * direct charge, gathered with the other deliveries of the same moment into one statement
 * (credits.ts chargeDirect) instead of a reservation and a settle each. An account that cannot pay
 * for it directly goes through `meter` as before: its leased credits recalled, or refused with its
 * record. Charged, audited and answered exactly as `meter` would.
 */
export async function meterDelivery<T>(
  ctx: CallContext,
  call: Extract<PlannedCall, { kind: "priced" }>,
  value: T,
): Promise<Metered<T>> {
  const outcomes: CallOutcome[] = [{ kind: "answered", outcome: "ok", httpStatus: 200 }];
  const plan: MeterPlan<T> = { calls: [call], execute: async () => ({ value, outcomes }) };
  if (ctx.idempotency || methodOutOfScope(ctx.owner.scope ?? null, [call.method]) !== null) {
    return meter(ctx, plan);
  }
  const estimated = call.price;
  // Refused by its caps (nothing taken): `meter` looks again and refuses it in its own words.
  const capped = await ctx.services.limits.spend(ctx.owner, estimated, ctx.caps ?? null);
  if (!capped.ok) return meter(ctx, plan);
  const records = [settledRecord(ctx, call, outcomes[0])];
  const charge = () => ctx.services.credits.chargeDirect(ctx.owner.accountId, records);
  let settled: Settled | null;
  try {
    settled = await (ctx.charge ? ctx.charge(charge) : charge());
  } catch (err) {
    // A statement that failed wrote nothing (a deadlock with another process's): tried alone.
    if (!(err instanceof LedgerError)) throw err;
    settled = null;
  }
  if (settled === null) {
    await capped.giveBack(estimated);
    return meter(ctx, plan);
  }
  return {
    ok: true,
    value,
    estimated,
    charged: settled.charged,
    available: settled.available,
    auditIds: settled.auditIds,
    headers: {
      ...creditHeaders(estimated, settled.charged, settled.available),
      [VERIFIED_HEADER]: DELIVERY_VERIFIED,
    },
  };
}

/** A delivery's X-Blockgate-Verified: an answer nothing checked, as `meter` reports it. */
const DELIVERY_VERIFIED: Verified = "unchecked";

/**
 * The request's X-Blockgate-Verified: its answers' levels together. A call that failed says
 * nothing, nor one refused, unless for what its answer was found to be (required verification).
 */
function verifiedOf(outcomes: readonly CallOutcome[]): Verified {
  return combineVerified(
    outcomes.flatMap((o) =>
      o.kind !== "answered" || (o.outcome === "rejected" && o.verified === undefined)
        ? []
        : [o.verified ?? "unchecked"],
    ),
  );
}

/**
 * Runs `prepare` once the settle's statement has gone to the database: the settle queue gathers a
 * batch on the next turn of the event loop (setImmediate), and this turn comes after it.
 */
async function whileSettling<T, S>(
  settling: Promise<S>,
  value: T,
  prepare: (value: T) => T,
): Promise<T> {
  // Its failure is the caller's, when it awaits the settle; not an unhandled rejection meanwhile.
  settling.catch(() => {});
  await new Promise<void>((resolve) => setImmediate(resolve));
  return prepare(value);
}

/**
 * The whole request refused before anything ran (429: credits short of its estimate, or its
 * plan's credit cap spent; 403: a method outside the token's scope): each of its records says so,
 * nothing is charged. `known`: the balance the reserve saw, and headers the refusal adds.
 */
async function refuseAll<T>(
  ctx: CallContext,
  plan: MeterPlan<T>,
  estimated: number,
  error: GatewayError,
  outcome: "insufficient_credits" | "credit_cap" | "forbidden",
  known: { available?: number; required?: number; headers?: Record<string, string> } = {},
): Promise<Metered<T>> {
  const status = httpStatusOf(error.code);
  const settled = await ctx.services.credits.settle(
    ctx.owner.accountId,
    { kind: "none" },
    plan.calls.map((c) =>
      auditRecord(
        ctx,
        c.kind === "priced"
          ? {
              method: c.method,
              outcome,
              errorCode: error.code,
              httpStatus: status,
              estimatedCc: c.price,
              complexity: c.complexity ?? null,
            }
          : {
              method: c.method,
              outcome: c.outcome,
              errorCode: c.errorCode,
              upstreamCode: c.upstreamCode ?? null,
              httpStatus: status,
            },
      ),
    ),
  );
  const available = known.available ?? settled.available;
  return {
    ok: false,
    error,
    estimated,
    available,
    required: known.required ?? estimated,
    auditIds: settled.auditIds,
    headers: { ...creditHeaders(estimated, 0, available), ...known.headers },
  };
}

/** The plan with every priced call at 0 CC. */
function free<T>(plan: MeterPlan<T>): MeterPlan<T> {
  return {
    ...plan,
    calls: plan.calls.map((c) => (c.kind === "priced" ? { ...c, price: 0 } : c)),
  };
}

function settledRecord(
  ctx: CallContext,
  call: Extract<PlannedCall, { kind: "priced" }>,
  outcome: CallOutcome | undefined,
): AuditInput {
  // The fields are written out rather than spread from a shared `planned` literal: V8 clones a
  // freshly made literal and extends the copy far slower than it builds the object outright, and
  // every call of every request comes here.
  if (!outcome || outcome.kind === "failed") {
    const error = outcome?.error;
    const code = error?.code ?? "INTERNAL";
    return auditRecord(ctx, {
      method: call.method,
      estimatedCc: call.price,
      complexity: call.complexity,
      outcome: "upstream_failure",
      errorCode: code,
      upstreamCode: error?.upstreamCode ?? null,
      httpStatus: httpStatusOf(code),
    });
  }
  const cost = outcome.chargedCc ?? call.price;
  // The estimate is an upper bound; should it ever be exceeded, the hold caps the charge.
  if (cost > call.price) {
    ctx.services.log.error(
      { requestId: ctx.requestId, actual: cost, estimate: call.price },
      "cost estimate exceeded",
    );
  }
  return auditRecord(ctx, {
    method: call.method,
    estimatedCc: call.price,
    outcome: outcome.outcome,
    errorCode: outcome.errorCode ?? null,
    upstreamCode: outcome.upstreamCode ?? null,
    httpStatus: outcome.httpStatus,
    chargedCc: Math.min(cost, call.price),
    upstream: outcome.upstream ?? null,
    complexity: outcome.complexity === undefined ? call.complexity : outcome.complexity,
    cacheHits: outcome.cacheHits ?? 0,
  });
}

/**
 * The request's failures to get an answer, each kind logged once however many calls it failed (a
 * timeout of a 60-call batch is one line, with the first call's detail and the count).
 */
function logFailures(ctx: CallContext, outcomes: readonly CallOutcome[]): void {
  // Once a drain has timed out, upstreams fail because the gateway closes them: not news.
  if (ctx.services.credits.isAbandoned) return;
  const seen = new Map<string, { error: GatewayError; calls: number }>();
  for (const o of outcomes) {
    if (o.kind !== "failed") continue;
    const key = `${o.error.code} ${o.error.message}`;
    const known = seen.get(key);
    if (known) known.calls += 1;
    else seen.set(key, { error: o.error, calls: 1 });
  }
  for (const { error, calls } of seen.values()) {
    ctx.services.log.warn({ requestId: ctx.requestId, calls, detail: error.detail }, error.message);
  }
}

/**
 * A request refused before anything was priced or reserved (invalid envelope, batch too large,
 * a query the schema refuses): its records are settled like any other, charging nothing, so every
 * request has its audit record. Returns the available balance, for routes that report it.
 */
export async function auditOnly(
  ctx: CallContext,
  records: readonly AuditFields[],
): Promise<{ available: number; auditIds: number[]; headers: Record<string, string> }> {
  const settled = await ctx.services.credits.settle(
    ctx.owner.accountId,
    { kind: "none" },
    records.map((r) => auditRecord(ctx, r)),
  );
  return {
    available: settled.available,
    auditIds: settled.auditIds,
    headers: creditHeaders(0, 0, settled.available),
  };
}
