import { readFileSync } from "node:fs";
import { join } from "node:path";
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

      for (const tx of block.transactions) {
        const full = serializeTransaction(tx);
        const stripped = serializeTransaction(tx, { witness: false });
        expect(Buffer.from(full).equals(tx.bytes)).toBe(true);
        expect(tx.size).toBe(full.length);
        expect(tx.strippedSize).toBe(stripped.length);
        expect(tx.weight).toBe(stripped.length * 3 + full.length);
        expect(tx.vsize).toBe(Math.ceil(tx.weight / 4));
        expect(tx.txid).toBe(toHex(sha256d(stripped).reverse()));
        expect(tx.wtxid).toBe(toHex(sha256d(full).reverse()));
      }
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
    for (const { bytes } of blocks) {
      const block = parseBlock(bytes);
      for (const [i, tx] of block.transactions.entries()) {
        const j = txToUniv(tx, { network: "mainnet" });
        expect("coinbase" in j.vin[0]!).toBe(i === 0);
        expect(j.hex).toBe(tx.hex);
        for (const o of j.vout) expect(o.scriptPubKey.desc).toMatch(/#[02-9ac-hj-np-z]{8}$/);
        count++;
      }
    }
    expect(count).toBe(blocks.reduce((n, b) => n + parseBlock(b.bytes).transactions.length, 0));
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
