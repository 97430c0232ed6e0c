import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { gql } from "../support/graphql.ts";
import { HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";

/**
 * The cost estimate and the limit checks on delegated selections are memoised per document and
 * the operation's variables (src/routes/gateway/cost/estimate-memo.ts). Every case sends one document
 * text again and again, so Yoga's parser cache hands the memo the same DocumentNode each time:
 * what varies must still be priced and limited afresh.
 *
 * Prices on mainnet: a graph query is 300 + complexity, and `block(limit: n) { height }` has
 * complexity 2 (the block select, weight 2, depth 1) + 2n (height, depth 2, n rows); a
 * getrawtransaction is 200 CC on mainnet and 100 on testnet.
 */
let t: TestGateway;
let token: string;
let url: string;
beforeAll(async () => {
  t = await startTestGateway("pglite", { graph: { pageSizeMax: 100 } });
  ({ token } = await t.account("memo", 10_000_000));
  url = `${t.url}/gateway/mainnet/${token}`;
});
afterAll(() => t.close());

const indexerRequests = () => t.devnet.indexers.get("mainnet")!.stats.httpRequests;
const BLOCKS = "query ($n: Int!) { block(limit: $n, order_by: {height: asc}) { height } }";
const estimateOf = async (
  query: string,
  variables: Record<string, unknown>,
  at = url,
): Promise<unknown> =>
  (await gql(at, query, variables, { "x-dry-run": "true" })).body.extensions?.cost?.estimated;

describe("memoised estimates", () => {
  it("one document, different variables: each set its own estimate, charged as estimated", async () => {
    for (let round = 0; round < 2; round++) {
      expect(await estimateOf(BLOCKS, { n: 2 })).toBe(306);
      expect(await estimateOf(BLOCKS, { n: 5 })).toBe(312);
      expect(await estimateOf(BLOCKS, { n: 1 })).toBe(304);
    }
    const five = await gql(url, BLOCKS, { n: 5 });
    expect(five.body.data).toEqual({ block: [0, 1, 2, 3, 4].map((height) => ({ height })) });
    expect(five.body.extensions?.cost).toMatchObject({ estimated: 312, charged: 312 });
    const two = await gql(url, BLOCKS, { n: 2 });
    expect(two.body.extensions?.cost).toMatchObject({ estimated: 306, charged: 306 });
  });

  it("@include on a variable prices what the variables select", async () => {
    const query =
      "query ($tx: Boolean!) { block(limit: 2) { height transactions(limit: 3) @include(if: $tx) { hash } } }";
    for (let round = 0; round < 2; round++) {
      // 2 + 4 (height) + 8 (transactions: depth 2, weight 2, 2 rows) + 18 (hash: depth 3, 6 rows)
      expect(await estimateOf(query, { tx: true })).toBe(332);
      expect(await estimateOf(query, { tx: false })).toBe(306);
    }
  });

  it("a list variable's length prices the lookups; undeclared variables change nothing", async () => {
    const chain = loadDevnetChain();
    const txids = chain.byHeight
      .get(277647)!
      .block.transactions.slice(0, 3)
      .map((tx) => tx.txid);
    const query = "query ($txids: [TxId!]!) { transactions(txids: $txids) { txid } }";
    for (let round = 0; round < 2; round++) {
      expect(await estimateOf(query, { txids: [HAL_TXID] })).toBe(200);
      expect(await estimateOf(query, { txids })).toBe(600);
      expect(await estimateOf(query, { txids, unused: round })).toBe(600);
    }
  });

  it("the network's prices apply to the same document", async () => {
    const query = `{ transactions(txids: ["${HAL_TXID}"]) { txid } }`;
    const testnet = `${t.url}/gateway/testnet/${token}`;
    for (let round = 0; round < 2; round++) {
      expect(await estimateOf(query, {})).toBe(200);
      expect(await estimateOf(query, {}, testnet)).toBe(100);
    }
  });

  it("a limit check follows the variables: refused, allowed, refused again, nothing sent", async () => {
    for (let round = 0; round < 2; round++) {
      const before = indexerRequests();
      const over = await gql(url, BLOCKS, { n: 101 });
      expect(over.body.data).toBeUndefined();
      expect(over.body.errors?.[0]?.extensions).toMatchObject({
        code: "LIMIT_EXCEEDED",
        limit: "page-size-exceeded",
      });
      expect(indexerRequests()).toBe(before);
      const within = await gql(url, BLOCKS, { n: 3 });
      expect(within.body.errors).toBeUndefined();
      expect(within.body.data?.block).toHaveLength(3);
    }
  });

  it("an explicit null is refused as Hasura refuses it, whatever was memoised for a value", async () => {
    const query = "query ($n: Int) { block(limit: $n, order_by: {height: asc}) { height } }";
    for (let round = 0; round < 2; round++) {
      const three = await gql(url, query, { n: 3 });
      expect(three.body.data?.block).toHaveLength(3);
      const none = await gql(url, query, { n: null });
      expect(none.body.errors?.[0]?.extensions).toMatchObject({ code: "BAD_USER_INPUT" });
    }
  });
});
