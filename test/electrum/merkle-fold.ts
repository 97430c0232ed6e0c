import { sha256d } from "../../src/bitcoin/hash.ts";
import { fromHexReversed } from "../../src/bitcoin/hex.ts";

/**
 * Folds an Electrum merkle branch (display-order hashes, from the leaves up) from the leaf at
 * `pos`, written here apart from devnet's branchAndRoot so tests check its proofs independently.
 * Returns the root in wire byte order.
 */
export function foldBranch(leaf: Uint8Array, branch: string[], pos: number): Uint8Array {
  let hash = leaf;
  branch.forEach((sibling, level) => {
    const other = fromHexReversed(sibling);
    hash = (pos >> level) & 1 ? sha256d(other, hash) : sha256d(hash, other);
  });
  return hash;
}
