import { sha256d } from "./hash.ts";
import { compactSizeBytes as compactSize, concatBytes } from "./script-build.ts";

/**
 * Core's CMerkleBlock serialization (merkleblock.cpp): the 80-byte header, then the
 * CPartialMerkleTree of the block's txids (wire order) with `match` marking the ones proven:
 * the transaction count (u32), the hashes kept (depth-first), the flag bits (LSB first).
 */
export function merkleBlockBytes(
  header: Uint8Array,
  txids: readonly Uint8Array[],
  match: readonly boolean[],
): Uint8Array {
  const n = txids.length;
  const width = (h: number) => (n + (1 << h) - 1) >> h;
  const hashAt = (h: number, pos: number): Uint8Array => {
    if (h === 0) return txids[pos]!;
    const left = hashAt(h - 1, pos * 2);
    const right = pos * 2 + 1 < width(h - 1) ? hashAt(h - 1, pos * 2 + 1) : left;
    return sha256d(left, right);
  };
  const bits: boolean[] = [];
  const hashes: Uint8Array[] = [];
  const build = (h: number, pos: number): void => {
    let parentOfMatch = false;
    for (let p = pos << h; p < (pos + 1) << h && p < n; p++) parentOfMatch ||= match[p]!;
    bits.push(parentOfMatch);
    if (h === 0 || !parentOfMatch) {
      hashes.push(hashAt(h, pos));
      return;
    }
    build(h - 1, pos * 2);
    if (pos * 2 + 1 < width(h - 1)) build(h - 1, pos * 2 + 1);
  };
  let height = 0;
  while (width(height) > 1) height++;
  build(height, 0);
  const flagBytes = new Uint8Array((bits.length + 7) >> 3);
  bits.forEach((b, p) => {
    if (b) flagBytes[p >> 3]! |= 1 << (p & 7);
  });
  const count = new Uint8Array(4);
  new DataView(count.buffer).setUint32(0, n, true);
  return concatBytes(
    header,
    count,
    compactSize(hashes.length),
    ...hashes,
    compactSize(flagBytes.length),
    flagBytes,
  );
}
