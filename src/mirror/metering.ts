import type { CallContext } from "../app/context.ts";
import { type GatewayError, gatewayError } from "../errors/codes.ts";
import type { AuditInput, Outcome } from "../ledger/audit.ts";
import { type ReserveResult, reserve } from "../ledger/ledger.ts";

/**
 * What every mirror route does around its upstream call: reserve the estimate (or refuse with
 * 429 before anything is forwarded), write one audit record per call, and tell the caller the
 * cost in X-Credits-* headers. Settling stays ledger.settle(), called once with every record.
 */

export type Reservation =
  | Extract<ReserveResult, { ok: true }>
  | { ok: false; available: number; required: number; error: GatewayError };

/** Reserves `estimate` CC for the caller's account; a shortfall comes back as INSUFFICIENT_CREDITS. */
export async function reserveFor(ctx: CallContext, estimate: number): Promise<Reservation> {
  const reservation = await reserve(ctx.app.db, ctx.owner.accountId, estimate);
  if (reservation.ok) return reservation;
  return {
    ...reservation,
    error: gatewayError(
      "INSUFFICIENT_CREDITS",
      `Insufficient credits: ${reservation.available} CC available, ${reservation.required} CC required`,
      { data: { balance: reservation.available, required: reservation.required } },
    ),
  };
}

export interface AuditFields {
  method: string;
  outcome: Outcome;
  errorCode?: string | null;
  httpStatus: number;
  estimatedCc?: number;
  chargedCc?: number;
  upstream?: string | null;
  complexity?: number | null;
}

/** One audit record for a call on this request's route, account and token. */
export function auditRecord(ctx: CallContext, fields: AuditFields): AuditInput {
  return {
    requestId: ctx.requestId,
    accountId: ctx.owner.accountId,
    tokenId: ctx.owner.tokenId,
    backend: ctx.backendSegment,
    network: ctx.network,
    method: fields.method.slice(0, 64),
    outcome: fields.outcome,
    errorCode: fields.errorCode ?? null,
    httpStatus: fields.httpStatus,
    estimatedCc: fields.estimatedCc ?? 0,
    chargedCc: fields.chargedCc ?? 0,
    complexity: fields.complexity ?? null,
    upstream: fields.upstream ?? null,
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
