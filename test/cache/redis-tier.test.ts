// The response cache's Redis tier (src/cache/redis-tier.ts): what one gateway process cached,
// another serves without an upstream trip; a Redis that is down costs nothing but the cache.
// Redis is the real server at REDIS_URL (default 127.0.0.1:6379); each run uses its own key prefix.
import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RedisTier } from "../../src/cache/redis-tier.ts";
import type { CachedTx } from "../../src/cache/tx-cache.ts";
import type { WatchedCall } from "../../src/devnet/bitcoin-core/http.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { auditRecords, auditTotals } from "../support/audit.ts";
import {
  askDevnetCore,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { startHeldRelay } from "../support/held-relay.ts";
import { REDIS_URL } from "../support/redis-pair.ts";

const full = loadDevnetChain();
const TXIDS = full.byHeight
  .get(277647)!
  .block.transactions.slice(100, 110)
  .map((tx) => tx.txid);

async function getrawtransactionCalls<T>(t: TestGateway, run: () => Promise<T>) {
  const calls: WatchedCall[] = [];
  const stop = t.devnet.cores.get("mainnet")!.watch((seen) => calls.push(...seen));
  try {
    const value = await run();
    return { value, calls: calls.filter((c) => c.method === "getrawtransaction").length };
  } finally {
    stop();
  }
}

describe("two gateway processes share one Redis", () => {
  const keyPrefix = `blockgate-test-${randomBytes(6).toString("hex")}:`;
  const redis = new Redis(REDIS_URL);
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    // A generous timeout: this machine is shared, and a slow command would be a (correct) miss.
    const config = {
      networks: ["mainnet" as const],
      cache: { redis: { keyPrefix, timeoutMs: 2_000 } },
    };
    a = await startTestGateway("pglite", config, undefined, { redisUrl: REDIS_URL });
    // The second gateway on the same upstreams, with a memory tier of its own (empty).
    b = await startTestGateway("pglite", config, undefined, {
      redisUrl: REDIS_URL,
      devnet: a.devnet,
    });
    // Until its connection is up a tier misses and stores nothing (no offline queue): the tests
    // begin once both are connected, as the third gateway's below does.
    await vi.waitFor(() =>
      expect([a, b].map((g) => g.gateway.app.txCache.redis?.ready)).toEqual([true, true]),
    );
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    const keys = await redis.keys(`${keyPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it("what one fetched, the other serves without asking the node, charged and flagged", async () => {
    const alice = await a.account("alice", 1_000_000);
    const bob = await b.account("bob", 1_000_000);
    const batch = TXIDS.map((txid, i) => rpc("getrawtransaction", [txid, true], i));
    const first = await getrawtransactionCalls(a, () =>
      post(`${a.url}/node/mainnet/${alice.token}`, batch),
    );
    expect(first.calls).toBe(TXIDS.length);
    // Redis is written after the answer (not on its path): wait until every entry is there.
    await vi.waitFor(async () => {
      expect(await redis.exists(...TXIDS.map((t) => `${keyPrefix}mainnet:tx:${t}`))).toBe(
        TXIDS.length,
      );
    });
    expect(b.gateway.app.txCache.memory.has("mainnet", TXIDS[0]!)).toBe(false);
    // Until connected, Redis commands fail at once (misses): wait for b's connection.
    await vi.waitFor(() => expect(b.gateway.app.txCache.redis?.ready).toBe(true));
    const second = await getrawtransactionCalls(b, () =>
      post(`${b.url}/node/mainnet/${bob.token}`, batch),
    );
    expect(second.calls).toBe(0);
    expect(second.value.json).toEqual(first.value.json);
    expect(second.value.headers.get("x-credits-charged")).toBe(String(TXIDS.length * 200));
    expect(await auditTotals(b.gateway.app.db, { accountId: bob.id }, ["n", "cacheHits"])).toEqual({
      n: TXIDS.length,
      cacheHits: TXIDS.length,
    });
    // Now in b's memory tier too.
    expect(b.gateway.app.txCache.memory.has("mainnet", TXIDS[0]!)).toBe(true);
  });

  it("calls sent at once each get their own transaction from Redis", async () => {
    const alice = await a.account("alice-at-once", 1_000_000);
    const bob = await b.account("bob-at-once", 1_000_000);
    const txids = full.byHeight
      .get(277647)!
      .block.transactions.slice(120, 128)
      .map((tx) => tx.txid);
    const call = (t: TestGateway, token: string, txid: string, i: number) =>
      post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [txid, i % 2 === 0], i));
    const verbose = txids.map((txid, i) => rpc("getrawtransaction", [txid, true], i));
    expect((await post(`${a.url}/node/mainnet/${alice.token}`, verbose)).status).toBe(200);
    await vi.waitFor(async () => {
      expect(await redis.exists(...txids.map((t) => `${keyPrefix}mainnet:tx:${t}`))).toBe(
        txids.length,
      );
    });
    await vi.waitFor(() => expect(b.gateway.app.txCache.redis?.ready).toBe(true));
    // Their look-ups share turns of b's event loop, and so the MGETs to Redis.
    const second = await getrawtransactionCalls(b, () =>
      Promise.all(txids.map((txid, i) => call(b, bob.token, txid, i))),
    );
    expect(second.calls).toBe(0);
    // The same calls on a, from its memory: what each of b's should have been.
    const first = await Promise.all(txids.map((txid, i) => call(a, alice.token, txid, i)));
    expect(second.value.map((r) => r.json)).toEqual(first.map((r) => r.json));
  });

  it("an indexer answer about a deep block that one kept, the other serves without the indexer", async () => {
    const alice = await a.account("alice-graph", 1_000_000);
    const bob = await b.account("bob-graph", 1_000_000);
    const body = {
      query:
        "query($h: String!) { block_by_pk(hash: $h) { hash height transactions(limit: 2) { hash } } }",
      variables: { h: full.byHeight.get(277647)!.block.hash },
    };
    const indexerQueries = () => a.devnet.indexers.get("mainnet")!.stats.queries;
    const before = indexerQueries();
    const first = await post(`${a.url}/graph/mainnet/${alice.token}`, body);
    expect(first.status).toBe(200);
    expect(indexerQueries() - before).toBe(1);
    // Written after the answer, not on its path.
    await vi.waitFor(async () => {
      expect(await redis.keys(`${keyPrefix}mainnet:graph:*`)).toHaveLength(1);
    });
    await vi.waitFor(() => expect(b.gateway.app.txCache.redis?.ready).toBe(true));
    const second = await post(`${b.url}/graph/mainnet/${bob.token}`, body);
    expect(indexerQueries() - before).toBe(1);
    expect(second.json).toEqual(first.json);
    expect(second.headers.get("x-credits-charged")).toBe(first.headers.get("x-credits-charged"));
    const rows = await auditRecords(b.gateway.app.db, { accountId: bob.id }, ["cache_hits"]);
    expect(rows).toEqual([{ cache_hits: 1 }]);
  });

  it("a whole answer of the unified API one kept, the other serves without Yoga or an upstream", async () => {
    const alice = await a.account("alice-gateway", 1_000_000);
    const bob = await b.account("bob-gateway", 1_000_000);
    const ask = async (t: TestGateway, token: string, query: string, variables?: object) => {
      const res = await fetch(`${t.url}/gateway/mainnet/${token}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
      });
      const text = await res.text();
      await t.gateway.app.gatewayAnswers.idle();
      return { status: res.status, charged: res.headers.get("x-credits-charged"), text };
    };
    const data = (text: string) => (JSON.parse(text) as { data: unknown }).data;
    const blocks =
      "{ block(where: {height: {_gte: 100, _lte: 109}}, order_by: {height: asc}) { hash height timestamp } }";
    const txs = "query($ids: [TxId!]!) { transactions(txids: $ids) { txid size vsize weight } }";
    const indexerQueries = () => a.devnet.indexers.get("mainnet")!.stats.queries;
    const before = indexerQueries();
    const firstBlocks = await ask(a, alice.token, blocks);
    const firstTxs = await getrawtransactionCalls(a, () =>
      ask(a, alice.token, txs, { ids: TXIDS }),
    );
    expect([firstBlocks.status, firstTxs.value.status]).toEqual([200, 200]);
    expect(indexerQueries() - before).toBe(1);
    await vi.waitFor(async () => {
      expect(await redis.keys(`${keyPrefix}mainnet:gateway:*`)).toHaveLength(2);
    });
    // b has neither in memory: it reads them from Redis, asking neither the indexer nor Core.
    const secondBlocks = await ask(b, bob.token, blocks);
    const secondTxs = await getrawtransactionCalls(b, () => ask(b, bob.token, txs, { ids: TXIDS }));
    expect(indexerQueries() - before).toBe(1);
    expect(secondTxs.calls).toBe(0);
    expect(data(secondBlocks.text)).toEqual(data(firstBlocks.text));
    expect(data(secondTxs.value.text)).toEqual(data(firstTxs.value.text));
    expect([secondBlocks.charged, secondTxs.value.charged]).toEqual([
      firstBlocks.charged,
      firstTxs.value.charged,
    ]);
    const rows = await auditRecords(b.gateway.app.db, { accountId: bob.id }, ["cache_hits"]);
    expect(rows).toEqual([{ cache_hits: 1 }, { cache_hits: TXIDS.length }]);
  });

  it("an entry whose block left the best chain is not served from Redis, and is deleted there", async () => {
    // A third process, which never saw these blocks: what it reads from Redis it checks first.
    const c = await startTestGateway(
      "pglite",
      { networks: ["mainnet"], cache: { redis: { keyPrefix, timeoutMs: 2_000 } } },
      undefined,
      { redisUrl: REDIS_URL, devnet: a.devnet },
    );
    const block = full.byHeight.get(277647)!.block.hash;
    try {
      const carol = await c.account("carol", 1_000_000);
      await vi.waitFor(() => expect(c.gateway.app.txCache.redis?.ready).toBe(true));
      const key = `${keyPrefix}mainnet:tx:${TXIDS[3]}`;
      expect(await redis.exists(key)).toBe(1);
      // The node abandons block 277647 (devnet's chain is this file's own worker's).
      const invalidated = JSON.parse(await askDevnetCore(a.devnet, "invalidateblock", [block]));
      expect(invalidated).toMatchObject({ result: null });
      const seen = await getrawtransactionCalls(c, () =>
        post(`${c.url}/node/mainnet/${carol.token}`, rpc("getrawtransaction", [TXIDS[3], true])),
      );
      expect(seen.calls).toBe(1);
      // The node's answer now: back in the mempool, no block.
      const result = (seen.value.json as { result: Record<string, unknown> }).result;
      expect(result.txid).toBe(TXIDS[3]);
      expect(result.blockhash).toBeUndefined();
      await vi.waitFor(async () => expect(await redis.exists(key)).toBe(0));
      // The indexer answer about the block, kept in Redis by the test above: asked again, and
      // deleted there.
      const graphKeys = await redis.keys(`${keyPrefix}mainnet:graph:*`);
      expect(graphKeys).toHaveLength(1);
      const indexerQueries = () => a.devnet.indexers.get("mainnet")!.stats.queries;
      const before = indexerQueries();
      await post(`${c.url}/graph/mainnet/${carol.token}`, {
        query:
          "query($h: String!) { block_by_pk(hash: $h) { hash height transactions(limit: 2) { hash } } }",
        variables: { h: block },
      });
      expect(indexerQueries() - before).toBe(1);
      await vi.waitFor(async () => expect(await redis.exists(...graphKeys)).toBe(0));
      const rows = await auditRecords(c.gateway.app.db, { accountId: carol.id }, ["cache_hits"]);
      expect(rows).toEqual([{ cache_hits: 0 }, { cache_hits: 0 }]);
    } finally {
      await askDevnetCore(a.devnet, "reconsiderblock", [block]);
      await c.close();
    }
  });
});

