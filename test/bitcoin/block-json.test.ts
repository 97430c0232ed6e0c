import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseBlock } from "../../src/bitcoin/block.ts";
import { blockToUniv } from "../../src/bitcoin/block-json.ts";
import { DecodeError } from "../../src/bitcoin/errors.ts";
import { fromHex } from "../../src/bitcoin/hex.ts";
import { deriveTarget, getDifficulty, uint256Hex } from "../../src/bitcoin/pow.ts";
import { txToUniv } from "../../src/bitcoin/tx-json.ts";
import { univalueDouble } from "../../src/bitcoin/univalue-double.ts";
import { TX_KEYS } from "../support/core-keys.ts";
import { BLOCKS_DIR, readBytes } from "./chain-data.ts";
import { canon, parseLossless } from "./lossless.ts";

// Core's `getblock <hash> 1` for mainnet 951658, plus the raw block under `block` (ElectrumX's test
// data; see data/chain/README.md).
const oracle = parseLossless(
  readFileSync(join(BLOCKS_DIR, "bitcoin_mainnet_951658.json"), "utf8"),
) as Record<string, unknown> & { block: string; tx: string[] };
const block = parseBlock(fromHex(oracle.block));

/** The oracle without the raw block and without the fields named. */
function oracleWithout(...keys: string[]): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(oracle).filter(([k]) => k !== "block" && !keys.includes(k)),
  );
}

const CONTEXT_KEYS = ["confirmations", "height", "mediantime", "chainwork", "nextblockhash"];

describe("blockToUniv against Core's getblock (mainnet 951658)", () => {
  it("with the chain context Core had, equals its answer key for key, literals and order kept", () => {
    const got = blockToUniv(block, {
      network: "mainnet",
      verbosity: 1,
      context: {
        confirmations: Number(String(oracle.confirmations)),
        height: Number(String(oracle.height)),
        mediantime: Number(String(oracle.mediantime)),
        chainwork: String(oracle.chainwork),
        nextblockhash: String(oracle.nextblockhash),
      },
    });
    expect(canon(got)).toBe(canon(oracleWithout()));
  });

  it("from the bytes alone: every field they determine, none they do not", () => {
    const got = blockToUniv(block, { network: "mainnet", verbosity: 1 });
    expect(canon(got)).toBe(canon(oracleWithout(...CONTEXT_KEYS)));
    // Spelled out, so a regression names the field: Core prints difficulty as %.16g.
    expect(canon(got.difficulty)).toBe("138955357012247.3");
    expect(got.target).toBe("00000000000000000002068f0000000000000000000000000000000000000000");
    expect(got.versionHex).toBe("253ac004");
  });

  it("verbosity 2: each transaction as TxToUniv with hex and no blockhash, as getblock prints it", () => {
    const got = blockToUniv(block, { network: "mainnet", verbosity: 2 });
    const { tx, ...header } = got;
    const { tx: _ids, ...oracleHeader } = oracleWithout(...CONTEXT_KEYS);
    expect(canon(header)).toBe(canon(oracleHeader));
    const txs = tx as ReturnType<typeof txToUniv>[];
    expect(txs.map((t) => t.txid)).toEqual(oracle.tx);
    expect(Object.keys(txs[1]!)).toEqual(TX_KEYS);
    // The block's bytes are header ‖ count ‖ each transaction's hex, so the hex fields rebuild it.
    expect(oracle.block.slice(160, 166)).toBe("fd7601"); // 374 transactions
    expect(oracle.block.slice(166)).toBe(txs.map((t) => t.hex).join(""));
    expect(canon(txs[5])).toBe(canon(txToUniv(block.transactions[5]!, { network: "mainnet" })));
  });
});

