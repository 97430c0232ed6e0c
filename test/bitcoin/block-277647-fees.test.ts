import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseBlock } from "../../src/bitcoin/block.ts";
import { readBlockRecords } from "../../src/bitcoin/block-records.ts";
import { loadPrevoutsFile } from "../../src/bitcoin/prevouts.ts";
import { txFee, txToUniv } from "../../src/bitcoin/tx-json.ts";
import { TX_KEYS } from "../support/core-keys.ts";
import { BLOCKS_DIR, readBytes } from "./chain-data.ts";
import { roundTrip } from "./lossless.ts";

const [raw] = [...readBlockRecords(readBytes(join(BLOCKS_DIR, "277647.dat")))];
const block = parseBlock(raw!);
const prevouts = loadPrevoutsFile(join(BLOCKS_DIR, "277647.prevouts.json"));

describe("block 277647 with its prevouts", () => {
  it("loads all 732 spent outputs", () => {
    expect(prevouts.size).toBe(732);
    const first = prevouts.get(
      "00c00221c42e5dcaaa2840f78e172a8d4a668fcd8bc6ab51d515c463b6955d41:0",
    );
    expect(first?.valueSats).toBe(102_900n);
    expect(first?.height).toBe(277_639);
    expect(first?.coinbase).toBe(false);
  });

  it("Σ fees = 4,737,355 sat = coinbase outputs − 25 BTC subsidy", () => {
    let total = 0n;
    for (const tx of block.transactions.slice(1)) {
      const fee = txFee(tx, prevouts);
      expect(fee, tx.txid).toBeDefined();
      expect(fee! >= 0n).toBe(true);
      total += fee!;
    }
    expect(total).toBe(4_737_355n);
    const coinbaseOut = block.transactions[0]!.outputs.reduce((s, o) => s + o.value, 0n);
    expect(coinbaseOut - 2_500_000_000n).toBe(total);
  });

  it("verbosity-2 JSON: fee and prevout on every non-coinbase tx, none on the coinbase", () => {
    let sumFees = 0n;
    for (const [i, tx] of block.transactions.entries()) {
      const j = txToUniv(tx, { network: "mainnet", prevouts });
      const keys = Object.keys(j);
      if (i === 0) {
        expect(keys).toEqual(TX_KEYS);
        expect(Object.keys(j.vin[0]!)).toEqual(["coinbase", "sequence"]);
        continue;
      }
      // Verbosity 2 puts fee just before hex.
      expect(keys).toEqual([...TX_KEYS.slice(0, -1), "fee", "hex"]);
      for (const v of j.vin)
        expect(Object.keys(v)).toEqual(["txid", "vout", "scriptSig", "prevout", "sequence"]);
      const text = (roundTrip(j) as { fee: { value: string } }).fee.value;
      expect(text).toMatch(/^\d+\.\d{8}$/);
      sumFees += BigInt(text.replace(".", ""));
    }
    expect(sumFees).toBe(4_737_355n);
  });

  it("a prevout lookup function works like the map", () => {
    const tx = block.transactions[1]!;
    const viaFn = txToUniv(tx, {
      network: "mainnet",
      prevouts: (t, v) => prevouts.get(`${t}:${v}`),
    });
    expect(viaFn).toEqual(txToUniv(tx, { network: "mainnet", prevouts }));
  });

  it("missing prevouts fall back to the verbosity-1 shape", () => {
    const j = txToUniv(block.transactions[1]!, { network: "mainnet", prevouts: new Map() });
    expect("fee" in j).toBe(false);
    expect("prevout" in j.vin[0]!).toBe(false);
  });
});
