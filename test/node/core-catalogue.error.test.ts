import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WatchedCall } from "../../src/devnet/bitcoin-core/http.ts";
import { stringifyJson } from "../../src/protocol/json/json.ts";
import { auditRecords } from "../support/audit.ts";
import { BLOCK_170, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { accountTotals } from "../support/ledger.ts";

let t: TestGateway;
let token: string;
let accountId: number;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    pricing: { getblockcount: { default: 7, mainnet: 13 }, "getblock/3": { default: 900 } },
  });
  ({ token, id: accountId } = await t.account("catalogue", 1_000_000));
});
afterAll(() => t.close());

const nodeUrl = (network = "mainnet") => `${t.url}/node/${network}/${token}`;

/** Every call devnet's Core reads while `run` runs. */
async function forwarded(run: () => Promise<unknown>): Promise<WatchedCall[]> {
  const seen: WatchedCall[] = [];
  const stop = t.devnet.cores.get("mainnet")!.watch((calls) => seen.push(...calls));
  try {
    await run();
  } finally {
    stop();
  }
  return seen;
}

describe("wallet, mining, control and P2P methods are not the gateway's to serve", () => {
  it.each([
    ["getbalance", []],
    ["sendtoaddress", ["bc1q09vm5lfy0j5reeulh4x5752q25uqqvz34hufdl", 1]],
    ["generatetoaddress", [1, "bc1q09vm5lfy0j5reeulh4x5752q25uqqvz34hufdl"]],
    ["getblocktemplate", [{ rules: ["segwit"] }]],
    ["submitblock", ["00"]],
    ["stop", []],
    ["addnode", ["127.0.0.1:8333", "add"]],
    ["setban", ["127.0.0.1", "add"]],
    ["invalidateblock", [BLOCK_170]],
    ["importdescriptors", [[]]],
    ["help", []],
  ])("%s: Core's -32601, never forwarded, never charged", async (method, params) => {
    const before = await accountTotals(t.gateway.app.db, accountId);
    let res: Awaited<ReturnType<typeof post>> | undefined;
    const seen = await forwarded(async () => {
      res = await post(nodeUrl(), rpc(method, params, 3));
    });
    expect(res!.status).toBe(200);
    expect(res!.json).toEqual({
      jsonrpc: "2.0",
      error: { code: -32601, message: "Method not found" },
      id: 3,
    });
    expect(res!.headers.get("x-credits-charged")).toBe("0");
    expect(seen).toEqual([]);
    const after = await accountTotals(t.gateway.app.db, accountId);
    expect(after.account).toEqual(before.account);
  });

  it("a legacy 1.0 client gets Core's HTTP 404 for it, as from Core", async () => {
    const res = await post(nodeUrl(), { method: "stop", params: [], id: 1 });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({
      result: null,
      error: { code: -32601, message: "Method not found" },
      id: 1,
    });
  });
});