describe("Redis down", () => {
  let t: TestGateway;
  beforeAll(async () => {
    // Nothing listens on port 1: every Redis command fails at once.
    t = await startTestGateway("pglite", { networks: ["mainnet"] }, undefined, {
      redisUrl: "redis://127.0.0.1:1",
    });
  });
  afterAll(() => t?.close());

  it("still answers, from the node and then from memory, and says so once in the log", async () => {
    const who = await t.account("no-redis", 1_000_000);
    const ask = () =>
      post(`${t.url}/node/mainnet/${who.token}`, rpc("getrawtransaction", [TXIDS[0], true], 7));
    const first = await getrawtransactionCalls(t, ask);
    expect(first.value.status).toBe(200);
    expect(first.calls).toBe(1);
    expect((first.value.json as { id: number; result: { txid: string } }).result.txid).toBe(
      TXIDS[0],
    );
    const second = await getrawtransactionCalls(t, ask);
    expect(second.value.status).toBe(200);
    expect(second.calls).toBe(0);
    expect(t.gateway.app.txCache.redis!.failures).toBeGreaterThan(0);
    const warnings = t.logs.filter((l) => l.includes("Redis cache unavailable"));
    expect(warnings.length).toBe(1);
  });

  it("a miss that Redis cannot answer goes to the node, not to an error", async () => {
    const who = await t.account("no-redis-2", 1_000_000);
    const res = await post(
      `${t.url}/node/mainnet/${who.token}`,
      TXIDS.slice(1).map((txid, i) => rpc("getrawtransaction", [txid], i)),
    );
    expect(res.status).toBe(200);
    expect((res.json as { result: string }[]).every((r) => typeof r.result === "string")).toBe(
      true,
    );
  });
});

