import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseBlock } from "../../src/bitcoin/block.ts";
import { readBlockRecords } from "../../src/bitcoin/block-records.ts";
import { DecodeError } from "../../src/bitcoin/errors.ts";
import { fromHex, toHex } from "../../src/bitcoin/hex.ts";
import { serializeTransaction } from "../../src/bitcoin/serialize.ts";
import { parseTransaction } from "../../src/bitcoin/transaction.ts";
import { BLOCKS_DIR, readBytes, TXS_DIR } from "./chain-data.ts";

describe("data/chain/txs", () => {
  const kernel = JSON.parse(
    readFileSync(join(TXS_DIR, "test_kernel_mainnet_txs.json"), "utf8"),
  ) as {
    txs: {
      txid: string;
      wtxid: string;
      size: number;
      weight: number;
      vsize: number;
      hex: string;
    }[];
  };
  for (const t of kernel.txs) {
    it(`kernel tx ${t.txid.slice(0, 8)}`, () => {
      const tx = parseTransaction(fromHex(t.hex));
      expect([tx.txid, tx.wtxid, tx.size, tx.weight, tx.vsize, tx.hex]).toEqual([
        t.txid,
        t.wtxid,
        t.size,
        t.weight,
        t.vsize,
        t.hex,
      ]);
    });
  }

  it("huge_witness.hex: 500,003 witness items", () => {
    const hex = readFileSync(join(TXS_DIR, "huge_witness.hex"), "utf8").trim();
    const tx = parseTransaction(fromHex(hex));
    expect(tx.txid).toBe("73be398c4bdc43709db7398106609eea2a7841aaf3a4fa2000dc18184faa2a7e");
    expect(tx.wtxid.startsWith("48b0f5ea")).toBe(true);
    expect(tx.wtxid.endsWith("cc67")).toBe(true);
    expect([tx.size, tx.weight, tx.inputs.length, tx.inputs[0]!.witness.length]).toEqual([
      500_142, 500_436, 1, 500_003,
    ]);
    expect(toHex(serializeTransaction(tx))).toBe(hex);
    // Its items are made on first use, but a stack that runs past the end is refused at once.
    const cut = fromHex(hex).subarray(0, 300_000);
    expect(() => parseTransaction(cut)).toThrow(/TX decode failed/);
  });

  it("megatx.bin: 5,569 inputs", () => {
    const bytes = readBytes(join(TXS_DIR, "megatx.bin"));
    const tx = parseTransaction(bytes);
    expect(tx.txid).toBe("bb41a757f405890fb0f5856228e23b715702d714d59bf2b1feb70d8b2b4e3e08");
    expect([tx.size, tx.inputs.length, tx.outputs.length]).toEqual([999_657, 5_569, 1]);
    expect(Buffer.from(serializeTransaction(tx)).equals(bytes)).toBe(true);
  });

  it("first P2P transaction (block 170, index 1)", () => {
    const records = [...readBlockRecords(readBytes(join(BLOCKS_DIR, "blocks1-255.dat")))];
    const tx = parseBlock(records[169]!).transactions[1]!;
    expect(tx.txid).toBe("f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16");
    expect(tx.outputs.map((o) => o.value)).toEqual([1_000_000_000n, 4_000_000_000n]);
    expect(parseTransaction(tx.bytes).txid).toBe(tx.txid);
  });
});

describe("DecodeTx ambiguity", () => {
  it("txcreate2: zero inputs with a 00 01 prefix reads as legacy", () => {
    const tx = parseTransaction(fromHex("02000000000100000000000000000000000000"));
    expect([tx.hasWitness, tx.inputs.length, tx.outputs.length, tx.outputs[0]!.value]).toEqual([
      false,
      0,
      1,
      0n,
    ]);
  });

  it("zero inputs, zero outputs round-trips", () => {
    const hex = "01000000000000000000";
    expect(parseTransaction(fromHex(hex)).hex).toBe(hex);
  });
});

describe("bad input gives DecodeError quickly", () => {
  const good = readFileSync(join(TXS_DIR, "test_kernel_mainnet_txs.json"), "utf8");
  const hex = (JSON.parse(good) as { txs: { hex: string }[] }).txs[1]!.hex;
  const bytes = fromHex(hex);

  it("every truncation of a segwit tx", () => {
    const accepted: number[] = [];
    for (let n = 0; n < bytes.length; n++) {
      try {
        parseTransaction(bytes.subarray(0, n));
        accepted.push(n);
      } catch (e) {
        expect(e).toBeInstanceOf(DecodeError);
      }
    }
    // Core's DecodeTx would accept this one prefix too: read as legacy, "00 01" is zero inputs and
    // one output, and the next 230 bytes happen to close that output and a locktime exactly.
    expect(accepted).toEqual([238]);
  });

  it("trailing garbage", () => {
    const longer = new Uint8Array(bytes.length + 1);
    longer.set(bytes);
    expect(() => parseTransaction(longer)).toThrow(DecodeError);
  });

  it("absurd counts are refused before any allocation", () => {
    const cases = [
      "01000000fe00000002", // 2^25 inputs: over MAX_SIZE
      "01000000fdff00", // 255 inputs in 0 bytes
      "01000000feffffff01", // 33 million inputs, non-fitting
      "01000000ffffffffffffffffff", // u64 count
      "01000000fd0100", // non-canonical compact size
      `0100000001${"00".repeat(36)}fe00000100`, // scriptSig length beyond the data
    ];
    const t0 = performance.now();
    for (const c of cases) expect(() => parseTransaction(fromHex(c))).toThrow(DecodeError);
    expect(() => parseBlock(fromHex(`${"00".repeat(80)}fe00000001`))).toThrow(DecodeError);
    expect(performance.now() - t0).toBeLessThan(100);
  });

  it("unknown flags and superfluous witness", () => {
    // marker 00, flag 02
    expect(() => parseTransaction(fromHex(`01000000000201${"00".repeat(41)}0000000000`))).toThrow(
      DecodeError,
    );
    expect(() => parseTransaction(fromHex("zz"))).toThrow(DecodeError);
  });

  it("bad record magic / truncated record", () => {
    expect(() => [...readBlockRecords(fromHex("0b110907" + "00000000"))]).toThrow(DecodeError);
    expect(() => [...readBlockRecords(fromHex("f9beb4d9" + "ff000000" + "00"))]).toThrow(
      DecodeError,
    );
  });
});
