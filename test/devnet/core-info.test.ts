import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { toHex } from "../../src/bitcoin/index.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { projectPath } from "../../src/util/paths.ts";
import { useDevnetCore } from "../support/devnet-core.ts";
import { BLOCK_170, HAL_TXID } from "../support/harness.ts";

const { call } = useDevnetCore(["mainnet", "signet", "regtest"]);

// Key orders from the RPCResult lists in Core's sources (v29): rpc/blockchain.cpp
// getblockchaininfo, rpc/net.cpp getnetworkinfo, rpc/mempool.cpp getmempoolinfo.
const BLOCKCHAININFO_KEYS = [
  "chain",
  "blocks",
  "headers",
  "bestblockhash",
  "bits",
  "target",
  "difficulty",
  "time",
  "mediantime",
  "verificationprogress",
  "initialblockdownload",
  "chainwork",
  "size_on_disk",
  "pruned",
  "warnings",
];
const NETWORKINFO_KEYS = [
  "version",
  "subversion",
  "protocolversion",
  "localservices",
  "localservicesnames",
  "localrelay",
  "timeoffset",
  "networkactive",
  "connections",
  "connections_in",
  "connections_out",
  "networks",
  "relayfee",
  "incrementalfee",
  "localaddresses",
  "warnings",
];
const MEMPOOLINFO_KEYS = [
  "loaded",
  "size",
  "bytes",
  "usage",
  "total_fee",
  "maxmempool",
  "mempoolminfee",
  "minrelaytxfee",
  "incrementalrelayfee",
  "unbroadcastcount",
  "fullrbf",
];

