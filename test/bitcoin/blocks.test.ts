import { readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { checkMerkleRoot, parseBlock } from "../../src/bitcoin/block.ts";
import { readBlockRecords } from "../../src/bitcoin/block-records.ts";
import { sha256d } from "../../src/bitcoin/hash.ts";
import { toHex } from "../../src/bitcoin/hex.ts";
import { computeMerkleRoot } from "../../src/bitcoin/merkle.ts";
import { serializeTransaction } from "../../src/bitcoin/serialize.ts";
import type { Transaction } from "../../src/bitcoin/transaction.ts";
import { txToUniv } from "../../src/bitcoin/tx-json.ts";
import { BLOCKS_DIR, loadAllRawBlocks, loadIndex, readBytes } from "./chain-data.ts";

const index = loadIndex();
const blocks = loadAllRawBlocks();

/**
 * BIP141 commitment check: the coinbase's last `6a24aa21a9ed` output must equal
 * sha256d(witness merkle root ‖ witness reserved value). It vouches for every wtxid in the block.
 */
function witnessCommitmentMatches(txs: Transaction[]): boolean | null {
  const coinbase = txs[0]!;
  let commitment: Uint8Array | null = null;
  for (const o of coinbase.outputs) {
    const s = o.scriptPubKey;
    if (s.length >= 38 && toHex(s.subarray(0, 6)) === "6a24aa21a9ed")
      commitment = s.subarray(6, 38);
  }
  if (commitment === null || coinbase.inputs[0]!.witness.length !== 1) return null;
  const wtxids = txs.map((tx, i) => (i === 0 ? new Uint8Array(32) : tx.wtxidBytes));
  const expected = sha256d(computeMerkleRoot(wtxids), coinbase.inputs[0]!.witness[0]!);
  return toHex(expected) === toHex(commitment);
}

describe("blocks in data/chain/blocks", () => {
  it("holds all 263 blocks", () => {
    expect(blocks.length).toBe(1 + 255 + 1 + 7);
  });

  for (const { file, bytes } of blocks) {
    it(`${file}: header, txids, sizes, merkle root, witness commitment, re-serialization`, () => {
      const block = parseBlock(bytes);
      const want = index.get(block.hash);
      expect(want, `block ${block.hash} is in INDEX.json`).toBeDefined();
      if (want === undefined) return;
      expect({
        hash: block.hash,
        previousblockhash: block.previousblockhash,
        merkleroot: block.merkleroot,
        version: block.version,
        time: block.time,
        bits: block.bits,
        nonce: block.nonce,
        nTx: block.transactions.length,
        size: block.size,
        strippedsize: block.strippedsize,
        weight: block.weight,
        segwit_tx_count: block.transactions.filter((t) => t.hasWitness).length,
      }).toEqual({
        hash: want.hash,
        previousblockhash: want.previousblockhash,
        merkleroot: want.merkleroot,
        version: want.version,
        time: want.time,
        bits: want.bits,
        nonce: want.nonce,
        nTx: want.nTx,
        size: want.size,
        strippedsize: want.strippedsize,
        weight: want.weight,
        segwit_tx_count: want.segwit_tx_count,
      });
      expect(block.transactions.map((t) => t.txid)).toEqual(want.tx);
      expect(checkMerkleRoot(block)).toBe(true);
      if (want.segwit_tx_count > 0) expect(witnessCommitmentMatches(block.transactions)).toBe(true);

      // Each transaction's figures against its own serializations; one assertion for the block
      // (thousands of transactions), naming any that differs.
      const differing = block.transactions.flatMap((tx) => {
        const full = serializeTransaction(tx);
        const stripped = serializeTransaction(tx, { witness: false });
        const found = [tx.bytes, tx.size, tx.strippedSize, tx.weight, tx.vsize, tx.txid, tx.wtxid];
        const want = [
          full,
          full.length,
          stripped.length,
          stripped.length * 3 + full.length,
          Math.ceil((stripped.length * 3 + full.length) / 4),
          toHex(sha256d(stripped).reverse()),
          toHex(sha256d(full).reverse()),
        ];
        return isDeepStrictEqual(found, want) ? [] : [{ txid: tx.txid, found, want }];
      });
      expect(differing).toEqual([]);
    });
  }

  it("951658: matches Core's own getblock figures", () => {
    const j = JSON.parse(readFileSync(join(BLOCKS_DIR, "bitcoin_mainnet_951658.json"), "utf8")) as {
      hash: string;
      size: number;
      strippedsize: number;
      weight: number;
      tx: string[];
      bits: string;
      version: number;
    };
    const block = parseBlock(blocks.at(-1)!.bytes);
    expect([
      block.hash,
      block.size,
      block.strippedsize,
      block.weight,
      block.bits,
      block.version,
    ]).toEqual([j.hash, j.size, j.strippedsize, j.weight, j.bits, j.version]);
    expect(block.transactions.map((t) => t.txid)).toEqual(j.tx);
  });

  it("block records chain from genesis through 255", () => {
    const records = [...readBlockRecords(readBytes(join(BLOCKS_DIR, "blocks1-255.dat")))];
    expect(records).toHaveLength(255);
    let prev = parseBlock(readBytes(join(BLOCKS_DIR, "genesis.raw"))).hash;
    expect(prev).toBe("000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f");
    for (const r of records) {
      const b = parseBlock(r);
      expect(b.previousblockhash).toBe(prev);
      prev = b.hash;
    }
    expect(prev).toBe("00000000d0a75c861fabf9ff7b92022f60e4afeed9331fe5aa073d8e4706fe3c");
  });
});

describe("every block transaction renders as TxToUniv JSON", () => {
  it("all 263 blocks, with the coinbase shape on index 0 only", () => {
    let count = 0;
    let held = 0;
    const differing: { txid: string; coinbase: boolean; hex: boolean; descs: string[] }[] = [];
    for (const { bytes } of blocks) {
      const block = parseBlock(bytes);
      held += index.get(block.hash)!.nTx;
      for (const [i, tx] of block.transactions.entries()) {
        const j = txToUniv(tx, { network: "mainnet" });
        // One assertion for all of them (some ten thousand), naming any that differs.
        const coinbase = "coinbase" in j.vin[0]!;
        const descs = j.vout
          .map((o) => o.scriptPubKey.desc)
          .filter((d) => !/#[02-9ac-hj-np-z]{8}$/.test(d));
        if (coinbase !== (i === 0) || j.hex !== tx.hex || descs.length > 0) {
          differing.push({ txid: tx.txid, coinbase, hex: j.hex === tx.hex, descs });
        }
        count++;
      }
    }
    expect(differing).toEqual([]);
    // Every transaction of every block, as INDEX.json counts them.
    expect(count).toBe(held);
  });

  it("951658 coinbase matches Core's coinbase_tx summary", () => {
    const j = JSON.parse(readFileSync(join(BLOCKS_DIR, "bitcoin_mainnet_951658.json"), "utf8")) as {
      coinbase_tx: {
        version: number;
        locktime: number;
        sequence: number;
        coinbase: string;
        witness: string;
      };
    };
    const cb = txToUniv(parseBlock(blocks.at(-1)!.bytes).transactions[0]!, { network: "mainnet" });
    const vin = cb.vin[0] as { coinbase: string; txinwitness?: string[]; sequence: number };
    expect([cb.version, cb.locktime, vin.sequence, vin.coinbase, vin.txinwitness]).toEqual([
      j.coinbase_tx.version,
      j.coinbase_tx.locktime,
      j.coinbase_tx.sequence,
      j.coinbase_tx.coinbase,
      [j.coinbase_tx.witness],
    ]);
  });
});
