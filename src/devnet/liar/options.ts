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

const TXIDS = (v: unknown) =>
  v === "all" ||
  (Array.isArray(v) && v.every((t) => typeof t === "string" && /^[0-9a-f]{64}$/.test(t)));

/** Options read from text (`blockgate devnet serve --lie`): the lies, or what is wrong with them. */
export function parseLiarOptions(json: string): LiarOptions | string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return "the lies are not JSON";
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return "the lies are a JSON object";
  }
  const o = value as Record<string, unknown>;
  const known = ["tamperTx", "wrongBlock", "shorterBy", "invalidHeaders", "stall"];
  const unknown = Object.keys(o).find((k) => !known.includes(k));
  if (unknown) return `"${unknown}" is not a lie (${known.join(", ")})`;
  if (o.tamperTx !== undefined && !TXIDS(o.tamperTx)) return 'tamperTx: txids, or "all"';
  if (o.wrongBlock !== undefined && !TXIDS(o.wrongBlock)) return 'wrongBlock: txids, or "all"';
  if (
    o.shorterBy !== undefined &&
    !(Number.isSafeInteger(o.shorterBy) && (o.shorterBy as number) >= 0)
  ) {
    return "shorterBy: a whole number";
  }
  const h = o.invalidHeaders as { kind?: unknown; fromHeight?: unknown } | undefined;
  if (
    h !== undefined &&
    (typeof h !== "object" ||
      !["bits", "time", "pow"].includes(String(h.kind)) ||
      (h.fromHeight !== undefined && !Number.isSafeInteger(h.fromHeight)))
  ) {
    return 'invalidHeaders: { "kind": "bits" | "time" | "pow", "fromHeight"?: a height }';
  }
  if (o.stall !== undefined && typeof o.stall !== "string") return "stall: a method name";
  return o as LiarOptions;
}
