// The pools' answer checks (src/upstreams/answer-check.ts, bitcoin-core/answer-check.ts) on real
// mainnet data: what was asked passes, and one changed byte anywhere in a transaction, a header, a
// block or a merkle proof fails, saying why.
import { describe, expect, it } from "vitest";
import { toHex } from "../../src/bitcoin/hex.ts";
import { merkleBlockBytes } from "../../src/bitcoin/merkle-block.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import {
  blockMismatch,
  headerMismatch,
  proofMismatch,
  txBytesMismatch,
} from "../../src/upstreams/answer-check.ts";
import { coreAnswersCheck } from "../../src/upstreams/bitcoin-core/answer-check.ts";

const block = loadDevnetChain().byHeight.get(277647)!.block;
const tx = block.transactions[7]!;

/** The hex with the byte at `at` (from the end when negative) changed. */
function changed(hex: string, at: number): string {
  const i = (at < 0 ? hex.length / 2 + at : at) * 2;
  const byte = (Number.parseInt(hex.slice(i, i + 2), 16) ^ 1).toString(16).padStart(2, "0");
  return hex.slice(0, i) + byte + hex.slice(i + 2);
}

describe("answer checks", () => {
  it("a transaction's bytes: its txid, nothing else", () => {
    expect(txBytesMismatch(tx.txid, tx.hex)).toBeNull();
    expect(txBytesMismatch(tx.txid.toUpperCase(), tx.hex)).toBeNull();
    expect(txBytesMismatch(tx.txid, changed(tx.hex, -1))).toMatch(/hash to [0-9a-f]{64}/);
    expect(txBytesMismatch(tx.txid, "zz")).toMatch(/no hex/);
    // A digit that is not one midway, an odd length, nothing: not hex, whatever decodes before.
    expect(txBytesMismatch(tx.txid, `${tx.hex.slice(0, 20)}g${tx.hex.slice(21)}`)).toMatch(
      /no hex/,
    );
    expect(txBytesMismatch(tx.txid, tx.hex.slice(0, -1))).toMatch(/no hex/);
    expect(txBytesMismatch(tx.txid, "")).toMatch(/no hex/);
    expect(txBytesMismatch(tx.txid, "00")).toMatch(/do not decode/);
  });

  it("a header and a block: their hash, and the block's transactions its merkle root", () => {
    const header = toHex(block.headerBytes);
    const raw = toHex(block.bytes);
    expect(headerMismatch(block.hash, header)).toBeNull();
    expect(headerMismatch(block.hash, changed(header, 79))).toMatch(/hashes to/);
    expect(blockMismatch(block.hash, raw)).toBeNull();
    // A transaction changed inside the block: the header still hashes right, the root does not.
    expect(blockMismatch(block.hash, changed(raw, -1))).toMatch(/header commits to/);
  });

  it("a merkle proof: for the txids and block asked", () => {
    const txids = block.transactions.map((t) => t.txidBytes);
    const proof = toHex(
      merkleBlockBytes(
        block.headerBytes,
        txids,
        txids.map((_, i) => i === 7),
      ),
    );
    expect(proofMismatch([tx.txid], block.hash, proof)).toBeNull();
    expect(proofMismatch([block.transactions[8]!.txid], block.hash, proof)).toMatch(
      /does not match/,
    );
    expect(proofMismatch([tx.txid], "00".repeat(32), proof)).toMatch(/a merkle proof of block/);
    expect(proofMismatch([tx.txid], block.hash, changed(proof, 90))).toMatch(/does not hold/);
  });

  it("a Core batch: each call's answer against what it asked, errors claiming nothing", () => {
    const calls = [
      { method: "getrawtransaction", params: [tx.txid, 0] },
      { method: "getblockcount", params: [] },
      { method: "getrawtransaction", params: [block.transactions[0]!.txid, 0] },
    ];
    const check = coreAnswersCheck(calls)!;
    const error = { error: { code: -5, message: "No such mempool or blockchain transaction" } };
    expect(check({ answers: [{ result: tx.hex }, { result: 1 }, error] })).toBeNull();
    expect(check({ answers: [{ result: changed(tx.hex, -2) }, { result: 1 }, error] })).toMatch(
      tx.txid,
    );
    expect(coreAnswersCheck([{ method: "getblockcount", params: [] }])).toBeUndefined();
  });
});

describe("what Core takes in either case", () => {
  it("a txid or block hash asked in capitals is checked as the lower-case one Core names", () => {
    const verbose = { txid: tx.txid, hex: tx.hex };
    const check = coreAnswersCheck([
      { method: "getrawtransaction", params: [tx.txid.toUpperCase(), 1] },
      { method: "getblockheader", params: [block.hash.toUpperCase(), true] },
    ])!;
    const header = {
      hash: block.hash,
      version: block.version,
      merkleroot: block.merkleroot,
      time: block.time,
      nonce: block.nonce,
      bits: block.bits,
      previousblockhash: block.previousblockhash,
    };
    expect(check({ answers: [{ result: verbose }, { result: header }] })).toBeNull();
    expect(
      check({ answers: [{ result: verbose }, { result: { ...header, nonce: block.nonce + 1 } }] }),
    ).toMatch(/header fields hash to/);
  });
});
