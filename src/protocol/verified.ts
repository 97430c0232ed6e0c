/**
 * How far the gateway checked an answer, as `X-Blockgate-Verified` and the unified API's
 * `verification.status` say it:
 * - `chain`: everything it claims was checked against the verified header chain (a transaction's
 *   bytes hash to its txid and a merkle proof puts it in a block on that chain; a header or block
 *   hashes to what was asked and sits on it), confirmations counted from the verified tip;
 * - `bytes`: its bytes hash to what was asked and it claims nothing about the chain (a
 *   transaction in the mempool, a raw transaction) or its block is not on the verified chain;
 * - `partial`: its bytes were checked, not what it claims about the chain (no verified chain for
 *   the network yet), or the parts of an answer were checked to different degrees;
 * - `unchecked`: nothing could be checked (a fee estimate, an address's history, an error).
 */
export type Verified = "chain" | "bytes" | "partial" | "unchecked";

export const VERIFIED_HEADER = "x-blockgate-verified";
export const REQUIRE_VERIFIED_HEADER = "x-blockgate-require-verified";

/** Whether the answer is all the gateway could check of it: what a caller that requires verified answers gets. */
export function complete(v: Verified): boolean {
  return v === "chain" || v === "bytes";
}

/**
 * One level for several answers (a batch, a GraphQL response): the one they share; else, all
 * complete, `bytes`; else `partial` when any was checked at all, `unchecked` when none was.
 */
export function combineVerified(levels: Iterable<Verified>): Verified {
  let first: Verified | null = null;
  let same = true;
  let allComplete = true;
  let anyChecked = false;
  for (const v of levels) {
    first ??= v;
    if (v !== first) same = false;
    if (!complete(v)) allComplete = false;
    if (v !== "unchecked") anyChecked = true;
  }
  if (first === null) return "unchecked";
  if (same) return first;
  if (allComplete) return "bytes";
  return anyChecked ? "partial" : "unchecked";
}

/** Whether a request's `X-Blockgate-Require-Verified` asks for complete answers only: `1` or `true`. */
export function requiresVerified(value: string | string[] | undefined): boolean {
  const v = Array.isArray(value) ? value[0] : value;
  return v === "1" || v?.toLowerCase() === "true";
}