describe("blockToUniv on the genesis block", () => {
  const genesis = parseBlock(readBytes(join(BLOCKS_DIR, "genesis.raw")));

  it("has no previousblockhash (no parent in Core's index), difficulty 1, the mainnet limit as target", () => {
    const got = blockToUniv(genesis, { network: "mainnet", verbosity: 1 });
    expect(got.hash).toBe("000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f");
    expect("previousblockhash" in got).toBe(false);
    expect(canon(got.difficulty)).toBe("1");
    expect(got.bits).toBe("1d00ffff");
    expect(got.target).toBe("00000000ffff0000000000000000000000000000000000000000000000000000");
    expect(got.coinbase_tx).toEqual({
      version: 1,
      locktime: 0,
      sequence: 4294967295,
      coinbase:
        "04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73",
    });
    const withHeight = blockToUniv(genesis, {
      network: "mainnet",
      verbosity: 1,
      context: { height: 0, confirmations: 1 },
    });
    expect(Object.keys(withHeight).slice(0, 4)).toEqual([
      "hash",
      "confirmations",
      "height",
      "version",
    ]);
    expect("previousblockhash" in withHeight).toBe(false);
  });

  it("refuses nBits that give no target Core could hold, naming the network", () => {
    const bytes = Uint8Array.from(genesis.bytes);
    // nBits sits at header bytes 72..75, little-endian: 0x207fffff is regtest's, above mainnet's limit.
    bytes.set([0xff, 0xff, 0x7f, 0x20], 72);
    const regtestBits = parseBlock(bytes);
    expect(() => blockToUniv(regtestBits, { network: "mainnet", verbosity: 1 })).toThrow(
      DecodeError,
    );
    expect(() => blockToUniv(regtestBits, { network: "mainnet", verbosity: 1 })).toThrow(
      /nBits 207fffff encode no valid mainnet target/,
    );
    const onRegtest = blockToUniv(regtestBits, { network: "regtest", verbosity: 1 });
    expect(onRegtest.target).toBe(
      "7fffff0000000000000000000000000000000000000000000000000000000000",
    );
    expect(canon(onRegtest.difficulty)).toBe("4.656542373906925e-10");
  });
});

describe("deriveTarget: arith_uint256::SetCompact and Core's range check", () => {
  // Vectors from Core's src/test/arith_uint256_tests.cpp (bignum_SetCompact), checked against
  // regtest's limit (7fff…), which all the valid ones are below.
  it.each([
    [0x00000000, undefined],
    [0x01003456, undefined], // zero
    [0x02123456, 0x1234n],
    [0x03123456, 0x123456n],
    [0x04123456, 0x12345600n],
    [0x04923456, undefined], // negative
    [0x05009234, 0x92340000n],
    [0x20123456, 0x1234560000000000000000000000000000000000000000000000000000000000n],
    [0xff123456, undefined], // overflow
  ])("%s", (bits, want) => {
    expect(deriveTarget(bits, "regtest")).toBe(want);
  });

  it("holds each chain to its own powLimit", () => {
    expect(uint256Hex(deriveTarget(0x1d00ffff, "mainnet")!)).toBe(
      "00000000ffff0000000000000000000000000000000000000000000000000000",
    );
    expect(deriveTarget(0x1d010000, "mainnet")).toBeUndefined(); // 2^224, one past the limit
    expect(deriveTarget(0x1e0377ae, "signet")).toBe(0x377aen << 216n);
    expect(deriveTarget(0x1e0377af, "signet")).toBeUndefined();
  });
});

describe("difficulty as UniValue prints a double (%.16g)", () => {
  it("matches Core's getblock where we have its answer", () => {
    expect(univalueDouble(getDifficulty(0x1702068f))).toBe("138955357012247.3"); // 951658 above
    // testnet3 height 2441511, from a getblock answer quoted in 1F47E/go-feesh
    // (pkg/entity/btc/block/block.go): "bits": "192495f8", "difficulty": 117392538.8721802.
    expect(univalueDouble(getDifficulty(0x192495f8))).toBe("117392538.8721802");
  });

  it("is C's %.16g, not JavaScript's shortest round trip", () => {
    const cases: [number, string][] = [
      [0.1 + 0.2, "0.3"], // JS: 0.30000000000000004
      [2 ** 60, "1.152921504606847e+18"], // JS: 1152921504606847000
      [1e16, "1e+16"], // exponent form from 10^precision up
      [1e15, "1000000000000000"],
      [0.0001, "0.0001"],
      [0.00001, "1e-05"], // two exponent digits at least
      [1 / 3, "0.3333333333333333"],
      [2251799813685248.5, "2251799813685248"], // exact tie: to even
      [2251799813685249.5, "2251799813685250"],
      [5e-324, "4.940656458412465e-324"],
      [-1.5, "-1.5"],
    ];
    for (const [value, want] of cases) expect(univalueDouble(value), String(value)).toBe(want);
    expect(univalueDouble(0.125, 2)).toBe("0.12");
    expect(() => univalueDouble(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
