import { sha256d } from "../../bitcoin/hash.ts";

/**
 * ElectrumX's Merkle.branch_and_root over hashes in wire byte order: at each level an odd list
 * repeats its last hash, the branch takes the sibling of the hash's position, and the position
 * halves. The branch goes from the leaves up.
 */
export function branchAndRoot(
  hashes: readonly Uint8Array[],
  index: number,
): { branch: Uint8Array[]; root: Uint8Array } {
  let level = hashes.slice();
  let at = index;
  const branch: Uint8Array[] = [];
  while (level.length > 1) {
    if (level.length % 2 === 1) level.push(level[level.length - 1]!);
    branch.push(level[at ^ 1]!);
    at >>= 1;
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(level[i]!, level[i + 1]!));
    level = next;
  }
  return { branch, root: level[0]! };
}
