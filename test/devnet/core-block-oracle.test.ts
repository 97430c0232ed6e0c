import { readFileSync } from "node:fs";
import { stringify } from "lossless-json";
import { describe, expect, it } from "vitest";
import { amountToJson, parseBlock, txToUniv } from "../../src/bitcoin/index.ts";
import { projectPath } from "../../src/util/paths.ts";
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
    // `target` came with Core v29; `coinbase_tx` is newer than v30 (not in Core's master of
    // 2025-11, see data/chain/README.md): both are in the oracle's answer, so in ours.
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

  it("verbosity 2: Core's v1 answer with each txid replaced by its TxToUniv, fee where devnet knows it", async () => {
    // Core's getblock 2 is its getblock 1 with `tx` holding TxToUniv(tx, no block hash, hex,
    // undo data when it has it). The expected answer is built from the v1 oracle and the codec's
    // TxToUniv, itself checked against Core's bitcoin-tx and getrawtransaction oracles
    // (test/bitcoin/). devnet's undo data for 951658 is the outputs of its own earlier
    // transactions: an entry spending only those has `fee`, as Core's (which has all) would.
    const raw = (lossless(ORACLE_TEXT) as { block: string }).block;
    const block = parseBlock(Buffer.from(raw, "hex"));
    const inBlock = new Map(block.transactions.map((t) => [t.txid, t]));
    const expected = {
      ...oracle(),
      tx: block.transactions.map((t) => {
        const spent = t.inputs.map((i) => inBlock.get(i.prevTxid)?.outputs[i.vout]);
        const fee =
          t.isCoinbase || spent.some((o) => !o)
            ? undefined
            : spent.reduce((sum, o) => sum + o!.value, 0n) -
              t.outputs.reduce((sum, o) => sum + o.value, 0n);
        const json = txToUniv(t, { network: "mainnet" });
        if (fee === undefined) return json;
        const { hex, ...rest } = json;
        return { ...rest, fee: amountToJson(fee), hex };
      }),
    };
    const ours = (await call("getblock", [HASH, 2])).result as Record<string, unknown>;
    delete ours.confirmations;
    expect(stringify(ours)).toBe(stringify(expected));
    expect((ours.tx as unknown[]).length).toBe(374);
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
