import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { latestAudit } from "../../src/billing/usage/usage.ts";
import { LatestBlocksDocument } from "../../src/generated/operations.ts";
import { execute, gql } from "../support/graphql.ts";
import { BLOCK_170, HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";
import { accountTotals, expectLedgerOk } from "../support/ledger.ts";

/**
 * Blocks in the unified API when something is wrong: short credits, the graph route's limits on
 * delegated selections, input the indexer would refuse, an indexer that is slow or absent. None of
 * it reaches an upstream it should not, and none of it is charged for work not done.
 */
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    networks: ["mainnet", "regtest"],
    upstreams: {
      node: { mainnet: ["devnet"], regtest: ["devnet"] },
      graph: { mainnet: ["devnet"] },
    },
    graph: { pageSizeMax: 100, aliasesMax: 2, complexityMax: 50_000, queryTimeoutMs: 500 },
  });
});
afterAll(() => t.close());

const upstreamCalls = () => ({
  indexer: t.devnet.indexers.get("mainnet")!.stats.httpRequests,
  node: t.devnet.cores.get("mainnet")!.stats.calls,
});

async function account(name: string, credits: number) {
  const { id, token } = await t.account(name, credits);
  const balance = async () => (await accountTotals(t.gateway.app.db, id)).account;
  return { id, url: `${t.url}/gateway/mainnet/${token}`, balance };
}

describe("credits", () => {
  it("429 when the estimate exceeds the balance: no data, nothing forwarded, balance untouched", async () => {
    const a = await account("short", 1000);
    const before = upstreamCalls();
    const res = await execute(a.url, LatestBlocksDocument, { count: 1, transactions: 5 });
    // block 1×2×1; five columns 5 × (2×1×1); transactions 2×2×1; hash, size_bytes 2 × (3×1×5):
    // 46 → 346 CC, and five transactions at 200 CC: 1346 CC.
    expect(res.status).toBe(429);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: "Insufficient credits: 1000 CC available, 1346 CC required",
        extensions: { code: "INSUFFICIENT_CREDITS", balance: 1000, required: 1346 },
      }),
    ]);
    expect(upstreamCalls()).toEqual(before);
    expect(await a.balance()).toEqual({ balance: 1000, held: 0 });
    const [record] = await latestAudit(t.gateway.app.db, a.id, 1);
    expect(record).toMatchObject({
      outcome: "insufficient_credits",
      http_status: 429,
      estimated_cc: 1346,
      charged_cc: 0,
      complexity: 46,
    });
    await expectLedgerOk(t.gateway.app.db, a.id, { balance: 1000, charged: 0 });
  });

  it("at a zero balance { __typename } still answers, a block query does not", async () => {
    const a = await account("broke", 0);
    const free = await gql(a.url, "{ __typename }");
    expect(free.body).toMatchObject({ data: { __typename: "Query" } });
    const paid = await gql(a.url, "{ block(limit: 1) { height } }");
    expect(paid.status).toBe(429);
    expect(paid.body.errors![0]!.extensions).toMatchObject({ balance: 0, required: 304 });
  });
});

