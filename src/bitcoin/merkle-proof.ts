import { BLOCK_HEADER_SIZE, type BlockHeader, parseBlockHeader } from "./block.ts";
import { DecodeError } from "./errors.ts";
import { sha256d } from "./hash.ts";
import { fromHexReversed, toHexReversed } from "./hex.ts";
import { ByteReader } from "./reader.ts";

/** A transaction a proof puts in its block: txid, position and merkle branch (leaf up, display hex). */
export interface ProvenTx {
  txid: string;
  pos: number;
  branch: string[];
}

/** What a CMerkleBlock (Core's gettxoutproof) proves: the header, and the transactions it matches. */
export interface MerkleProof {
  header: BlockHeader;
  matched: ProvenTx[];
}

/** Core's MAX_BLOCK_WEIGHT / MIN_TRANSACTION_WEIGHT: more transactions than a block can hold. */
const TX_COUNT_MAX = 4_000_000 / 240;

interface Walk {
  hashes: Uint8Array[];
  bits: boolean[];
  hashAt: number;
  bitAt: number;
  count: number;
  matched: { txid: Uint8Array; pos: number; branch: Uint8Array[] }[];
}

const width = (count: number, h: number) => (count + (1 << h) - 1) >> h;

/**
 * Reads Core's CMerkleBlock and walks its partial merkle tree as CPartialMerkleTree's
 * ExtractMatches does: the root it computes must be the header's merkle root, every hash and flag
 * bit used, and no node's two children the same (the CVE-2012-2459 mutation). Throws a
 * DecodeError when the proof is malformed or does not commit to its header.
 */
export function readMerkleProof(bytes: Uint8Array): MerkleProof {
  const r = new ByteReader(bytes);
  const header = parseBlockHeader(r.bytesView(BLOCK_HEADER_SIZE, "block header"));
  const count = r.u32();
  if (count === 0 || count > TX_COUNT_MAX) throw new DecodeError("bad transaction count");
  const hashes = Array.from({ length: r.count(32, "hash") }, () => r.bytesView(32, "hash"));
  const flags = r.varBytes("flag bits");
  if (r.remaining !== 0) throw new DecodeError("trailing bytes after the proof");
  if (hashes.length > count) throw new DecodeError("more hashes than transactions");
  const bits = Array.from(
    { length: flags.length * 8 },
    (_, i) => ((flags[i >> 3]! >> (i & 7)) & 1) === 1,
  );
  const walk: Walk = { hashes, bits, hashAt: 0, bitAt: 0, count, matched: [] };
  let height = 0;
  while (width(count, height) > 1) height++;
  const root = traverse(walk, height, 0);
  if (walk.hashAt !== hashes.length) throw new DecodeError("hashes left unused");
  if ((walk.bitAt + 7) >> 3 !== flags.length) throw new DecodeError("flag bits left unused");
  if (toHexReversed(root) !== header.merkleroot) {
    throw new DecodeError("the proof's root is not its header's merkle root");
  }
  const matched = walk.matched.map((m) => ({
    txid: toHexReversed(m.txid),
    pos: m.pos,
    branch: m.branch.map(toHexReversed),
  }));
  return { header, matched };
}

/** The hash of the subtree at (height, pos); each matched leaf below gathers its siblings. */
function traverse(w: Walk, height: number, pos: number): Uint8Array {
  if (w.bitAt >= w.bits.length) throw new DecodeError("too few flag bits");
  const parentOfMatch = w.bits[w.bitAt++]!;
  if (height === 0 || !parentOfMatch) {
    if (w.hashAt >= w.hashes.length) throw new DecodeError("too few hashes");
    const hash = w.hashes[w.hashAt++]!;
    if (height === 0 && parentOfMatch) w.matched.push({ txid: hash, pos, branch: [] });
    return hash;
  }
  const first = w.matched.length;
  const left = traverse(w, height - 1, pos * 2);
  const leftMatched = w.matched.length;
  let right = left;
  if (pos * 2 + 1 < width(w.count, height - 1)) {
    right = traverse(w, height - 1, pos * 2 + 1);
    if (Buffer.compare(right, left) === 0) throw new DecodeError("identical children");
  }
  for (let i = first; i < w.matched.length; i++) {
    w.matched[i]!.branch.push(i < leftMatched ? right : left);
  }
  return sha256d(left, right);
}

/**
 * The merkle root (display hex) a transaction's branch leads to from position `pos`, as Electrum
 * clients check blockchain.transaction.get_merkle: each level hashes the node with its sibling,
 * left or right by the position's bit at that level.
 */
export function rootOfBranch(txid: string, pos: number, branch: readonly string[]): string {
  let hash = fromHexReversed(txid);
  let at = pos;
  for (const sibling of branch) {
    const other = fromHexReversed(sibling);
    hash = (at & 1) === 1 ? sha256d(other, hash) : sha256d(hash, other);
    at >>>= 1;
  }
  return toHexReversed(hash);
}
