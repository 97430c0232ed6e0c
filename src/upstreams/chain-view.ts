/**
 * What the pools check block claims against: a network's verified header chain
 * (src/verify/chain/'s VerifiedChain has this shape). Undefined members: nothing verified yet.
 */
export interface ChainView {
  tip(): ChainHeader | undefined;
  byHash(hash: string): ChainHeader | undefined;
  atHeight(height: number): ChainHeader | undefined;
}

export interface ChainHeader {
  readonly height: number;
  readonly hash: string;
  /** The 80 header bytes, hex. */
  readonly header: string;
  /** Display hex. */
  readonly merkleRoot: string;
}

/** Confirmations of a block on the chain, counted from its verified tip (the tip has one). */
export function confirmationsOn(chain: ChainView, header: ChainHeader): number {
  const tip = chain.tip();
  return tip ? tip.height - header.height + 1 : 1;
}

/**
 * Where a transaction's membership was proven: the block and the transaction's merkle branch in
 * it (leaf up, display hex), for callers that check the gateway in turn.
 */
export interface Membership {
  blockhash: string;
  pos: number;
  branch: readonly string[];
}
