import { type GatewayError, gatewayError } from "../errors/codes.ts";
import { type ReserveResult, reserve } from "../ledger/ledger.ts";
import type { CallContext } from "./context.ts";

export type Reservation =
  | Extract<ReserveResult, { ok: true }>
  | { ok: false; available: number; required: number; error: GatewayError };

/**
 * Reserves `estimate` CC for the caller's account before anything is forwarded; a shortfall comes
 * back as INSUFFICIENT_CREDITS (429), worded once here for every protocol that renders it.
 */
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
