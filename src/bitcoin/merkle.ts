import { sha256d } from "./hash.ts";

/**
 * Bitcoin's merkle root over hashes in wire byte order: pair up, duplicating the last hash of an
 * odd level (Core's ComputeMerkleRoot; the CVE-2012-2459 mutation flag is not reported here).
 */
export function computeMerkleRoot(hashes: readonly Uint8Array[]): Uint8Array {
  if (hashes.length === 0) return new Uint8Array(32);
  let level = hashes.slice();
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i]!;
      const right = level[i + 1] ?? left;
      next.push(sha256d(left, right));
    }
    level = next;
  }
  return level[0]!;
}
