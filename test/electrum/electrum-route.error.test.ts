import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { auditTotals } from "../support/audit.ts";
import { type ScriptedPeer, startScriptedElectrum } from "../support/electrum-peer.ts";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf, expectWholeLedgerOk } from "../support/ledger.ts";

const chain = loadDevnetChain();
const OTHER_TXID = chain.byHeight.get(9)!.block.transactions[0]!.txid;

let t: TestGateway;
let token: string;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    networks: ["mainnet", "testnet", "regtest"],
    upstreams: {
      node: { mainnet: ["devnet"], testnet: ["devnet"], regtest: ["devnet"] },
      // regtest has no Electrum server.
      electrum: { mainnet: ["devnet"], testnet: ["devnet"] },
    },
  });
  ({ token } = await t.account("errol", 1_000));
});
afterAll(() => t.close());

const url = (network = "mainnet") => `${t.url}/electrum/${network}/${token}`;
const txGets = () =>
  t.devnet.electrum.get("mainnet")!.stats.methods["blockchain.transaction.get"] ?? 0;

async function available(): Promise<number> {
  return (await balanceOf(t.gateway.app.db, "errol")).available;
}

async function errorOf(params: unknown, method = "blockchain.transaction.get") {
  const res = await post(url(), { jsonrpc: "2.0", id: 1, method, params });
  expect(res.status).toBe(200);
  return (res.json as { error: { code: number; message: string } }).error;
}

describe("parameters are refused in ElectrumX's words, before forwarding, free of charge", () => {
  it("bad tx_hash, bad verbose, wrong argument count, unknown names", async () => {
    const before = await available();
    const asked = txGets();
    expect(await errorOf(["abc"])).toEqual({
      code: 1,
      message: "abc should be a transaction hash",
    });
    expect(await errorOf([null])).toEqual({
      code: 1,
      message: "None should be a transaction hash",
    });
    expect(await errorOf([["x"]])).toEqual({
      code: 1,
      message: "['x'] should be a transaction hash",
    });
    expect(await errorOf([HAL_TXID, "true"])).toEqual({
      code: 1,
      message: '"verbose" must be a boolean',
    });
    expect(await errorOf([HAL_TXID, 2])).toEqual({
      code: 1,
      message: '"verbose" must be a boolean',
    });
    expect(await errorOf([])).toEqual({
      code: -32602,
      message: '0 arguments passed to method "blockchain.transaction.get" but it requires 1',
    });
    expect(await errorOf([HAL_TXID, true, 1])).toEqual({
      code: -32602,
      message: "3 arguments passed to method blockchain.transaction.get taking at most 2",
    });
    expect(await errorOf({ txid: HAL_TXID })).toEqual({
      code: -32602,
      message: 'method "blockchain.transaction.get" requires parameter "tx_hash"',
    });
    expect(await errorOf({ tx_hash: HAL_TXID, verbosity: 1 })).toEqual({
      code: -32602,
      message: 'method "blockchain.transaction.get" does not take parameter "verbosity"',
    });
    expect(txGets()).toBe(asked);
    expect(await available()).toBe(before);
  });

  it("methods the route does not offer: -32601 as ElectrumX words it, not charged", async () => {
    const before = await available();
    // Methods ElectrumX dropped in protocol 1.4 are gone; Core's methods are not Electrum's.
    for (const method of ["blockchain.numblocks.subscribe", "getrawtransaction"]) {
      expect(await errorOf([], method)).toEqual({
        code: -32601,
        message: `unknown method "${method}"`,
      });
    }
    expect(await available()).toBe(before);
  });
});

describe("answers of the Electrum server are passed through and charged", () => {
  it("an unknown transaction: code 2 with the daemon's -5, 100 CC", async () => {
    const before = await available();
    expect(await errorOf(["33".repeat(32), true])).toEqual({
      code: 2,
      message:
        "daemon error: DaemonError({'code': -5, 'message': 'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.'})",
    });
    expect(await available()).toBe(before - 100);
  });
});

