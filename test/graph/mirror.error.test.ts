import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { latestAudit } from "../../src/billing/usage/usage.ts";
import { post, startTestGateway, type TestGateway } from "../support/harness.ts";
import { available, type GraphAnswer, viaGateway, viaIndexer } from "./support.ts";

/** Refusals on the graph route: checked before anything is reserved or forwarded, never charged. */
let t: TestGateway;
let token: string;
let accountId: number;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    networks: ["mainnet", "regtest"],
    upstreams: {
      node: { mainnet: ["devnet"], regtest: ["devnet"] },
      graph: { mainnet: ["devnet"] },
    },
    graph: {
      depthMax: 2,
      aliasesMax: 2,
      pageSizeMax: 100,
      complexityMax: 50_000,
      queryTimeoutMs: 500,
    },
  });
  ({ token, id: accountId } = await t.account("careful", 1_000_000));
});
afterAll(() => t.close());

const forwarded = () => t.devnet.indexers.get("mainnet")!.stats.httpRequests;

/** Sends a query that must be refused; checks nothing was forwarded or charged, returns the error. */
async function refused(body: Parameters<typeof viaGateway>[2]) {
  const before = { forwarded: forwarded(), balance: await available(t, accountId) };
  const res = await viaGateway(t, token, body);
  expect(res.status).toBe(200);
  const answer = res.json as GraphAnswer;
  expect(answer).not.toHaveProperty("data");
  expect(answer.errors).toHaveLength(1);
  expect(forwarded()).toBe(before.forwarded);
  expect(await available(t, accountId)).toBe(before.balance);
  expect(res.headers.get("x-credits-charged")).toBe("0");
  const [record] = await latestAudit(t.gateway.app.db, accountId, 1);
  expect(record).toMatchObject({ outcome: "rejected", charged_cc: 0 });
  return answer.errors![0]!;
}

describe("graph route: invalid queries", () => {
  it("refuses what the indexer would refuse, in the indexer's words, without asking it", async () => {
    for (const query of [
      "{ block { hash nope } }",
      "{ block(first: 2) { hash } }",
      '{ block(limit: "2") { hash } }',
      "{ block(where: {height: {_eq: null}}) { hash } }",
      "{ block(",
      "mutation { block { hash } }",
    ]) {
      const direct = await viaIndexer(t, { query });
      expect(await refused({ query })).toEqual(direct.json.errors![0]);
    }
  });

  it("refuses bodies that are not a GraphQL request", async () => {
    expect((await refused("not json")).extensions.code).toBe("invalid-json");
    expect((await refused(JSON.stringify({ variables: {} }))).message).toBe(
      'key "query" not found',
    );
    expect((await refused({ query: "{ block { hash } }", variables: { x: 1 } })).message).toBe(
      "unexpected variables in variableValues: x",
    );
  });
});

describe("graph route: limits", () => {
  it("refuses a limit above the page size instead of cutting it", async () => {
    const error = await refused({ query: "{ block(limit: 101) { hash } }" });
    expect(error).toEqual({
      message:
        "limit 101 is above the maximum page size of 100 rows; ask for at most 100 and page with offset or a height cursor",
      extensions: { path: "$.selectionSet.block.args.limit", code: "page-size-exceeded" },
    });
    const nested = await refused({
      query: "query ($n: Int!) { block(limit: 1) { transactions(limit: $n) { hash } } }",
      variables: { n: 500 },
    });
    expect(nested.extensions.code).toBe("page-size-exceeded");
    expect((await viaGateway(t, token, { query: "{ block(limit: 100) { height } }" })).status).toBe(
      200,
    );
  });

  it("refuses queries nested deeper than depthMax", async () => {
    const error = await refused({
      query: "{ block(limit: 1) { transactions(limit: 1) { hash } } }",
    });
    expect(error.extensions).toEqual({
      path: "$.selectionSet.block.selectionSet.transactions.selectionSet.hash",
      code: "depth-limit-exceeded",
    });
  });

  it("refuses more aliases than aliasesMax", async () => {
    const error = await refused({
      query:
        "{ a: block(limit: 1) { height } b: block(limit: 1) { height } c: block(limit: 1) { height } }",
    });
    expect(error.extensions.code).toBe("alias-limit-exceeded");
  });

  it("refuses a negative limit or offset", async () => {
    const error = await refused({ query: "{ block(offset: -1) { height } }" });
    expect(error.extensions.path).toBe("$.selectionSet.block.args.offset");
  });

  it("refuses a query whose complexity is above complexityMax", async () => {
    // A height range of 100,000 is bounded by the range, not the page size: over the limit.
    const error = await refused({
      query: "{ block(where: {height: {_gte: 0, _lte: 99999}}) { hash height } }",
    });
    expect(error.extensions.code).toBe("complexity-limit-exceeded");
  });

  it("stops parsing a document past tokensMax (found by bench/fuzz: an _in list of 130,000 heights took 5 s)", async () => {
    const heights = (n: number) => Array.from({ length: n }, (_, i) => i).join(",");
    const started = performance.now();
    const error = await refused({
      query: `{ block(where: {height: {_in: [${heights(130_000)}]}}) { height } }`,
    });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(error).toEqual({
      message: expect.stringMatching(/more than 10000 tokens; the limit is 10000/),
      extensions: { code: "token-limit-exceeded", path: "$.query" },
    });
    // Within the bound, the same shape of query is checked as usual (here: over the page size).
    const under = await refused({
      query: `{ block(where: {height: {_in: [${heights(2_000)}]}}, limit: 1000) { height } }`,
    });
    expect(under.extensions.code).toBe("page-size-exceeded");
  });
});