describe("chain and node state in Core's shapes", () => {
  it("getblockchaininfo: Core's keys in order; mainnet's tip 951658 with Core's own chainwork", async () => {
    const r = (await call("getblockchaininfo")).result as Record<string, unknown>;
    expect(Object.keys(r)).toEqual(BLOCKCHAININFO_KEYS);
    expect(r.chain).toBe("main");
    // Core's chainwork for 951658, from its getblock answer (the shipped anchor).
    const oracle = JSON.parse(
      readFileSync(projectPath("data", "chain", "blocks", "bitcoin_mainnet_951658.json"), "utf8"),
    ) as { chainwork: string; mediantime: number };
    expect(r.chainwork).toBe(oracle.chainwork);
    expect(String(r.mediantime)).toBe(String(oracle.mediantime));
    const header = (await call("getblockheader", [r.bestblockhash])).result as Record<
      string,
      unknown
    >;
    expect(r.chainwork).toBe(header.chainwork);
    expect(String(r.difficulty)).toBe(String(header.difficulty));
    expect(String((await call("getdifficulty")).result)).toBe(String(header.difficulty));
    const signet = (await call("getblockchaininfo", [], "signet")).result as Record<
      string,
      unknown
    >;
    expect(Object.keys(signet)).toEqual([
      ...BLOCKCHAININFO_KEYS.slice(0, -1),
      "signet_challenge",
      "warnings",
    ]);
    expect(signet.chain).toBe("signet");
  });

  it("heights 0–255 are contiguous: exact chainwork, mediantime and nextblockhash", async () => {
    const genesis = (await call("getblockheader", [(await call("getblockhash", [0])).result]))
      .result as Record<string, unknown>;
    // Every block there has nBits 0x1d00ffff, work 0x100010001.
    expect(genesis.chainwork).toBe(
      "0000000000000000000000000000000000000000000000000000000100010001",
    );
    expect(String(genesis.mediantime)).toBe("1231006505");
    expect(genesis.previousblockhash).toBeUndefined();
    const one = (await call("getblockheader", [genesis.nextblockhash])).result as Record<
      string,
      unknown
    >;
    expect(one.hash).toBe("00000000839a8e6886ab5951d76f411475428afc90947ee320161bbf18eb6048");
    expect(one.chainwork).toBe("0000000000000000000000000000000000000000000000000000000200020002");
    // The median of two times is the later one (Core takes the upper middle).
    expect(String(one.mediantime)).toBe("1231469665");
    const last = (await call("getblockheader", [(await call("getblockhash", [255])).result]))
      .result as Record<string, unknown>;
    expect(last.chainwork).toBe((0x100010001n * 256n).toString(16).padStart(64, "0"));
    // 256 is not held: no nextblockhash rather than a made-up one; 277647 has no mediantime.
    expect(last.nextblockhash).toBeUndefined();
    const sparse = (await call("getblockheader", [(await call("getblockhash", [277647])).result]))
      .result as Record<string, unknown>;
    expect(Object.keys(sparse)).not.toContain("mediantime");
    expect(Object.keys(sparse)).not.toContain("chainwork");
  });

  it("getnetworkinfo and getmempoolinfo: Core's keys in order, Core's default fees", async () => {
    const net = (await call("getnetworkinfo")).text;
    expect(Object.keys((await call("getnetworkinfo")).result as object)).toEqual(NETWORKINFO_KEYS);
    expect(net).toContain('"relayfee":0.00001000,"incrementalfee":0.00001000');
    const pool = (await call("getmempoolinfo")).result as Record<string, unknown>;
    expect(Object.keys(pool)).toEqual(MEMPOOLINFO_KEYS);
    expect(String(pool.size)).toBe(String(loadDevnetChain().mempool.size));
    expect(typeof (await call("uptime")).result).not.toBe("undefined");
  });

  it("estimatesmartfee: {feerate, blocks} from the real mempool's feerates; errors where there are none", async () => {
    const one = (await call("estimatesmartfee", [1])).result as Record<string, unknown>;
    expect(Object.keys(one)).toEqual(["feerate", "blocks"]);
    expect(String(one.blocks)).toBe("2");
    const six = (await call("estimatesmartfee", [6, "conservative"])).result as Record<
      string,
      unknown
    >;
    expect(Number(String(six.feerate))).toBeLessThanOrEqual(Number(String(one.feerate)));
    expect(String(six.feerate)).toMatch(/^\d+\.\d{8}$/);
    expect((await call("estimatesmartfee", [6], "signet")).result).toEqual({
      errors: ["Insufficient data or no feerate found"],
      blocks: expect.anything(),
    });
    expect((await call("estimatesmartfee", [0])).error).toEqual({
      code: -8,
      message: "Invalid conf_target, must be between 1 and 1008",
    });
    expect((await call("estimatesmartfee", [2, "fast"])).error).toEqual({
      code: -8,
      message:
        'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"',
    });
  });

  it("getchaintips: the active tip; getrawmempool with mempool_sequence", async () => {
    const tips = (await call("getchaintips")).result as Record<string, unknown>[];
    expect(tips.map((t) => Object.keys(t))).toEqual([["height", "hash", "branchlen", "status"]]);
    expect(tips[0]!.status).toBe("active");
    const seq = (await call("getrawmempool", [false, true])).result as Record<string, unknown>;
    expect(Object.keys(seq)).toEqual(["txids", "mempool_sequence"]);
    expect((await call("getrawmempool", [true, true])).error).toEqual({
      code: -8,
      message: "Verbose results cannot contain mempool sequence values.",
    });
    expect((await call("getmempoolentry", [HAL_TXID])).error).toEqual({
      code: -5,
      message: "Transaction not in mempool",
    });
  });

  it("gettxoutproof: CMerkleBlock of block 170 proving Hal's transaction (index 1 of 2)", async () => {
    const block = loadDevnetChain().byHash.get(BLOCK_170)!.block;
    const [coinbase, hal] = block.transactions;
    // header, 2 transactions, 2 hashes (both leaves), flags 0b101: root, leaf 0 no, leaf 1 yes.
    const expected = `${toHex(block.headerBytes)}0200000002${toHex(coinbase!.txidBytes)}${toHex(hal!.txidBytes)}0105`;
    expect((await call("gettxoutproof", [[HAL_TXID]])).result).toBe(expected);
    expect((await call("gettxoutproof", [[HAL_TXID], BLOCK_170])).result).toBe(expected);
    expect((await call("gettxoutproof", [[HAL_TXID, HAL_TXID]])).error).toEqual({
      code: -8,
      message: `Invalid parameter, duplicated txid: ${HAL_TXID}`,
    });
    expect((await call("gettxoutproof", [["11".repeat(32)]])).error).toEqual({
      code: -5,
      message: "Transaction not yet in block",
    });
  });
});
