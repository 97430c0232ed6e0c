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

/** A proven membership with the verified header it leads to, for a client to check in turn. */
export interface MembershipProof extends Membership {
  height: number;
  /** The block's 80 header bytes, hex. */
  header: string;
}

/** The proof of a membership kept in `proven`, while its block is on the verified chain. */
export function proofOn(
  chain: ChainView | undefined,
  proven: { get(key: string): Membership | undefined },
  txid: string,
  blockhash: string,
): MembershipProof | null {
  const header = chain?.byHash(blockhash);
  const membership = proven.get(`${txid}${blockhash}`);
  if (!header || !membership) return null;
  return { ...membership, height: header.height, header: header.header };
}
