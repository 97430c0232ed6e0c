import { readdirSync, readFileSync } from "node:fs";
import { parse } from "lossless-json";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { BLOCK_KEYS, TX_KEYS } from "../support/core-keys.ts";
import { coreCaller } from "../support/devnet-core.ts";
import { BLOCK_170, GENESIS_COINBASE, HAL_TXID } from "../support/harness.ts";

let devnet: Devnet;
let call: ReturnType<typeof coreCaller>;
beforeAll(async () => {
  devnet = await startDevnet(["mainnet", "regtest"]);
  call = coreCaller(devnet);
});
afterAll(() => devnet.close());

describe("devnet's getrawtransaction, decoded", () => {
  it("verbose 1 for a mined tx: TxToUniv then blockhash, confirmations from the tip, time, blocktime", async () => {
    const { result, text } = await call("getrawtransaction", [HAL_TXID, 1]);
    const keys = Object.keys(result as object);
    expect(keys).toEqual([...TX_KEYS, ...BLOCK_KEYS]);
    const r = result as Record<string, unknown>;
    expect(r.blockhash).toBe(BLOCK_170);
    expect(String(r.confirmations)).toBe(String(951658 - 170 + 1));
    expect(String(r.blocktime)).toBe("1231731025");
    expect(text).toContain('"vout":[{"value":10.00000000,"n":0,');
  });

  it("in_active_chain first when a blockhash is given", async () => {
    const { result } = await call("getrawtransaction", [HAL_TXID, true, BLOCK_170]);
    expect(Object.keys(result as object)[0]).toBe("in_active_chain");
  });

  it("verbosity 2 adds fee and prevouts where undo data is known", async () => {
    const { result, text } = await call("getrawtransaction", [HAL_TXID, 2]);
    const r = result as { vin: { prevout: Record<string, unknown> }[]; fee: unknown };
    // Block 170 spends block 9's coinbase: 50 BTC in, 10 + 40 out.
    expect(Object.keys(r.vin[0]!.prevout)).toEqual([
      "generated",
      "height",
      "value",
      "scriptPubKey",
    ]);
    expect(r.vin[0]!.prevout.generated).toBe(true);
    expect(String(r.vin[0]!.prevout.height)).toBe("9");
    expect(text).toContain('"fee":0.00000000');
    const keys = Object.keys(result as object);
    expect(keys.indexOf("fee")).toBe(keys.indexOf("hex") - 1);
  });

  it("mempool transactions have no block fields, and verbosity 2 falls back to the verbosity 1 shape", async () => {
    const dir = "test/fixtures/oracle/getrawtransaction-verbosity2";
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      const oracle = parse(readFileSync(`${dir}/${file}`, "utf8")) as Record<string, unknown>;
      const { result } = await call("getrawtransaction", [oracle.txid, 1]);
      const expected = { ...oracle };
      for (const k of ["blockhash", "confirmations", "time", "blocktime", "fee"])
        delete expected[k];
      expected.vin = (oracle.vin as Record<string, unknown>[]).map(
        ({ prevout: _p, ...rest }) => rest,
      );
      expect(JSON.stringify(result)).toBe(JSON.stringify(expected));
      const v2 = await call("getrawtransaction", [oracle.txid, 2]);
      expect(JSON.stringify(v2.result)).toBe(JSON.stringify(expected));
    }
  });

  it("the genesis coinbase and block-scoped misses, worded as Core words them", async () => {
    expect((await call("getrawtransaction", [GENESIS_COINBASE])).error).toEqual({
      code: -5,
      message:
        "The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved",
    });
    expect((await call("getrawtransaction", [HAL_TXID, 0, "ab".repeat(32)])).error).toEqual({
      code: -5,
      message: "Block hash not found",
    });
  });

  it("decoderawtransaction: TxToUniv without hex; garbage is -22 TX decode failed", async () => {
    const hex = readFileSync(
      "test/fixtures/oracle/bitcoin-tx-json/txcreatesignv1.hex",
      "utf8",
    ).trim();
    const oracle = readFileSync("test/fixtures/oracle/bitcoin-tx-json/txcreatesignv1.json", "utf8");
    const { result } = await call("decoderawtransaction", [hex]);
    const expected = parse(oracle) as Record<string, unknown>;
    delete expected.hex;
    expect(JSON.stringify(result)).toBe(JSON.stringify(expected));
    expect((await call("decoderawtransaction", ["00ff"])).error).toEqual({
      code: -22,
      message: "TX decode failed",
    });
  });
});
