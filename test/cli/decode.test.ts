import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "lossless-json";
import { describe, expect, it } from "vitest";
import { BLOCKS_DIR } from "../bitcoin/chain-data.ts";
import { blockgate } from "../support/spawn.ts";
import { runDecode } from "./run-decode.ts";

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
    expect(runDecode(["xyz"])).toEqual({
      code: 2,
      text: 'decode: the argument is not hex ("x" at position 1)',
    });
    expect(runDecode(["abc"]).code).toBe(2);
    expect(runDecode(["-"], " \n\t\n")).toEqual({
      code: 2,
      text: "decode: standard input is empty: give the hex of a transaction or block",
    });
    expect(runDecode(["00", "--network", "moon"]).code).toBe(2);
    expect(runDecode(["00", "--verbosity", "3"]).code).toBe(2);
    expect(runDecode(["00", "--bogus"]).text).toMatch(
      /^blockgate decode: unknown option --bogus\nusage: blockgate decode <hex \| ->/,
    );
  });
});

describe("blockgate decode: a block or a transaction", () => {
  const oracle = parse(readFileSync(join(BLOCKS_DIR, "bitcoin_mainnet_951658.json"), "utf8")) as {
    block: string;
    hash: string;
  };
  const genesis = readFileSync(join(BLOCKS_DIR, "genesis.raw"));

  it("takes bytes that are one block whose merkle root matches as a block, the rest as a transaction", () => {
    const block = runDecode(["-", "--verbosity=1"], oracle.block);
    expect(block.code).toBe(0);
    expect(JSON.parse(block.text)).toMatchObject({ hash: oracle.hash, nTx: 374 });
    // The genesis block's coinbase alone (bytes 81..) is a transaction, not a block.
    const coinbase = runDecode([genesis.subarray(81).toString("hex")]);
    expect(coinbase.code).toBe(0);
    expect(JSON.parse(coinbase.text)).toMatchObject({
      txid: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
    });
    expect("nTx" in (JSON.parse(coinbase.text) as object)).toBe(false);
  });

  it("says so when the bytes are a block whose merkle root does not match", () => {
    const bytes = Buffer.from(oracle.block, "hex");
    // A byte of the coinbase's scriptSig (its input starts at 81 + 4 + 1 + 1 + 32 + 4 + 1).
    bytes[130] = bytes[130]! ^ 0xff;
    expect(runDecode(["-"], bytes.toString("hex"))).toEqual({
      code: 1,
      text: `decode: block ${oracle.hash}: its merkle root does not match its transactions`,
    });
  });

  it("decodes a block against --network's proof-of-work limit", () => {
    const bytes = Buffer.from(genesis);
    bytes.set([0xff, 0xff, 0x7f, 0x20], 72); // regtest's nBits, 0x207fffff
    const hex = bytes.toString("hex");
    const main = runDecode(["-"], hex);
    expect(main.code).toBe(1);
    expect(main.text).toMatch(/nBits 207fffff encode no valid mainnet target \(try --network\)$/);
    const regtest = runDecode(["-", "--network", "regtest", "--verbosity", "1"], hex);
    expect(regtest.code).toBe(0);
    expect(JSON.parse(regtest.text)).toMatchObject({ bits: "207fffff", nTx: 1 });
  });
});
