// The finality-aware response cache (src/cache/): deep transactions are served
// without an upstream trip, charged as misses and flagged in the audit row (cache_hits); shallow
// ones are never cached; the memory tier keeps to its byte budget; a reorganisation evicts what it
// touched. Every upstream call is seen at devnet's Core (watch), not inferred.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WatchedCall } from "../../src/devnet/bitcoin-core/http.ts";
import { DevnetChain, loadDevnetChain } from "../../src/devnet/chain.ts";
import { auditRecords } from "../support/audit.ts";
import { gql } from "../support/graphql.ts";
import {
  askDevnetCore,
  HAL_TXID,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";

const full = loadDevnetChain();
const txidsAt = (height: number) =>
  full.byHeight.get(height)!.block.transactions.map((tx) => tx.txid);
/** Deep: hundreds of thousands of blocks under devnet's tip. */
const DEEP = txidsAt(277647).slice(1, 51);
/** In the tip block: one confirmation. */
const SHALLOW = txidsAt(full.tip.height)[1]!;

interface Reply {
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/** The getrawtransaction calls devnet's Core reads while `run` runs. */
async function coreCalls<T>(t: TestGateway, run: () => Promise<T>) {
  const calls: WatchedCall[] = [];
  const stop = t.devnet.cores.get("mainnet")!.watch((seen) => calls.push(...seen));
  try {
    const value = await run();
    return { value, txids: calls.filter((c) => c.method === "getrawtransaction").length };
  } finally {
    stop();
  }
}

async function audit(t: TestGateway, accountId: number) {
  const rows = await auditRecords(t.gateway.app.db, { accountId: accountId }, [
    "method",
    "charged_cc",
    "cache_hits",
    "upstream",
  ]);
  return rows;
}

describe("the memory tier", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway("pglite", { networks: ["mainnet"] });
  });
  afterAll(() => t?.close());

  it("a deep transaction: the second call is served without a trip, charged alike, flagged", async () => {
    const who = await t.account("node-hits", 1_000_000);
    const ask = () =>
      post(`${t.url}/node/mainnet/${who.token}`, rpc("getrawtransaction", [HAL_TXID, true], "x"));
    const first = await coreCalls(t, ask);
    const second = await coreCalls(t, ask);
    expect(first.txids).toBe(1);
    expect(second.txids).toBe(0);
    expect(second.value.json).toEqual(first.value.json);
    expect(second.value.headers.get("x-credits-charged")).toBe("200");
    expect(await audit(t, who.id)).toEqual([
      { method: "getrawtransaction", charged_cc: 200, cache_hits: 0, upstream: expect.any(String) },
      { method: "getrawtransaction", charged_cc: 200, cache_hits: 1, upstream: "cache" },
    ]);
  });

  it("a shallow transaction (1 confirmation) is asked of the node every time", async () => {
    const who = await t.account("shallow", 1_000_000);
    for (let i = 0; i < 2; i++) {
      const seen = await coreCalls(t, () =>
        post(`${t.url}/node/mainnet/${who.token}`, rpc("getrawtransaction", [SHALLOW, true])),
      );
      expect(seen.txids).toBe(1);
      expect((seen.value.json as { result: { confirmations: number } }).result.confirmations).toBe(
        1,
      );
    }
    expect(t.gateway.app.txCache.memory.has("mainnet", SHALLOW)).toBe(false);
    expect((await audit(t, who.id)).map((r) => r.cache_hits)).toEqual([0, 0]);
  });

  it("the 50-transaction verbose batch: from the cache on the node route and through /gateway", async () => {
    const who = await t.account("batch", 10_000_000);
    const batch = DEEP.map((txid, i) => rpc("getrawtransaction", [txid, true], i));
    const first = await coreCalls(t, () => post(`${t.url}/node/mainnet/${who.token}`, batch));
    expect(first.txids).toBe(50);
    const again = await coreCalls(t, () => post(`${t.url}/node/mainnet/${who.token}`, batch));
    expect(again.txids).toBe(0);
    expect(again.value.json).toEqual(first.value.json);
    expect(again.value.headers.get("x-credits-charged")).toBe(String(50 * 200));

    const query =
      "query($ids: [TxId!]!) { transactions(txids: $ids) { txid confirmations blockhash } }";
    const viaGateway = await coreCalls(t, () =>
      gql(`${t.url}/gateway/mainnet/${who.token}`, query, { ids: DEEP }),
    );
    expect(viaGateway.txids).toBe(0);
    const { data } = viaGateway.value.body as {
      data: { transactions: { txid: string; confirmations: number }[] };
    };
    expect(data.transactions.map((tx) => tx.txid)).toEqual(DEEP);
    expect(data.transactions[0]!.confirmations).toBe(full.tip.height - 277647 + 1);
    const rows = await audit(t, who.id);
    expect(rows.at(-1)).toMatchObject({ method: "graphql", charged_cc: 50 * 200, cache_hits: 50 });
  });

  it("the Electrum route flags its hits too", async () => {
    const who = await t.account("electrum-hits", 1_000_000);
    // Not one of DEEP: the routes share the cache, and those are cached already.
    const txid = txidsAt(277647)[60]!;
    const ask = () =>
      post(
        `${t.url}/electrum/mainnet/${who.token}`,
        rpc("blockchain.transaction.get", [txid, true]),
      );
    await ask();
    const hit = await ask();
    expect((hit.json as Reply).result).toMatchObject({ txid, blockheight: 277647 });
    expect((await audit(t, who.id)).map((r) => [r.charged_cc, r.cache_hits])).toEqual([
      [100, 0],
      [100, 1],
    ]);
  });
});

