import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { projectPath } from "../../src/paths.ts";
import { lossless, useDevnetCore } from "../support/devnet-core.ts";

// Core's `getblock <951658> 1` (with the raw block under `block`, added by ElectrumX's author).
const ORACLE_TEXT = readFileSync(
  projectPath("data", "chain", "blocks", "bitcoin_mainnet_951658.json"),
  "utf8",
);
const HASH = "00000000000000000001cbe4b4add61d60d9a470e0958f1b4024f202db9ca628";

const { call } = useDevnetCore(["mainnet"]);

/** The oracle without what was true only when it was captured, or is not Core's. */
function oracle(): Record<string, unknown> {
  const o = lossless(ORACLE_TEXT) as Record<string, unknown>;
  delete o.block;
  // Snapshots: 951658 was not the tip when captured; on devnet it is, with no successor.
  delete o.confirmations;
  delete o.nextblockhash;
  return o;
}

describe("getblock against Core's own answer for block 951658", () => {
  it("verbosity 1: every key, its order and its number text equal Core's (bar the snapshot fields)", async () => {
    const { result } = await call("getblock", [HASH, 1]);
    const ours = result as Record<string, unknown>;
    expect(ours.confirmations?.toString()).toBe("1");
    expect(ours.nextblockhash).toBeUndefined();
    delete ours.confirmations;
    expect(JSON.stringify(ours)).toBe(JSON.stringify(oracle()));
    // `target` (v29) and `coinbase_tx` (v30) are in Core's answer, so in ours.
    expect(Object.keys(ours)).toContain("target");
    expect(Object.keys(ours)).toContain("coinbase_tx");
  });

  it("getblockheader: the block's keys up to nextblockhash, in the same order; false gives the 80 bytes", async () => {
    const { result } = await call("getblockheader", [HASH]);
    const o = oracle();
    const keys = Object.keys(o).filter(
      (k) => !["strippedsize", "size", "weight", "coinbase_tx", "tx"].includes(k),
    );
    const ours = result as Record<string, unknown>;
    delete ours.confirmations;
    expect(Object.keys(ours)).toEqual(keys);
    expect(JSON.stringify(ours)).toBe(
      JSON.stringify(Object.fromEntries(keys.map((k) => [k, o[k]]))),
    );
    const raw = (await call("getblockheader", [HASH, false])).result as string;
    expect(raw).toBe((lossless(ORACLE_TEXT) as { block: string }).block.slice(0, 160));
  });

  it("verbosity 2: the v1 answer with each txid replaced by its TxToUniv (hex, no fee without undo data)", async () => {
    const v1 = (await call("getblock", [HASH, 1])).result as { tx: string[] };
    const v2 = (await call("getblock", [HASH, 2])).result as {
      tx: { txid: string; hex: string; fee?: unknown; vin: { prevout?: unknown }[] }[];
    };
    expect(v2.tx.map((t) => t.txid)).toEqual(v1.tx);
    // Each entry is getrawtransaction's verbose TxToUniv (checked against Core's oracles in
    // core-verbose.test.ts), without the block fields.
    for (const t of v2.tx.slice(0, 5)) {
      const alone = (await call("getrawtransaction", [t.txid, 1])).result as Record<
        string,
        unknown
      >;
      for (const k of ["blockhash", "confirmations", "time", "blocktime"]) delete alone[k];
      expect(JSON.stringify(t)).toBe(JSON.stringify(alone));
    }
  });

  it("verbosity 2 and 3 where devnet has the undo data (block 277647): fee, then prevout at 3", async () => {
    const hash = (await call("getblockhash", [277647])).result as string;
    const v2 = (await call("getblock", [hash, 2])).result as {
      tx: { fee?: { toString(): string }; vin: { prevout?: unknown }[] }[];
    };
    const v3 = (await call("getblock", [hash, 3])).result as typeof v2;
    expect(v2.tx[0]!.fee).toBeUndefined();
    expect(v2.tx.slice(1).every((t) => t.fee !== undefined && t.vin.every((i) => !i.prevout))).toBe(
      true,
    );
    expect(v3.tx.slice(1).every((t) => t.vin.every((i) => i.prevout !== undefined))).toBe(true);
    // Σ fees = coinbase outputs − the 25 BTC subsidy = 4,737,355 sat (the shipped undo data's check).
    const sats = v2.tx
      .slice(1)
      .reduce((s, t) => s + BigInt(Math.round(Number(t.fee!.toString()) * 1e8)), 0n);
    expect(sats).toBe(4_737_355n);
  });

  it("Core's errors: -8 for a malformed hash, -5 for an unknown block", async () => {
    expect((await call("getblock", ["12"])).error).toEqual({
      code: -8,
      message: "blockhash must be of length 64 (not 2, for '12')",
    });
    expect((await call("getblock", ["00".repeat(32)])).error).toEqual({
      code: -5,
      message: "Block not found",
    });
    expect((await call("getblockheader", [42])).error?.code).toBe(-3);
  });
});
