import type { CallContext } from "../app/context.ts";
import { type GatewayError, gatewayError } from "../errors/codes.ts";
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

export { creditHeaders } from "../http/credit-headers.ts";
// One audit-record builder and one set of credit headers for every route.
export { type AuditFields, auditRecord } from "../ledger/audit.ts";
