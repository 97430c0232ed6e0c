/**
 * How a liar lies (docs/users/devnet.md, "A lying upstream"). Every lie is off unless set; a
 * liar with no lies is an honest proxy. `set` on a running liar changes them at once.
 */
export interface LiarOptions {
  /**
   * Transactions whose bytes are changed (the low byte of the locktime flipped: still a
   * transaction, no longer the one asked for): these txids, or "all". In getrawtransaction and
   * blockchain.transaction.get answers, plain and verbose (`hex`).
   */
  tamperTx?: readonly string[] | "all";
  /**
   * Transactions claimed in the wrong block: verbose answers name the block below the real one
   * (`blockhash`) with one confirmation more; blockchain.transaction.get_merkle's `block_height`
   * is one lower. These txids, or "all".
   */
  wrongBlock?: readonly string[] | "all";
  /** The chain served as if its tip were this many blocks lower (a node that fell behind). */
  shorterBy?: number;
  /**
   * Headers served invalid from `fromHeight` (default: the tip served) up, each on the one below
   * it: "bits" claims the wrong nBits, "time" a time at the median time past, "pow" a nonce whose
   * hash misses the target. Each is otherwise a valid header (its proof of work is ground for the
   * bits it claims where the target allows it, as on regtest), so the check it fails is that one.
   */
  invalidHeaders?: { kind: "bits" | "time" | "pow"; fromHeight?: number };
  /** Calls of this method are never answered (nor forwarded). */
  stall?: string;
}

/** Whether `txid` is among those a lie names. */
export function names(list: readonly string[] | "all" | undefined, txid: string): boolean {
  return list === "all" || (list?.includes(txid) ?? false);
}
