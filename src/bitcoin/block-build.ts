import { type Block, parseBlock } from "./block.ts";
import { sha256d } from "./hash.ts";
import { type HeaderFields, serializeHeader } from "./header-bytes.ts";
import { toHexReversed } from "./hex.ts";
import { computeMerkleRoot } from "./merkle.ts";
import { compactSizeBytes, concatBytes } from "./script-build.ts";
import type { Transaction } from "./transaction.ts";

/** The header fields a block builder chooses; the merkle root comes from the transactions. */
export type BlockTemplate = Omit<HeaderFields, "merkleroot">;

/**
 * A block's bytes from its header fields and transactions (each in its own serialization, BIP144
 * when it has a witness), parsed back so the result is the codec's Block like any block read from
 * disk. `grind` is asked for the nonce after the header is known (proof of work, when reachable).
 */
export function assembleBlock(
  template: BlockTemplate,
  txs: readonly Transaction[],
  grind?: (header: HeaderFields) => number,
): Block {
  const merkleroot = toHexReversed(computeMerkleRoot(txs.map((t) => t.txidBytes)));
  const fields: HeaderFields = { ...template, merkleroot };
  if (grind) fields.nonce = grind(fields);
  return parseBlock(
    concatBytes(serializeHeader(fields), compactSizeBytes(txs.length), ...txs.map((t) => t.bytes)),
  );
}

/**
 * The first nonce from `start` whose header hash, read as a little-endian 256-bit number, is at
 * most `target` (Core's CheckProofOfWork), or undefined after `tries` attempts.
 */
export function grindNonce(
  fields: HeaderFields,
  target: bigint,
  tries: number,
  start = 0,
): number | undefined {
  const header = serializeHeader(fields);
  const dv = new DataView(header.buffer);
  for (let i = 0; i < tries; i++) {
    const nonce = (start + i) >>> 0;
    dv.setUint32(76, nonce, true);
    if (BigInt(`0x${toHexReversed(sha256d(header))}`) <= target) return nonce;
  }
  return undefined;
}