describe("the graph route's limits apply to delegated selections", () => {
  let a: Awaited<ReturnType<typeof account>>;
  beforeAll(async () => {
    a = await account("limited", 1_000_000);
  });

  /** Sends a query that must be refused before anything runs; returns its one error. */
  async function refused(query: string, variables: Record<string, unknown> = {}) {
    const before = { calls: upstreamCalls(), balance: await a.balance() };
    const res = await gql(a.url, query, variables);
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors).toHaveLength(1);
    expect(upstreamCalls()).toEqual(before.calls);
    expect(await a.balance()).toEqual(before.balance);
    return res.body.errors![0]!;
  }

  it("a limit above pageSizeMax is refused, at any depth, never cut", async () => {
    const top = await refused("{ block(limit: 101) { height } }");
    expect(top.extensions).toMatchObject({ code: "LIMIT_EXCEEDED", limit: "page-size-exceeded" });
    expect(top.message).toContain("limit 101 is above the maximum page size of 100 rows");
    const nested = await refused(
      `query ($n: Int!) { block_by_pk(hash: "${BLOCK_170}") { transactions(limit: $n) { hash } } }`,
      { n: 500 },
    );
    expect(nested.extensions).toMatchObject({ limit: "page-size-exceeded" });
  });

  it("more aliased indexer fields than aliasesMax", async () => {
    const error = await refused(
      `{ a: block(limit: 1) { height } b: block(limit: 1) { h: height } c: block_by_pk(hash: "${BLOCK_170}") { height } }`,
    );
    expect(error.extensions).toMatchObject({
      code: "LIMIT_EXCEEDED",
      limit: "alias-limit-exceeded",
    });
  });

  it("an indexer share above complexityMax", async () => {
    const error = await refused(
      "{ block(where: {height: {_gte: 0, _lte: 99999}}) { hash height } }",
    );
    expect(error.extensions).toMatchObject({
      code: "LIMIT_EXCEEDED",
      limit: "complexity-limit-exceeded",
    });
  });

  it("a join under lists that could hold more transactions than listItemsMax", async () => {
    const error = await refused(
      "{ block(limit: 100) { transactions(limit: 100) { transaction { txid } } } }",
    );
    expect(error).toMatchObject({
      message: "block.transactions.transaction: 10000 items asked, at most 500 in one request",
      extensions: { code: "LIMIT_EXCEEDED", limit: 500 },
    });
  });

  it("an _in list longer than listItemsMax, written in the document or given as a variable", async () => {
    const heights = (n: number) => Array.from({ length: n }, (_, i) => i);
    const literal = await refused(
      `{ block(where: {height: {_in: [${heights(600).join(",")}]}}, limit: 1) { height } }`,
    );
    expect(literal).toMatchObject({
      message: "block: 600 items in the list where.height._in, at most 500 in one list",
      extensions: { code: "LIMIT_EXCEEDED", limit: 500, at: "block.where.height._in" },
    });
    const variable = await refused(
      "query ($h: [Int!]) { block(where: {height: {_in: $h}}, limit: 1) { height } }",
      { h: heights(100_000) },
    );
    expect(variable).toMatchObject({
      message: "block: 100000 items in the list where.height._in, at most 500 in one list",
      extensions: { code: "LIMIT_EXCEEDED", limit: 500 },
    });
    const nested = await refused(
      `query ($w: block_transaction_bool_exp!) { block_by_pk(hash: "${BLOCK_170}") { transactions(where: $w) { hash } } }`,
      {
        w: {
          _or: [
            { hash: { _in: heights(300).map(String) } },
            { size_bytes: { _nin: heights(300) } },
          ],
        },
      },
    );
    expect(nested.extensions).toMatchObject({
      code: "LIMIT_EXCEEDED",
      at: "block_by_pk.transactions.where._or",
    });
    const [record] = await latestAudit(t.gateway.app.db, a.id, 1);
    expect(record).toMatchObject({
      outcome: "rejected",
      error_code: "LIMIT_EXCEEDED",
      charged_cc: 0,
    });
  });

  it("a negative limit or offset, an explicit null: refused as Hasura refuses them, in its words", async () => {
    expect(await refused("{ block(offset: -1) { height } }")).toMatchObject({
      message: 'expected a non-negative integer for type "Int", but found a negative integer',
      extensions: { code: "BAD_USER_INPUT", at: "$.selectionSet.block.args.offset" },
    });
    expect(
      await refused(
        `query ($n: Int) { block_by_pk(hash: "${BLOCK_170}") { transactions(limit: $n) { hash } } }`,
      ),
    ).toMatchObject({
      message: 'expected a 32-bit integer for type "Int", but found null',
      extensions: {
        code: "BAD_USER_INPUT",
        at: "$.selectionSet.block_by_pk.selectionSet.transactions.args.limit",
      },
    });
    expect(await refused("{ block(where: {height: {_eq: null}}) { height } }")).toMatchObject({
      message: 'expected a 32-bit integer for type "Int", but found null',
      extensions: { code: "BAD_USER_INPUT", at: "$.selectionSet.block.args.where.height._eq" },
    });
  });

  it("a filter on a column the indexer does not have fails validation", async () => {
    const res = await gql(a.url, "{ block(where: {color: {_eq: 1}}) { height } }");
    expect(res.status).toBe(400);
    expect(res.body.errors![0]!.extensions!.code).toBe("GRAPHQL_VALIDATION_FAILED");
  });
});

describe("indexer failures", () => {
  it("an indexer slower than graph.queryTimeoutMs: UPSTREAM_TIMEOUT at the field, not charged", async () => {
    const a = await account("patient", 10_000);
    const release = t.devnet.indexers.get("mainnet")!.hold();
    try {
      const res = await gql(a.url, "{ block(limit: 1) { height } account { name } }");
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({ block: null, account: { name: "patient" } });
      expect(res.body.errors).toEqual([
        expect.objectContaining({ path: ["block"], extensions: { code: "UPSTREAM_TIMEOUT" } }),
      ]);
      expect(res.body.extensions?.cost).toEqual({
        complexity: 0,
        estimated: 304,
        actual: 0,
        charged: 0,
        balance: 10_000,
        calls: [],
      });
      const [record] = await latestAudit(t.gateway.app.db, a.id, 1);
      expect(record).toMatchObject({
        outcome: "upstream_error",
        error_code: "UPSTREAM_TIMEOUT",
        charged_cc: 0,
        complexity: 0,
      });
    } finally {
      release();
    }
  });

  it("a network without an indexer: UPSTREAM_UNAVAILABLE, not charged; its transactions still work", async () => {
    const { token } = await t.account("regtester", 10_000);
    const res = await gql(
      `${t.url}/gateway/regtest/${token}`,
      `{ block_by_pk(hash: "${BLOCK_170}") { height } }`,
    );
    expect(res.body.data).toEqual({ block_by_pk: null });
    expect(res.body.errors![0]).toMatchObject({
      path: ["block_by_pk"],
      extensions: { code: "UPSTREAM_UNAVAILABLE" },
    });
    // block_by_pk 1×1×1 + height 2×1×1 at regtest's half price: 150 + ceil(3 × 0.5)
    expect(res.body.extensions?.cost).toMatchObject({ estimated: 152, charged: 0 });
  });
});

describe("graph.depthMax on delegated selections", () => {
  it("counts depth from the indexer query each site becomes, and refuses past it", async () => {
    const shallow = await startTestGateway("pglite", { graph: { depthMax: 2 } });
    try {
      const { token } = await shallow.account("shallow", 100_000);
      const url = `${shallow.url}/gateway/mainnet/${token}`;
      // block → height is depth 2 in the indexer's terms, wherever the site sits in the document.
      const fine = await gql(
        url,
        `{ transaction(txid: "${HAL_TXID}") { block { height } } block(limit: 1) { height } }`,
      );
      expect(fine.body.errors).toBeUndefined();
      const deep = await gql(url, "{ block(limit: 1) { transactions(limit: 1) { hash } } }");
      expect(deep.body.errors![0]).toMatchObject({
        message: "the query is nested 3 levels deep; the limit is 2",
        extensions: { code: "LIMIT_EXCEEDED", limit: "depth-limit-exceeded" },
      });
    } finally {
      await shallow.close();
    }
  });
});
