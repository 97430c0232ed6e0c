import { readdirSync, readFileSync } from "node:fs";
import { parse, stringify } from "lossless-json";
import { describe, expect, it } from "vitest";
import { runDecode } from "../../src/cli/decode.ts";
import { blockgate } from "../support/spawn.ts";

const DIR = "test/fixtures/oracle/bitcoin-tx-json";
const pairs = readdirSync(DIR)
  .filter((f) => f.endsWith(".hex"))
  .map((f) => f.slice(0, -4));

/** Core's decoderawtransaction is TxToUniv without `hex` (bitcoin-tx -json includes it). */
function expectedFor(name: string): string {
  const oracle = parse(readFileSync(`${DIR}/${name}.json`, "utf8")) as Record<string, unknown>;
  delete oracle.hex;
  return stringify(oracle)!;
}

describe("blockgate decode", () => {
  it.each(pairs)("%s matches Core, compared as parsed JSON with number literals kept", (name) => {
    const out = runDecode([readFileSync(`${DIR}/${name}.hex`, "utf8").trim()]);
    expect(out.code).toBe(0);
    expect(stringify(parse(out.text))).toBe(expectedFor(name));
  });

  it("runs as a command, with a network for addresses", async () => {
    const hex = readFileSync(`${DIR}/txcreate1.hex`, "utf8").trim();
    const main = await blockgate(["decode", hex], {});
    expect(stringify(parse(main.stdout))).toBe(expectedFor("txcreate1"));
    const regtest = await blockgate(["decode", hex, "--network", "regtest"], {});
    expect(regtest.code).toBe(0);
    expect(regtest.stdout).toMatch(/"address": "(bcrt1|[mn2])/);
  });

  it("refuses what is not a transaction, as Core does", () => {
    expect(runDecode(["00ff"])).toEqual({
      code: 1,
      text: "error code: -22\nerror message:\nTX decode failed",
    });
    expect(runDecode(["xyz"]).code).toBe(2);
    expect(runDecode(["00", "--network", "moon"]).code).toBe(2);
  });
});
