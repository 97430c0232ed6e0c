// The unified API's whole answers about final blocks (src/routes/gateway/answers/,
// src/cache/gateway-answers.ts): a `block` list bounded by height, or a `block_by_pk`, of deep
// blocks is served again without Yoga and without the indexer — byte for byte what Yoga wrote,
// with this call's own charge and balance, charged alike and flagged in the audit row — until a
// reorganisation replaces one of its blocks. What could change (an open range, a shallow block, a
// join to the full node, the account) is executed every time. Indexer queries are counted at
// devnet's indexer, not inferred.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DevnetChain, loadDevnetChain } from "../../src/devnet/chain.ts";
import { auditRecords } from "../support/audit.ts";
import { askDevnetCore, startTestGateway, type TestGateway } from "../support/harness.ts";

const full = loadDevnetChain();
const TEN_BLOCKS =
  "{ block(where: {height: {_gte: 100, _lte: 109}}, order_by: {height: asc}) { hash height timestamp transaction_count size_bytes } }";

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: {
    data?: unknown;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
    extensions?: { cost?: Record<string, unknown> };
  };
}

describe("whole answers about final blocks", () => {
  let t: TestGateway;
  let chain: DevnetChain;
  beforeAll(async () => {
    // A chain of this file's own, so invalidating a block touches no other test's devnet.
    chain = new DevnetChain();
    for (const height of full.heights()) chain.addBlock(full.byHeight.get(height)!.block, height);
    // The tip trusted for 0 ms: every kept answer re-checks the chain, so no test waits.
    t = await startTestGateway(
      "pglite",
      { networks: ["mainnet"], cache: { tipTtlMs: 0 } },
      undefined,
      { chain },
    );
  });
  afterAll(() => t?.close());

  const indexerQueries = () => t.devnet.indexers.get("mainnet")!.stats.queries;
  const ask = async (
    token: string,
    query: string,
    opts: { variables?: Record<string, unknown>; headers?: Record<string, string> } = {},
  ): Promise<Answer> => {
    const res = await fetch(`${t.url}/gateway/mainnet/${token}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...opts.headers },
      body: JSON.stringify({ query, ...(opts.variables ? { variables: opts.variables } : {}) }),
    });
    const text = await res.text();
    // Kept in the background once answered: a test's next request finds it kept.
    await t.gateway.app.gatewayAnswers.idle();
    return { status: res.status, headers: res.headers, text, json: JSON.parse(text) };
  };
  async function audit(accountId: number) {
    const rows = await auditRecords(t.gateway.app.db, { accountId: accountId }, [
      "method",
      "outcome",
      "charged_cc",
      "estimated_cc",
      "complexity",
      "cache_hits",
    ]);
    return rows;
  }

  it("ten deep blocks by height: the second answer comes from the cache, byte for byte, charged alike and flagged", async () => {
    const who = await t.account("ten-blocks", 1_000_000);
    const before = indexerQueries();
    const first = await ask(who.token, TEN_BLOCKS);
    const second = await ask(who.token, TEN_BLOCKS);
    expect(indexerQueries() - before).toBe(1);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    const rows = (first.json.data as { block: { height: number }[] }).block;
    expect(rows.map((b) => b.height)).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 108, 109]);
    expect(rows[0]).toMatchObject({ hash: full.byHeight.get(100)!.block.hash });
    const charged = Number(first.headers.get("x-credits-charged"));
    expect(charged).toBeGreaterThan(0);
    expect(second.headers.get("x-credits-charged")).toBe(String(charged));
    expect(second.headers.get("x-credits-estimated")).toBe(
      first.headers.get("x-credits-estimated"),
    );
    expect(Number(second.headers.get("x-credits-balance"))).toBe(1_000_000 - 2 * charged);
    expect(second.headers.get("content-type")).toBe(first.headers.get("content-type"));
    // The same bytes but for this call's balance.
    const balance = (text: string) => text.replace(/"balance":\d+/, '"balance":B');
    expect(balance(second.text)).toBe(balance(first.text));
    expect(second.json.extensions?.cost).toMatchObject({
      charged,
      balance: 1_000_000 - 2 * charged,
    });
    const audited = await audit(who.id);
    expect(audited.map((r) => [r.method, r.outcome, r.cache_hits])).toEqual([
      ["graphql", "ok", 0],
      ["graphql", "ok", 1],
    ]);
    expect(audited[1]).toMatchObject({
      charged_cc: audited[0]!.charged_cc,
      estimated_cc: audited[0]!.estimated_cc,
      complexity: audited[0]!.complexity,
    });
    expect(t.gateway.app.gatewayAnswers.stats.entries).toBeGreaterThan(0);
  });

  it("a deep block with its transactions joined from the node, bytes only, is kept whole", async () => {
    const who = await t.account("joined", 10_000_000);
    const coreCalls = () => t.devnet.cores.get("mainnet")!.stats.callsRead;
    const query =
      "{ block(where: {height: {_eq: 170}}) { hash height transactions { hash transaction { txid size outputs { n value { sats } scriptPubKey { type address } } } } } }";
    const [indexer, core] = [indexerQueries(), coreCalls()];
    const first = await ask(who.token, query);
    const second = await ask(who.token, query);
    expect(first.json.errors).toBeUndefined();
    expect(indexerQueries() - indexer).toBe(1);
    const joined = coreCalls() - core;
    expect(joined).toBeGreaterThan(0);
    const rows = (first.json.data as { block: { transactions: { hash: string }[] }[] }).block;
    expect(rows[0]!.transactions.length).toBe(full.byHeight.get(170)!.block.transactions.length);
    const balance = (text: string) => text.replace(/"balance":\d+/, '"balance":B');
    expect(balance(second.text)).toBe(balance(first.text));
    expect(second.headers.get("x-credits-charged")).toBe(first.headers.get("x-credits-charged"));
    const audited = await audit(who.id);
    // The hit stands for the indexer's rows and each transaction looked up.
    expect(audited.map((r) => r.cache_hits)).toEqual([0, 1 + rows[0]!.transactions.length]);
    // Where the transactions were mined, or how deep, moves with the chain: executed every time.
    for (const moving of ["blockhash", "confirmations", "time"]) {
      const asked = query.replace("txid size", `txid ${moving}`);
      const before = indexerQueries();
      await ask(who.token, asked);
      await ask(who.token, asked);
      expect(indexerQueries() - before, moving).toBe(2);
    }
  });

  it("block_by_pk of a deep block and heights named by _in or variables are kept too", async () => {
    const who = await t.account("by-hash", 1_000_000);
    const hash = full.byHeight.get(170)!.block.hash;
    const queries: [string, Record<string, unknown> | undefined][] = [
      ["query($h: String!) { block_by_pk(hash: $h) { height size_bytes } }", { h: hash }],
      ["{ b: block(where: {height: {_in: [1, 2, 170]}}) { hash height } __typename }", undefined],
      [
        "query($w: block_bool_exp) { block(where: $w) { height hash transactions(limit: 1) { hash } } }",
        { w: { height: { _eq: 3 } } },
      ],
    ];
    for (const [query, variables] of queries) {
      const before = indexerQueries();
      const first = await ask(who.token, query, variables ? { variables } : {});
      const second = await ask(who.token, query, variables ? { variables } : {});
      expect(first.json.errors).toBeUndefined();
      expect(second.json.data).toEqual(first.json.data);
      expect(indexerQueries() - before, query).toBe(1);
    }
  });

  it("what could change is executed every time: an open range, the tip, a join to the node, the account, a dry run", async () => {
    const who = await t.account("mutable", 10_000_000);
    const tip = chain.tip.height;
    const cases: [string, number][] = [
      ["{ block(order_by: {height: desc}, limit: 3) { hash height } }", 1],
      ["{ block(where: {height: {_gte: 100}}, limit: 3) { hash height } }", 1],
      [`{ block(where: {height: {_eq: ${tip}}}) { hash height } }`, 1],
      // Without `hash` the rows cannot say which blocks they are.
      ["{ block(where: {height: {_eq: 5}}) { height } }", 1],
      ["{ block(where: {height: {_eq: 6}, size_bytes: {_gt: 0}}) { hash height } }", 1],
      [
        "{ block(where: {height: {_eq: 170}}) { hash height transactions(limit: 1) { transaction { txid confirmations } } } }",
        1,
      ],
      ["{ block(where: {height: {_eq: 7}}) { hash height } account { available } }", 1],
    ];
    for (const [query, perRequest] of cases) {
      const before = indexerQueries();
      await ask(who.token, query);
      await ask(who.token, query);
      expect(indexerQueries() - before, query).toBe(2 * perRequest);
    }
    const before = indexerQueries();
    const dry = await ask(who.token, TEN_BLOCKS, { headers: { "x-dry-run": "true" } });
    expect(dry.json.extensions?.cost).toMatchObject({ dryRun: true });
    expect(indexerQueries() - before).toBe(0);
  });

  it("another Accept is another answer: each kept with the type Yoga gave it", async () => {
    const who = await t.account("accept", 1_000_000);
    const query = "{ block(where: {height: {_in: [11, 12]}}) { hash height } }";
    const accept = { accept: "application/graphql-response+json" };
    const before = indexerQueries();
    const plain = [await ask(who.token, query), await ask(who.token, query)];
    const typed = [
      await ask(who.token, query, { headers: accept }),
      await ask(who.token, query, { headers: accept }),
    ];
    expect(indexerQueries() - before).toBe(2);
    expect(plain[1]!.headers.get("content-type")).toBe(plain[0]!.headers.get("content-type"));
    expect(typed[1]!.headers.get("content-type")).toBe(typed[0]!.headers.get("content-type"));
    expect(typed[0]!.headers.get("content-type")).toMatch(/graphql-response\+json/);
  });

  it("a refusal served from the cache is the refusal Yoga gives: status, headers and body", async () => {
    const rich = await t.account("warm", 1_000_000);
    const query = "{ block(where: {height: {_in: [20, 21, 22]}}) { hash height } }";
    await ask(rich.token, query);
    const poor = await t.account("poor", 1);
    const before = indexerQueries();
    const kept = await ask(poor.token, query);
    // The same document with one more space: another key, never kept, so Yoga answers it.
    const viaYoga = await ask(poor.token, query.replace("{ block", "{  block"));
    expect(indexerQueries() - before).toBe(0);
    expect(kept.status).toBe(429);
    expect(kept.status).toBe(viaYoga.status);
    expect(kept.text).toBe(viaYoga.text);
    for (const name of ["content-type", "x-credits-balance", "x-credits-estimated"]) {
      expect(kept.headers.get(name), name).toBe(viaYoga.headers.get(name));
    }
    expect((await audit(poor.id)).map((r) => [r.outcome, r.charged_cc, r.cache_hits])).toEqual([
      ["insufficient_credits", 0, 0],
      ["insufficient_credits", 0, 0],
    ]);
  });

  it("a reorganisation that replaces one of its blocks evicts the answer", async () => {
    const who = await t.account("reorg", 1_000_000);
    const query = "{ block(where: {height: {_gte: 30, _lte: 32}}) { hash height } }";
    const before = indexerQueries();
    await ask(who.token, query);
    await ask(who.token, query);
    expect(indexerQueries() - before).toBe(1);
    const hash = full.byHeight.get(31)!.block.hash;
    await askDevnetCore(t.devnet, "invalidateblock", [hash]);
    try {
      const after = await ask(who.token, query);
      expect(indexerQueries() - before).toBe(2);
      expect(after.status).toBe(200);
    } finally {
      await askDevnetCore(t.devnet, "reconsiderblock", [hash]);
    }
    expect(t.logs.join("")).toMatch(/reorganisation: cached block evicted/);
    const audited = await audit(who.id);
    expect(audited.map((r) => r.cache_hits)).toEqual([0, 1, 0]);
  });
});