describe("the envelope and the gateway's own refusals", () => {
  it("unparsable bodies, notifications and empty batches, as on the node route", async () => {
    const bad = await post(url(), "{");
    expect(bad.json).toEqual({
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error" },
      id: null,
    });
    const note = await post(url(), {
      jsonrpc: "2.0",
      method: "blockchain.transaction.get",
      params: [HAL_TXID],
    });
    expect((note.json as { error: { code: number } }).error.code).toBe(-32600);
    expect((await post(url(), [])).json).toEqual([]);
  });

  it("a \\u escape leaving half a surrogate pair alone is read, as ElectrumX's reader does, and echoed escaped", async () => {
    const body = String.raw`{"jsonrpc":"2.0","id":"\udc00","method":"blockchain.transaction.get"}`;
    const res = await post(url(), body);
    expect(res.text).toContain(String.raw`"id":"\udc00"`);
    expect((res.json as { error: { code: number } }).error.code).toBe(-32602);
  });

  it("a network without an Electrum server: 503, not charged", async () => {
    const before = await available();
    const res = await post(url("regtest"), rpc("blockchain.transaction.get", [HAL_TXID]));
    expect(res.status).toBe(503);
    expect((res.json as { error: { data: { code: string } } }).error.data.code).toBe(
      "UPSTREAM_UNAVAILABLE",
    );
    expect(await available()).toBe(before);
  });

  it("not enough credits: 429 with balance and required, nothing forwarded", async () => {
    const { token: poor } = await t.account("poor", 99);
    const asked = txGets();
    const res = await post(
      `${t.url}/electrum/mainnet/${poor}`,
      rpc("blockchain.transaction.get", [HAL_TXID]),
    );
    expect(res.status).toBe(429);
    expect((res.json as { error: { data: unknown } }).error.data).toMatchObject({
      code: "INSUFFICIENT_CREDITS",
      balance: 99,
      required: 100,
    });
    expect(txGets()).toBe(asked);
  });

  it("an Electrum server that is down: 503, not charged", async () => {
    const testnet = t.devnet.electrum.get("testnet")!;
    await testnet.stop();
    const before = await available();
    const res = await post(url("testnet"), rpc("blockchain.transaction.get", [OTHER_TXID, true]));
    expect(res.status).toBe(503);
    expect(await available()).toBe(before);
    await testnet.restart();
  });

  it("ledger invariants hold", async () => {
    await expectWholeLedgerOk(t.gateway.app.db);
  });
});

describe("misbehaving Electrum servers cost the caller nothing and hang nobody", () => {
  const peers: ScriptedPeer[] = [];
  let g: TestGateway;
  let gToken: string;
  const TIMEOUT_MS = 400;
  beforeAll(async () => {
    const hal = chain.txIndex.get(HAL_TXID)!;
    const halHex = hal.block.block.transactions[hal.index]!.hex;
    const scripts: ((method: string, params: unknown[], id: unknown) => string | null)[] = [
      () => null, // silent
      () => "x".repeat(10_000), // a line over lineBytesMax
      (_m, _p, id) => JSON.stringify({ jsonrpc: "2.0", result: { hex: halHex }, id }), // not the tx asked for
      () => "not json at all",
    ];
    for (const script of scripts) peers.push(await startScriptedElectrum(script));
    const entry = (p: ScriptedPeer) => [{ url: p.url, timeoutMs: TIMEOUT_MS, lineBytesMax: 4096 }];
    g = await startTestGateway("pglite", {
      networks: ["mainnet", "testnet", "signet", "regtest"],
      upstreams: {
        node: { mainnet: ["devnet"], testnet: ["devnet"], signet: ["devnet"], regtest: ["devnet"] },
        electrum: {
          mainnet: entry(peers[0]!),
          testnet: entry(peers[1]!),
          signet: entry(peers[2]!),
          regtest: entry(peers[3]!),
        },
      },
    });
    ({ token: gToken } = await g.account("victim", 1_000));
  });
  afterAll(async () => {
    await g.close();
    await Promise.all(peers.map((p) => p.close()));
  });

  it.each([
    ["mainnet", "a silent server", 504, "UPSTREAM_TIMEOUT"],
    ["testnet", "an oversized line", 502, "UPSTREAM_BAD_RESPONSE"],
    ["signet", "another transaction's bytes", 502, "UPSTREAM_BAD_RESPONSE"],
    ["regtest", "a line that is not JSON", 502, "UPSTREAM_BAD_RESPONSE"],
  ])("%s: %s → %i %s", async (network, _what, status, code) => {
    const started = performance.now();
    const res = await post(
      `${g.url}/electrum/${network}/${gToken}`,
      rpc("blockchain.transaction.get", [OTHER_TXID, true]),
    );
    expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 1_000);
    expect(res.status).toBe(status);
    expect((res.json as { error: { data: { code: string } } }).error.data.code).toBe(code);
    expect(res.headers.get("x-credits-charged")).toBe("0");
  });

  it("nothing was charged or cached", async () => {
    expect(g.gateway.app.txCache.memory.stats.entries).toBe(0);
    await expectWholeLedgerOk(g.gateway.app.db);
    expect(await auditTotals(g.gateway.app.db, {}, ["charged"])).toEqual({ charged: 0 });
  });
});
