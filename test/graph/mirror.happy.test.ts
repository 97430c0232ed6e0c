import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLOCK_170, startTestGateway, type TestGateway } from "../support/harness.ts";
import { type GraphAnswer, type GraphBody, viaGateway, viaIndexer } from "./support.ts";

/** The spec's graph queries (§4.4) through the gateway answer exactly what the indexer answers. */
let t: TestGateway;
let token: string;
beforeAll(async () => {
  t = await startTestGateway();
  ({ token } = await t.account("explorer", 10_000_000));
});
afterAll(() => t.close());

/** Asks the gateway and the indexer the same thing; returns the gateway's answer after comparing. */
async function same(body: GraphBody): Promise<GraphAnswer> {
  const direct = await viaIndexer(t, body);
  const res = await viaGateway(t, token, body);
  expect(res.status).toBe(200);
  const answer = res.json as GraphAnswer;
  expect(direct.json.data).toBeDefined();
  expect(answer.data).toEqual(direct.json.data);
  // Keys in the order asked for, as the indexer gave them.
  expect(JSON.stringify(answer.data)).toBe(JSON.stringify(direct.json.data));
  expect(answer.extensions?.cost.charged).toBeGreaterThan(0);
  return answer;
}

describe("graph route: the spec's queries", () => {
  it("gives the latest block with transactions(limit:) as an array of one block", async () => {
    const answer = await same({
      query: `{ block(limit: 1, order_by: {height: desc}) {
        hash height timestamp transaction_count size_bytes
        transactions(limit: 5) { hash size_bytes input_count output_count } } }`,
    });
    const blocks = answer.data!.block as { height: number; transactions: unknown[] }[];
    expect(Object.keys(answer.data!)).toEqual(["block"]);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]!.height).toBe(951658);
    expect(blocks[0]!.transactions).toHaveLength(5);
  });

  it("takes a height range with _gte and _lte", async () => {
    const answer = await same({
      query:
        "{ block(where: {height: {_gte: 250, _lte: 255}}, order_by: {height: asc}) { height hash timestamp } }",
    });
    expect((answer.data!.block as { height: number }[]).map((b) => b.height)).toEqual([
      250, 251, 252, 253, 254, 255,
    ]);
  });

  it("finds a block by hash with block_by_pk, null when there is none", async () => {
    const answer = await same({
      query: `{ block_by_pk(hash: "${BLOCK_170}") { height transaction_count } }`,
    });
    expect(answer.data).toEqual({ block_by_pk: { height: 170, transaction_count: 2 } });
    const missing = await same({ query: `{ block_by_pk(hash: "${"ab".repeat(32)}") { height } }` });
    expect(missing.data).toEqual({ block_by_pk: null });
  });

  it("passes variables, operationName, aliases and fragments through", async () => {
    await same({
      query: `query Other { block(limit: 1) { height } }
        query Page($from: Int!, $n: Int!) {
          low: block(where: {height: {_gte: $from}}, limit: $n) { ...F }
          tip: block(order_by: {height: desc}, limit: 1) { height }
        }
        fragment F on block { height hash transactions(limit: 1) { hash } }`,
      variables: { from: 10, n: 3 },
      operationName: "Page",
    });
  });
});

describe("graph route: pagination", () => {
  const all = async () => {
    const res = await viaIndexer(t, {
      query: "{ block(order_by: {height: asc}) { height hash } }",
    });
    return res.json.data!.block as { height: number; hash: string }[];
  };

  it("pages with limit and offset", async () => {
    const expected = (await all()).slice(0, 250);
    const pages: unknown[] = [];
    for (let offset = 0; offset < 250; offset += 50) {
      const answer = await same({
        query:
          "query ($o: Int!) { block(order_by: {height: asc}, limit: 50, offset: $o) { height hash } }",
        variables: { o: offset },
      });
      pages.push(...(answer.data!.block as unknown[]));
    }
    expect(pages).toEqual(expected);
  });

  it("pages with a cursor: the last height seen carried into the next where", async () => {
    const expected = await all();
    const seen: { height: number; hash: string }[] = [];
    let cursor = -1;
    for (;;) {
      const answer = await same({
        query: `query ($after: Int!) {
          block(where: {height: {_gt: $after}}, order_by: {height: asc}, limit: 40) { height hash } }`,
        variables: { after: cursor },
      });
      const page = answer.data!.block as { height: number; hash: string }[];
      if (page.length === 0) break;
      seen.push(...page);
      cursor = page[page.length - 1]!.height;
    }
    expect(seen).toEqual(expected);
    expect(seen).toHaveLength(264);
  });
});

describe("graph route: introspection", () => {
  it("answers introspection alone from the schema, free and without the indexer", async () => {
    const indexer = t.devnet.indexers.get("mainnet")!;
    const before = indexer.stats.httpRequests;
    const res = await viaGateway(t, token, {
      query: '{ __typename __type(name: "block") { fields { name } } }',
    });
    const answer = res.json as GraphAnswer;
    expect(answer.data).toEqual({
      __typename: "query_root",
      __type: {
        fields: [
          "hash",
          "height",
          "timestamp",
          "transaction_count",
          "size_bytes",
          "transactions",
        ].map((name) => ({ name })),
      },
    });
    expect(answer.extensions?.cost).toMatchObject({ complexity: 0, charged: 0 });
    expect(indexer.stats.httpRequests).toBe(before);
  });
});