describe("arguments are checked as RPCHelpMan checks them, before anything is forwarded or charged", () => {
  it.each([
    [
      "a missing argument",
      "getblockhash",
      [],
      -1,
      "getblockhash height\n(blockgate gives Core's usage line only: pass 1 parameter)",
    ],
    [
      "too many arguments",
      "getblockcount",
      [1],
      -1,
      "getblockcount\n(blockgate gives Core's usage line only: pass 0 parameters)",
    ],
    [
      "one wrong type",
      "getblockhash",
      ["170"],
      -3,
      'Wrong type passed:\n{\n    "Position 1 (height)": "JSON value of type string is not of expected type number"\n}',
    ],
    [
      "every wrong type, listed in order",
      "gettxout",
      [1, "0", "yes"],
      -3,
      'Wrong type passed:\n{\n    "Position 1 (txid)": "JSON value of type number is not of expected type string",\n    "Position 2 (n)": "JSON value of type string is not of expected type number",\n    "Position 3 (include_mempool)": "JSON value of type string is not of expected type bool"\n}',
    ],
    [
      "a required argument given as null",
      "getblockheader",
      [null],
      -3,
      'Wrong type passed:\n{\n    "Position 1 (blockhash)": "JSON value of type null is not of expected type string"\n}',
    ],
    [
      "a short hash, under the name the method's body gives it",
      "getblockheader",
      ["00ff"],
      -8,
      "hash must be of length 64 (not 4, for '00ff')",
    ],
    [
      "a hash that is not hex",
      "getblock",
      ["zz".repeat(32)],
      -8,
      `blockhash must be hexadecimal string (not '${"zz".repeat(32)}')`,
    ],
    [
      "getblock's verbosity as a string",
      "getblock",
      [BLOCK_170, "2"],
      -3,
      "JSON value of type string is not of expected type number",
    ],
    [
      "an unknown named parameter",
      "getblock",
      { blockhash: BLOCK_170, verbosityy: 2 },
      -8,
      "Unknown named parameter verbosityy",
    ],
  ])("%s", async (_name, method, params, code, message) => {
    const before = await accountTotals(t.gateway.app.db, accountId);
    let res: Awaited<ReturnType<typeof post>> | undefined;
    const seen = await forwarded(async () => {
      res = await post(nodeUrl(), rpc(method, params));
    });
    expect(res!.json).toEqual({ jsonrpc: "2.0", error: { code, message }, id: 1 });
    expect(seen).toEqual([]);
    expect((await accountTotals(t.gateway.app.db, accountId)).account).toEqual(before.account);
  });

  it("named parameters reach the node as positional ones, aliases included", async () => {
    const seen = await forwarded(() =>
      post(nodeUrl(), rpc("getblock", { verbose: 0, blockhash: BLOCK_170 })),
    );
    expect(JSON.parse(stringifyJson(seen.map((c) => [c.method, c.params])))).toEqual([
      ["getblock", [BLOCK_170, 0]],
    ]);
  });
});

describe("each method is priced from config, per network and per form", () => {
  /** The charge of one call as the answer's header and the audit record state it. */
  async function charged(network: string, method: string, params: unknown[]) {
    const res = await post(nodeUrl(network), rpc(method, params));
    const rows = await auditRecords(
      t.gateway.app.db,
      { accountId: accountId },
      ["method", "charged_cc"],
      { newestFirst: true, limit: 1 },
    );
    return {
      header: Number(res.headers.get("x-credits-charged")),
      audit: rows[0],
    };
  }

  it.each([
    ["mainnet", "getblockcount", [], 13],
    ["regtest", "getblockcount", [], 7],
    ["mainnet", "getbestblockhash", [], 20],
    ["signet", "getbestblockhash", [], 10],
    ["mainnet", "getblock", [BLOCK_170], 200],
    ["mainnet", "getblock", [BLOCK_170, 0], 200],
    ["mainnet", "getblock", [BLOCK_170, 2], 600],
    ["regtest", "getblock", [BLOCK_170, 2], 300],
    ["mainnet", "getblock", [BLOCK_170, 3], 900],
    ["mainnet", "getblock", [BLOCK_170, 7], 900],
    ["mainnet", "getrawmempool", [], 100],
    ["mainnet", "getrawmempool", [true], 400],
    ["mainnet", "uptime", [], 10],
  ])("%s %s %j costs %i CC", async (network, method, params, price) => {
    const out = await charged(network, method, params);
    expect(out).toEqual({ header: price, audit: { method, charged_cc: price } });
  });

  it("a batch is priced per call", async () => {
    const res = await post(nodeUrl(), [
      rpc("getblockcount", [], 1),
      rpc("getblock", [BLOCK_170, 2], 2),
      rpc("stop", [], 3),
      rpc("getblockhash", [170], 4),
    ]);
    expect(res.headers.get("x-credits-charged")).toBe(String(13 + 600 + 0 + 20));
  });
});