describe("graph route: list items (graphql.listItemsMax, 500)", () => {
  const heights = (n: number) => Array.from({ length: n }, (_, i) => i);

  it("refuses an _in list of 501 heights written in the query", async () => {
    const error = await refused({
      query: `{ block(where: {height: {_in: [${heights(501).join(",")}]}}, limit: 1) { height } }`,
    });
    expect(error).toEqual({
      message:
        "501 items in the list where.height._in; the limit is 500 items in one list: ask for fewer, or send several queries",
      extensions: {
        path: "$.selectionSet.block.args.where.height._in",
        code: "list-items-exceeded",
      },
    });
  });

  it("refuses the same list given as a variable, alone or inside a variable's object", async () => {
    const list = await refused({
      query: "query ($h: [Int!]) { block(where: {height: {_in: $h}}, limit: 1) { height } }",
      variables: { h: heights(100_000) },
    });
    expect(list.extensions).toEqual({
      path: "$.selectionSet.block.args.where.height._in",
      code: "list-items-exceeded",
    });
    expect(list.message).toMatch(/^100000 items in the list where\.height\._in;/);
    const inObject = await refused({
      query: "query ($w: block_bool_exp!) { block(where: $w, limit: 1) { height } }",
      variables: { w: { hash: { _nin: heights(600).map(String) } } },
    });
    expect(inObject.extensions.path).toBe("$.selectionSet.block.args.where.hash._nin");
  });

  it("counts the items of lists inside a list as its own: _or cannot multiply the bound", async () => {
    const error = await refused({
      query: "query ($w: block_bool_exp!) { block(where: $w, limit: 1) { height } }",
      variables: { w: { _or: [0, 1, 2].map(() => ({ height: { _in: heights(200) } })) } },
    });
    expect(error.extensions).toEqual({
      path: "$.selectionSet.block.args.where._or",
      code: "list-items-exceeded",
    });
    expect(error.message).toMatch(/^603 items in the list where\._or;/);
  });

  it("answers a list of exactly 500, given as a variable", async () => {
    const res = await viaGateway(t, token, {
      query: "query ($h: [Int!]) { block(where: {height: {_in: $h}}, limit: 1) { height } }",
      variables: { h: heights(500) },
    });
    const answer = res.json as GraphAnswer;
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({ block: [{ height: 0 }] });
  });
});

describe("graph route: upstream failures", () => {
  it("answers 504 when the indexer is slower than queryTimeoutMs, and charges nothing", async () => {
    const release = t.devnet.indexers.get("mainnet")!.hold();
    try {
      const before = await available(t, accountId);
      const res = await viaGateway(t, token, { query: "{ block(limit: 1) { height } }" });
      expect(res.status).toBe(504);
      expect((res.json as GraphAnswer).errors![0]!.extensions.code).toBe("UPSTREAM_TIMEOUT");
      expect(res.headers.get("x-credits-charged")).toBe("0");
      expect(await available(t, accountId)).toBe(before);
      const [record] = await latestAudit(t.gateway.app.db, accountId, 1);
      expect(record).toMatchObject({
        outcome: "upstream_failure",
        error_code: "UPSTREAM_TIMEOUT",
        charged_cc: 0,
      });
    } finally {
      release();
    }
  });
});

describe("graph route: gateway refusals in GraphQL's shape", () => {
  it("401 for a bad token, 405 for GET, 404 for a network without an indexer", async () => {
    const bad = await post(`${t.url}/graph/mainnet/bgt_nope`, { query: "{ __typename }" });
    expect(bad.status).toBe(401);
    expect(bad.json).toEqual({
      errors: [
        {
          message: "unknown, expired or revoked access token",
          extensions: { code: "UNAUTHENTICATED" },
        },
      ],
    });
    const get = await fetch(`${t.url}/graph/mainnet/${token}`);
    expect(get.status).toBe(405);
    expect(((await get.json()) as GraphAnswer).errors![0]!.extensions.code).toBe(
      "METHOD_NOT_ALLOWED",
    );
    expect((await viaGateway(t, token, { query: "{ __typename }" }, "regtest")).status).toBe(404);
  });
});