describe("the byte budget", () => {
  let t: TestGateway;
  const BYTES_MAX = 8_000;
  beforeAll(async () => {
    t = await startTestGateway("pglite", { networks: ["mainnet"], cache: { bytesMax: BYTES_MAX } });
  });
  afterAll(() => t?.close());

  it("holds at most cache.bytesMax, evicting the least recently used", async () => {
    const who = await t.account("budget", 10_000_000);
    await post(
      `${t.url}/node/mainnet/${who.token}`,
      DEEP.map((txid, i) => rpc("getrawtransaction", [txid, 1], i)),
    );
    const { stats } = t.gateway.app.txCache.memory;
    expect(stats.bytes).toBeLessThanOrEqual(BYTES_MAX);
    expect(stats.entries).toBeGreaterThan(0);
    expect(stats.entries).toBeLessThan(50);
    expect(stats.evictions).toBeGreaterThan(0);
    // The most recent answers stayed; the first ones were evicted.
    const memory = t.gateway.app.txCache.memory;
    expect(memory.has("mainnet", DEEP[49]!)).toBe(true);
    expect(memory.has("mainnet", DEEP[0]!)).toBe(false);
  });
});

describe("a reorganisation evicts the cached blocks it replaced", () => {
  let t: TestGateway;
  let chain: DevnetChain;
  const LOW = 540107;
  const HIGH = 574200;
  const lowTx = txidsAt(LOW)[1]!;
  const highTx = txidsAt(HIGH)[1]!;
  beforeAll(async () => {
    // A chain of this file's own, so invalidating a block touches no other test's devnet.
    chain = new DevnetChain();
    for (const height of full.heights()) chain.addBlock(full.byHeight.get(height)!.block, height);
    for (const [txid, tx] of full.mempool) chain.mempool.set(txid, tx);
    // The tip trusted for 0 ms: every cached answer re-checks the chain, so no test waits.
    t = await startTestGateway(
      "pglite",
      { networks: ["mainnet"], cache: { tipTtlMs: 0 } },
      undefined,
      { chain },
    );
  });
  afterAll(() => t?.close());

  it("invalidating a block drops its transactions and those of the blocks above it", async () => {
    const who = await t.account("reorg", 1_000_000);
    const ask = (txid: string) =>
      post(`${t.url}/node/mainnet/${who.token}`, rpc("getrawtransaction", [txid, true]));
    await ask(lowTx);
    await ask(highTx);
    const memory = t.gateway.app.txCache.memory;
    expect(memory.has("mainnet", lowTx) && memory.has("mainnet", highTx)).toBe(true);
    expect((await coreCalls(t, () => ask(lowTx))).txids).toBe(0);

    // The node abandons block LOW and everything above: its tip falls to 437303.
    const hash = full.byHeight.get(LOW)!.block.hash;
    expect(JSON.parse(await askDevnetCore(t.devnet, "invalidateblock", [hash]))).toMatchObject({
      result: null,
    });
    const after = await coreCalls(t, () => ask(lowTx));
    // Asked again, and answered as the node now sees it: back in the mempool, no block.
    expect(after.txids).toBe(1);
    const result = (after.value.json as { result: Record<string, unknown> }).result;
    expect(result.txid).toBe(lowTx);
    expect(result.blockhash).toBeUndefined();
    expect(memory.has("mainnet", lowTx)).toBe(false);
    expect(memory.has("mainnet", highTx)).toBe(false);
    expect(t.logs.join("")).toMatch(/reorganisation: cached block evicted/);

    // Back on the old chain: cached again from the node's answer, and served from the cache.
    await askDevnetCore(t.devnet, "reconsiderblock", [hash]);
    const back = await ask(lowTx);
    expect((back.json as { result: { blockhash: string } }).result.blockhash).toBe(hash);
    expect((await coreCalls(t, () => ask(lowTx))).txids).toBe(0);
    const rows = await audit(t, who.id);
    expect(rows.map((r) => r.cache_hits)).toEqual([0, 0, 1, 0, 0, 1]);
    expect(rows.every((r) => r.charged_cc === 200)).toBe(true);
  });

  it("a deep block's block_by_pk answer is cached until a reorganisation replaces the block; a shallow one never", async () => {
    const who = await t.account("blocks", 10_000_000);
    const indexer = t.devnet.indexers.get("mainnet")!;
    const query =
      "query($h: String!) { block_by_pk(hash: $h) { hash height transactions(limit: 2) { hash } } }";
    const ask = (hash: string) =>
      post(`${t.url}/graph/mainnet/${who.token}`, { query, variables: { h: hash } });
    const data = (r: { json: unknown }) => (r.json as { data: unknown }).data;
    const deep = full.byHeight.get(LOW)!.block.hash;
    const queries = indexer.stats.queries;
    const first = await ask(deep);
    const second = await ask(deep);
    expect(indexer.stats.queries - queries).toBe(1);
    expect(data(second)).toEqual(data(first));
    expect(data(first)).toMatchObject({ block_by_pk: { hash: deep, height: LOW } });

    const shallow = chain.tip.block.hash;
    await ask(shallow);
    await ask(shallow);
    expect(indexer.stats.queries - queries).toBe(3);

    await askDevnetCore(t.devnet, "invalidateblock", [deep]);
    try {
      await ask(deep);
      expect(indexer.stats.queries - queries).toBe(4);
      expect(t.gateway.app.txCache.blocks?.stats.entries).toBe(0);
    } finally {
      await askDevnetCore(t.devnet, "reconsiderblock", [deep]);
    }
    const rows = await audit(t, who.id);
    expect(rows.map((r) => r.cache_hits)).toEqual([0, 1, 0, 0, 0]);
    // Charged alike: the graph price of the query, hit or miss.
    expect(
      new Set(rows.filter((r) => r.method === "block_by_pk").map((r) => r.charged_cc)).size,
    ).toBe(1);
  });
});
