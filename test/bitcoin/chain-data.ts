// Shared loaders for the chain data under data/chain (not a test file itself).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readBlockRecords } from "../../src/bitcoin/block-records.ts";
import { fromHex } from "../../src/bitcoin/hex.ts";

export const ROOT = join(import.meta.dirname, "..", "..");
export const BLOCKS_DIR = join(ROOT, "data", "chain", "blocks");
export const TXS_DIR = join(ROOT, "data", "chain", "txs");
export const ORACLE_DIR = join(ROOT, "test", "fixtures", "oracle");
export const VECTORS_DIR = join(ROOT, "test", "fixtures", "vectors");

export function readBytes(path: string): Uint8Array {
  const b = readFileSync(path);
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

export interface IndexedBlock {
  height: number;
  hash: string;
  previousblockhash: string;
  merkleroot: string;
  version: number;
  time: number;
  bits: string;
  nonce: number;
  nTx: number;
  size: number;
  strippedsize: number;
  weight: number;
  segwit_tx_count: number;
  tx: string[];
}

/** INDEX.json's blocks keyed by hash (its file keys name the shared/ originals, not our copies). */
export function loadIndex(): Map<string, IndexedBlock> {
  const raw = JSON.parse(readFileSync(join(BLOCKS_DIR, "INDEX.json"), "utf8")) as Record<
    string,
    { blocks: IndexedBlock[] }
  >;
  const byHash = new Map<string, IndexedBlock>();
  for (const file of Object.values(raw)) for (const b of file.blocks) byHash.set(b.hash, b);
  return byHash;
}

/** Every raw block held in data/chain/blocks, with the file it came from. */
export function loadAllRawBlocks(): { file: string; bytes: Uint8Array }[] {
  const out: { file: string; bytes: Uint8Array }[] = [];
  const raw = (f: string) => out.push({ file: f, bytes: readBytes(join(BLOCKS_DIR, f)) });
  raw("genesis.raw");
  for (const f of ["blocks1-255.dat", "277647.dat"]) {
    let i = 0;
    for (const b of readBlockRecords(readBytes(join(BLOCKS_DIR, f)))) {
      out.push({ file: `${f}#${i++}`, bytes: b });
    }
  }
  raw("block-0000000000000000001602407ac49862a7bca9d00f7f402db20b7be2f5de59d2.blk");
  raw("block-00000000000000000021868c2cefc52a480d173c849412fe81c4e5ab806f94ab.blk");
  raw("block413567.raw");
  raw("mainnet_block_000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae.raw");
  raw("000000000000000002d249a3d89f63ef3fee203adcca7c24008c13fd854513f2.raw");
  raw("00000000000000001203c1ea455e38612bdf36e9967fdead11935c8e22283ecc.raw");
  const j = JSON.parse(readFileSync(join(BLOCKS_DIR, "bitcoin_mainnet_951658.json"), "utf8")) as {
    block: string;
  };
  out.push({ file: "bitcoin_mainnet_951658.json", bytes: fromHex(j.block) });
  return out;
}
