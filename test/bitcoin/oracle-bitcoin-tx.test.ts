import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fromHex } from "../../src/bitcoin/hex.ts";
import { parseTransaction } from "../../src/bitcoin/transaction.ts";
import { txToUniv } from "../../src/bitcoin/tx-json.ts";
import { ORACLE_DIR } from "./chain-data.ts";
import { canon, parseLossless, roundTrip } from "./lossless.ts";

const dir = join(ORACLE_DIR, "bitcoin-tx-json");
const names = readdirSync(dir)
  .filter((f) => f.endsWith(".json"))
  .map((f) => f.slice(0, -5));

describe("bitcoin-tx -json oracle (Core's TxToUniv)", () => {
  it("has 16 pairs", () => expect(names).toHaveLength(16));

  for (const name of names) {
    it(name, () => {
      const hex = readFileSync(join(dir, `${name}.hex`), "utf8").trim();
      const want = parseLossless(readFileSync(join(dir, `${name}.json`), "utf8"));
      const got = txToUniv(parseTransaction(fromHex(hex)), { network: "mainnet" });
      expect(roundTrip(got)).toEqual(want);
      // Same text after canonical stringify: checks key order and number literals too.
      expect(canon(got)).toBe(canon(want));
    });
  }
});
