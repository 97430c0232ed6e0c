import { type GatewayError, gatewayError } from "../../protocol/errors/codes.ts";
import type { ClaimResult } from "../ledger/credits.ts";
import type { CallContext } from "./context.ts";

export type Reservation =
  | Extract<ClaimResult, { ok: true }>
  | { ok: false; available: number; required: number; error: GatewayError };

/**
 * Reserves `estimate` CC for the caller's account before anything is forwarded (from a credit
 * lease of this process, or a per-call hold: src/billing/ledger/credits.ts); a shortfall comes back as
 * INSUFFICIENT_CREDITS (429), worded once here for every protocol that renders it.
 */
export async function reserveFor(ctx: CallContext, estimate: number): Promise<Reservation> {
  const reservation = await ctx.services.credits.reserve(ctx.owner.accountId, estimate);
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
