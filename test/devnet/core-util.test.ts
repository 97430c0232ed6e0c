import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Network, networkFromChain, solve } from "../../src/bitcoin/index.ts";
import { lossless, useDevnetCore } from "../support/devnet-core.ts";

const FIXTURES = join(import.meta.dirname, "..", "fixtures");
// Core's test/functional/data/rpc_decodescript.json: [script hex, decodescript's answer] on regtest.
const DECODESCRIPT = lossless(
  readFileSync(join(FIXTURES, "oracle", "decodescript", "rpc_decodescript.json"), "utf8"),
) as [string, Record<string, unknown>][];
// Core's src/test/data/key_io_valid.json: [address, scriptPubKey hex, {chain, isPrivkey}].
const KEY_IO = JSON.parse(readFileSync(join(FIXTURES, "vectors", "key_io_valid.json"), "utf8")) as [
  string,
  string,
  { chain: string; isPrivkey: boolean },
][];
const KEY_IO_INVALID = JSON.parse(
  readFileSync(join(FIXTURES, "vectors", "key_io_invalid.json"), "utf8"),
) as [string][];

const { call } = useDevnetCore(["mainnet", "testnet", "testnet4", "signet", "regtest"]);

describe("decodescript against Core's functional-test data", () => {
  it("answers each of the 10 scripts on regtest as Core (every key and value text)", async () => {
    expect(DECODESCRIPT).toHaveLength(10);
    for (const [hex, expected] of DECODESCRIPT) {
      const { result } = await call("decodescript", [hex], "regtest");
      // The data file is a Python dict literal's order (asm, address, desc); Core writes
      // ScriptToUniv's (asm, desc, address, type), which the codec's own tests pin.
      expect(result, hex).toEqual(expected);
      expect(Object.keys(result as object).slice(0, 2)).toEqual(["asm", "desc"]);
    }
  });

  it("the empty script is valid; bad hex is -8 in ParseHexV's words", async () => {
    expect(((await call("decodescript", [""])).result as { type: string }).type).toBe(
      "nonstandard",
    );
    expect((await call("decodescript", ["zz"])).error).toEqual({
      code: -8,
      message: "argument must be hexadecimal string (not 'zz')",
    });
  });
});

describe("validateaddress against Core's key_io vectors", () => {
  it("every valid address on its own chain: isvalid, the same scriptPubKey, the visitor's fields", async () => {
    for (const [address, script, meta] of KEY_IO.filter(([, , m]) => !m.isPrivkey)) {
      const network = networkFromChain(meta.chain) as Network;
      const { result } = await call("validateaddress", [address], network);
      const r = result as Record<string, unknown>;
      expect(r.isvalid, address).toBe(true);
      expect(r.address).toBe(address);
      expect(r.scriptPubKey).toBe(script);
      const type = solve(Buffer.from(script, "hex")).type;
      expect(r.iswitness, address).toBe(type.startsWith("witness") || type === "anchor");
      const keys = Object.keys(r);
      expect(keys.slice(0, 3)).toEqual(["isvalid", "address", "scriptPubKey"]);
    }
  });

  it("the invalid vectors are invalid on every network, with Core's keys", async () => {
    for (const [text] of KEY_IO_INVALID.slice(0, 40)) {
      for (const network of ["mainnet", "testnet4", "regtest"] as const) {
        const r = (await call("validateaddress", [text], network)).result as Record<
          string,
          unknown
        >;
        expect(r.isvalid, `${text} on ${network}`).toBe(false);
        expect(Object.keys(r)).toEqual(["isvalid", "error_locations", "error"]);
      }
    }
  });
});
