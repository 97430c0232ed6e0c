import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAmount } from "../../src/bitcoin/amount.ts";
import { fromHex } from "../../src/bitcoin/hex.ts";
import { outpointKey, type Prevout } from "../../src/bitcoin/prevouts.ts";
import { parseTransaction } from "../../src/bitcoin/transaction.ts";
import { txToUniv } from "../../src/bitcoin/tx-json.ts";
import { ORACLE_DIR } from "./chain-data.ts";
import { canon, parseLossless, roundTrip } from "./lossless.ts";

const dir = join(ORACLE_DIR, "getrawtransaction-verbosity2");
const txids = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.slice(0, -5));

interface OracleVin {
  txid: string;
  vout: number;
  prevout: {
    generated: boolean;
    height: number;
    value: { toString(): string };
    scriptPubKey: { hex: string };
  };
}

/** The RPC layer appends these after TxToUniv's output; they are not ours to produce. */
const BLOCK_FIELDS = ["blockhash", "confirmations", "time", "blocktime"];

describe("getrawtransaction verbosity 2 oracle", () => {
  it("has 5 transactions", () => expect(txids).toHaveLength(5));

  for (const txid of txids) {
    it(txid, () => {
      const hex = readFileSync(join(dir, `${txid}.hex`), "utf8").trim();
      const oracle = parseLossless(readFileSync(join(dir, `${txid}.json`), "utf8")) as Record<
        string,
        unknown
      > & { vin: OracleVin[] };
      const prevouts = new Map<string, Prevout>();
      for (const v of oracle.vin) {
        prevouts.set(outpointKey(v.txid, Number(v.vout.toString())), {
          valueSats: parseAmount(v.prevout.value.toString()),
          scriptPubKey: fromHex(v.prevout.scriptPubKey.hex),
          height: Number(v.prevout.height.toString()),
          coinbase: v.prevout.generated,
        });
      }
      const want = Object.fromEntries(
        Object.entries(oracle).filter(([k]) => !BLOCK_FIELDS.includes(k)),
      );
      const got = txToUniv(parseTransaction(fromHex(hex)), { network: "mainnet", prevouts });
      expect(roundTrip(got)).toEqual(want);
      expect(canon(got)).toBe(canon(want));
    });
  }
});
