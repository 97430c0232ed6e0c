import { LosslessNumber } from "lossless-json";

export const COIN = 100_000_000n;

/**
 * Core's ValueFromAmount text: `%s%d.%08d`, sign first, always 8 decimals. bigint has no
 * INT64_MIN overflow to dodge, so the magnitude is simply split.
 */
export function formatAmount(sats: bigint): string {
  const neg = sats < 0n;
  const abs = neg ? -sats : sats;
  const frac = (abs % COIN).toString().padStart(8, "0");
  return `${neg ? "-" : ""}${abs / COIN}.${frac}`;
}

/** The amount as a JSON number that keeps Core's exact text through lossless-json stringify. */
export function amountToJson(sats: bigint): LosslessNumber {
  return new LosslessNumber(formatAmount(sats));
}

/** Parse Core's BTC amount text (e.g. "0.00100000") back to satoshis, exactly. */
export function parseAmount(text: string): bigint {
  const m = /^(-)?(\d+)(?:\.(\d{1,8}))?$/.exec(text);
  if (m === null) throw new Error(`not an amount: ${text}`);
  const sats = BigInt(m[2]!) * COIN + BigInt((m[3] ?? "").padEnd(8, "0"));
  return m[1] ? -sats : sats;
}
