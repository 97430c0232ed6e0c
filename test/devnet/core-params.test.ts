import { describe, expect, it } from "vitest";
import { useDevnetCore } from "../support/devnet-core.ts";
import { HAL_TXID } from "../support/harness.ts";

const { call } = useDevnetCore(["mainnet", "regtest"]);

const METHODS = [
  "getblock",
  "getblockheader",
  "getblockcount",
  "getbestblockhash",
  "getblockhash",
  "getdifficulty",
  "getblockchaininfo",
  "getchaintips",
  "getblockstats",
  "getmempoolinfo",
  "getrawmempool",
  "getmempoolentry",
  "gettxout",
  "gettxoutproof",
  "estimatesmartfee",
  "decodescript",
  "validateaddress",
  "getnetworkinfo",
  "uptime",
  "sendrawtransaction",
  "testmempoolaccept",
  "submitpackage",
  "getrawtransaction",
  "decoderawtransaction",
];
const ODD: unknown[][] = [
  [],
  [null],
  [1.5],
  [-1],
  ["zz"],
  [true, true],
  [{}],
  [[]],
  [["x"]],
  [HAL_TXID, "1", {}],
  ["00".repeat(32), 1e30],
  [1, 2, 3, 4, 5, 6],
  [[HAL_TXID], "zz"],
];

describe("devnet's Core never crashes on bad parameters", () => {
  it("every method answers a result or one of Core's RPC errors, never a JavaScript exception", async () => {
    for (const method of METHODS) {
      for (const params of ODD) {
        const { error } = await call(method, params);
        if (!error) continue;
        expect(
          [-1, -3, -5, -8, -22, -25, -26, -27],
          `${method} ${JSON.stringify(params)}`,
        ).toContain(error.code);
        expect(error.message, `${method} ${JSON.stringify(params)}`).not.toMatch(
          /undefined|Cannot |is not a function|is not iterable|BigInt|Invalid array|toLowerCase/,
        );
      }
    }
  });

  it("named parameters map as Core maps them; an unknown name is -8", async () => {
    const hash = (await call("getblockhash", { height: 170 })).result as string;
    expect(hash).toHaveLength(64);
    expect(
      ((await call("getblock", { blockhash: hash, verbosity: 0 })).result as string).length,
    ).toBeGreaterThan(160);
    expect((await call("getblock", { blockhash: hash, verbosityy: 0 })).error).toEqual({
      code: -8,
      message: "Unknown named parameter verbosityy",
    });
  });
});
