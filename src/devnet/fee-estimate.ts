import type { Transaction } from "../bitcoin/index.ts";
import { MIN_RELAY_FEERATE } from "./mempool-policy.ts";

/** Core's MAX_CONF_TARGET of the long-horizon estimator, in blocks. */
export const MAX_CONF_TARGET = 1008;

/**
 * devnet's fee estimate, deterministic and drawn from real feerates: Core estimates from how
 * fast transactions of each feerate confirmed over past blocks, a history devnet does not
 * have. devnet instead ranks the feerates (sat per 1000 vbytes, CFeeRate's integer division) of
 * the mempool transactions whose fees it knows, highest first, and answers the n-th for a
 * target of n blocks (the lowest past the end): to be in the next n blocks, outbid all but
 * n−1 of the waiting transactions. Never below the minimum relay feerate, as Core clamps.
 * Undefined with no known feerate (Core's "Insufficient data or no feerate found").
 */
export function estimateFeerate(
  pool: Iterable<Transaction>,
  feeOf: (tx: Transaction) => bigint | undefined,
  target: number,
): bigint | undefined {
  const rates: bigint[] = [];
  for (const tx of pool) {
    const fee = feeOf(tx);
    if (fee !== undefined) rates.push((fee * 1000n) / BigInt(tx.vsize));
  }
  if (rates.length === 0) return undefined;
  rates.sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
  const rate = rates[Math.min(target, rates.length) - 1]!;
  return rate > MIN_RELAY_FEERATE ? rate : MIN_RELAY_FEERATE;
}
