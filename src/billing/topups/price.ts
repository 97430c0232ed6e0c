import type { NetworkName, TopupsConfig } from "../../config/schema.ts";

/** What an invoice for `credits` CC costs, or why none is made. */
export type Quote = { ok: true; sats: number } | { ok: false; reason: string };

/**
 * The price of `credits` CC: a package of exactly that size at its own price, else the rate
 * (rounded up to a whole satoshi, so no invoice is ever under the rate), never under the minimum.
 */
export function quote(config: TopupsConfig, credits: number): Quote {
  if (!Number.isSafeInteger(credits) || credits <= 0) {
    return { ok: false, reason: "credits: a positive whole number" };
  }
  const pkg = config.packages.find((p) => p.credits === credits);
  let sats: number;
  if (pkg) sats = pkg.sats;
  else if (config.satsPer1000Credits !== undefined) {
    const exact = BigInt(credits) * BigInt(config.satsPer1000Credits);
    sats = Number((exact + 999n) / 1000n);
  } else {
    const sizes = config.packages.map((p) => p.credits).join(", ");
    return { ok: false, reason: `credits: one of the packages (${sizes})` };
  }
  if (!Number.isSafeInteger(sats))
    return { ok: false, reason: "credits: too many for one invoice" };
  if (sats < config.minimumSats) {
    return {
      ok: false,
      reason: `an invoice is at least ${config.minimumSats} sats; ${credits} CC cost ${sats}`,
    };
  }
  return { ok: true, sats };
}

/** Confirmations a payment on `network` needs: the config's, else 3 on mainnet and 1 elsewhere. */
export function confirmationsFor(config: TopupsConfig, network: NetworkName): number {
  const c = config.confirmations;
  if (typeof c === "number") return c;
  return c[network] ?? (network === "mainnet" ? 3 : 1);
}