describe("look-ups while an MGET waits for Redis", () => {
  const direct = new Redis(REDIS_URL);
  const keyPrefix = `blockgate-test-${randomBytes(6).toString("hex")}:`;
  afterAll(async () => {
    const keys = await direct.keys(`${keyPrefix}*`);
    if (keys.length > 0) await direct.del(...keys);
    direct.disconnect();
  });
  /** A tier whose replies come through a relay that can hold them; `close` closes both. */
  const heldTier = async () => {
    const relay = await startHeldRelay(REDIS_URL);
    const tier = new RedisTier(
      { url: relay.url, keyPrefix, timeoutMs: 5_000, ttlMs: 60_000 },
      pino({ enabled: false }),
    );
    return {
      relay,
      tier,
      close: async () => {
        await tier.close();
        await relay.close();
      },
    };
  };

  it("go as the next MGET, each given its own entries", async () => {
    const { relay, tier, close } = await heldTier();
    try {
      const block = full.byHeight.get(277647)!;
      const stored = (i: number): CachedTx => ({
        bytes: block.block.transactions[i]!.bytes,
        blockhash: block.block.hash,
        height: block.height,
        blocktime: block.block.time,
      });
      const txs = block.block.transactions.slice(0, 6);
      await vi.waitFor(() => expect(tier.ready).toBe(true));
      // Four of the six stored; the last two are misses.
      for (let i = 0; i < 4; i++) tier.set("mainnet", txs[i]!.txid, stored(i));
      await vi.waitFor(async () =>
        expect(
          await direct.exists(...txs.slice(0, 4).map((t) => `${keyPrefix}mainnet:tx:${t.txid}`)),
        ).toBe(4),
      );
      const turn = () => new Promise((resolve) => setImmediate(resolve));
      const mgets = (from: number) => relay.sent().slice(from).split("\r\nmget\r\n").length - 1;
      const from = relay.sent().length;
      relay.holding = true;
      const first = tier.getMany("mainnet", [txs[0]!.txid]);
      while (mgets(from) === 0) await turn();
      // Three more look-ups, a turn each, while the first MGET waits.
      const later = [];
      for (const ids of [
        [txs[1]!.txid, txs[4]!.txid],
        [txs[2]!.txid],
        [txs[5]!.txid, txs[3]!.txid],
      ]) {
        later.push(tier.getMany("mainnet", ids));
        await turn();
      }
      await turn();
      expect(mgets(from)).toBe(1);
      relay.release();
      const found = [await first, ...(await Promise.all(later))];
      expect(mgets(from)).toBe(2);
      const hex = (i: number) => Buffer.from(txs[i]!.bytes).toString("hex");
      expect(found.map((got) => got.map((e) => e && Buffer.from(e.bytes).toString("hex")))).toEqual(
        [[hex(0)], [hex(1), undefined], [hex(2)], [undefined, hex(3)]],
      );
      const entries = found.flat().filter((e) => e !== undefined);
      expect(entries.every((e) => e.height === 277647 && e.blockhash === block.block.hash)).toBe(
        true,
      );
    } finally {
      await close();
    }
  });

  it("go in parts of at most 4,096 keys, each look-up whole and in order", async () => {
    const { relay, tier, close } = await heldTier();
    try {
      await vi.waitFor(() => expect(tier.ready).toBe(true));
      const block = full.byHeight.get(277647)!;
      const tx = block.block.transactions[7]!;
      tier.set("mainnet", tx.txid, {
        bytes: tx.bytes,
        blockhash: block.block.hash,
        height: block.height,
        blocktime: block.block.time,
      });
      const missing = (n: number, tag: string) =>
        Array.from({ length: n }, (_, i) => `${tag}${String(i).padStart(63 - tag.length, "0")}`);
      const from = relay.sent().length;
      // One turn: 3,000 keys, then 3,000 with the stored one last, then ten.
      const asked = [missing(3_000, "a"), [...missing(2_999, "b"), tx.txid], missing(10, "c")];
      const found = await Promise.all(asked.map((ids) => tier.getMany("mainnet", ids)));
      expect(relay.sent().slice(from).split("\r\nmget\r\n").length - 1).toBe(2);
      expect(found.map((f) => f.length)).toEqual([3_000, 3_000, 10]);
      expect(found.flat().filter((e) => e !== undefined).length).toBe(1);
      expect(found[1]![2_999]?.blockhash).toBe(block.block.hash);
    } finally {
      await close();
    }
  });
});
