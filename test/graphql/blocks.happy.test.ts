import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { latestAudit } from "../../src/billing/usage/usage.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import {
  BlocksAfterDocument,
  LatestBlocksDocument,
  TransactionBlockDocument,
} from "../../src/generated/operations.ts";
import { type GraphAnswer, viaGateway, viaIndexer } from "../graph/support.ts";
import { execute, gql } from "../support/graphql.ts";
import { BLOCK_170, HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf, expectLedgerOk } from "../support/ledger.ts";

/**
 * Blocks in the unified API, delegated to devnet's indexer: the spec's graph queries answer what
 * the graph route and the indexer answer, at the graph route's price; joins to full transactions
 * go to the node in JSON-RPC batches and cost the hand-computed formula.
 *
 * Prices on mainnet: a graph price of 300 + complexity, complexity as the graph route computes it
 * (depth × weight × enclosing list sizes; weight 2 for the block select and the transactions join,
 * else 1), and 200 CC per transaction looked up on the full node.
 */
let t: TestGateway;
let token: string;
let accountId: number;
let url: string;
beforeAll(async () => {
  // No response cache: these tests count the round trips to Core, and filling the cache from
  // answers adds its own (getblockhash checks); the cache is tested in test/cache/.
  t = await startTestGateway("pglite", { cache: { bytesMax: 0 } });
  ({ token, id: accountId } = await t.account("explorer", 10_000_000));
  url = `${t.url}/gateway/mainnet/${token}`;
});
afterAll(() => t.close());

const indexerRequests = () => t.devnet.indexers.get("mainnet")!.stats.httpRequests;
const core = () => t.devnet.cores.get("mainnet")!.stats;
const chain = loadDevnetChain();
const BLOCK_277647 = chain.byHeight.get(277647)!.block;

async function available(): Promise<number> {
  return (await balanceOf(t.gateway.app.db, accountId)).available;
}

/**
 * Asks the unified API and the graph route the same query: the data must be the same, to the
 * order of keys, and so must the price (the graph route's code prices both).
 */
async function same(query: string, variables: Record<string, unknown> = {}) {
  const graph = (await viaGateway(t, token, { query, variables })).json as GraphAnswer;
  const before = await available();
  const unified = await gql(url, query, variables);
  expect(unified.status).toBe(200);
  expect(unified.body.errors).toBeUndefined();
  expect(graph.data).toBeDefined();
  expect(JSON.stringify(unified.body.data)).toBe(JSON.stringify(graph.data));
  const price = graph.extensions!.cost.charged;
  expect(unified.body.extensions?.cost).toEqual({
    complexity: graph.extensions!.cost.complexity,
    estimated: price,
    actual: price,
    charged: price,
    balance: before - price,
    calls: [{ method: "graph", count: expect.any(Number), subtotal: price }],
  });
  return unified.body.data as Record<string, unknown>;
}

describe("blocks in the unified API: the spec's queries", () => {
  it("the latest block with transactions(limit:), as the graph route gives it", async () => {
    const data = await same(`{ block(limit: 1, order_by: {height: desc}) {
      hash height timestamp transaction_count size_bytes
      transactions(limit: 5) { hash size_bytes input_count output_count } } }`);
    const [tip] = data.block as { height: number; transactions: unknown[] }[];
    expect(tip!.height).toBe(951658);
    expect(tip!.transactions).toHaveLength(5);
  });

  it("a height range with _gte and _lte", async () => {
    const data = await same(
      "{ block(where: {height: {_gte: 250, _lte: 255}}, order_by: {height: asc}) { height hash timestamp } }",
    );
    expect((data.block as { height: number }[]).map((b) => b.height)).toEqual([
      250, 251, 252, 253, 254, 255,
    ]);
  });

  it("block_by_pk, null when there is no such block", async () => {
    expect(
      await same(`{ block_by_pk(hash: "${BLOCK_170}") { height transaction_count } }`),
    ).toEqual({ block_by_pk: { height: 170, transaction_count: 2 } });
    expect(await same(`{ block_by_pk(hash: "${"ab".repeat(32)}") { height } }`)).toEqual({
      block_by_pk: null,
    });
  });

  it("passes Hasura-typed variables, aliases and operationName through; root fields share one indexer round trip", async () => {
    const query = `query Page($w: block_bool_exp!, $o: [block_order_by!], $n: Int!) {
      low: block(where: $w, order_by: $o, limit: $n) { height hash transactions(limit: 1, order_by: {size_bytes: desc}) { hash size_bytes } }
      tip: block(order_by: {height: desc}, limit: 1) { height }
      one: block_by_pk(hash: "${BLOCK_170}") { height }
    }`;
    const variables = {
      w: { _or: [{ height: { _lt: 3 } }, { height: { _in: [100, 200] } }] },
      o: [{ height: "desc" }],
      n: 4,
    };
    const before = indexerRequests();
    const data = await same(query, variables);
    expect(indexerRequests() - before).toBe(2); // one from the graph route, one from the unified API
    expect((data.low as { height: number }[]).map((b) => b.height)).toEqual([200, 100, 2, 1]);
  });

  it("fragments on Block and BlockTransaction: the indexer's own types under the unified names", async () => {
    const unified = await gql(
      url,
      `{ block(where: {height: {_eq: 170}}) { ...B } }
       fragment B on Block { height ... on Block { transactions { ...T } } }
       fragment T on BlockTransaction { hash input_count }`,
    );
    const graph = await viaGateway(t, token, {
      query: `{ block(where: {height: {_eq: 170}}) { ...B } }
       fragment B on block { height ... on block { transactions { ...T } } }
       fragment T on block_transaction { hash input_count }`,
    });
    expect(unified.body.data).toEqual((graph.json as GraphAnswer).data);
    expect(unified.body.extensions?.cost).toMatchObject({
      complexity: (graph.json as GraphAnswer).extensions!.cost.complexity,
    });
  });

  it("an operation's variable defaults reach @include and the arguments, as the executor applies them", async () => {
    const res = await gql(
      url,
      `query ($n: Int = 2, $size: Boolean = false) {
        block(limit: $n, order_by: {height: asc}) { height size_bytes @include(if: $size) }
      }`,
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data).toEqual({ block: [{ height: 0 }, { height: 1 }] });
  });

  it("pages with limit and offset", async () => {
    const direct = await viaIndexer(t, {
      query: "{ block(order_by: {height: asc}) { height hash } }",
    });
    const all = direct.json.data!.block as { height: number; hash: string }[];
    const pages: unknown[] = [];
    for (let offset = 0; offset < 250; offset += 50) {
      const data = await same(
        "query ($o: Int!) { block(order_by: {height: asc}, limit: 50, offset: $o) { height hash } }",
        { o: offset },
      );
      pages.push(...(data.block as unknown[]));
    }
    expect(pages).toEqual(all.slice(0, 250));
  });

  it("pages with a cursor (the typed BlocksAfter operation): all 264 blocks, in order", async () => {
    const direct = await viaIndexer(t, {
      query: "{ block(order_by: {height: asc}) { hash height timestamp transaction_count } }",
    });
    const seen: unknown[] = [];
    let after = -1;
    for (;;) {
      const res = await execute(url, BlocksAfterDocument, { after, limit: 60 });
      expect(res.body.errors).toBeUndefined();
      const page = res.body.data!.block!;
      if (page.length === 0) break;
      seen.push(...page);
      after = page[page.length - 1]!.height;
    }
    expect(seen).toEqual(direct.json.data!.block);
    expect(seen).toHaveLength(264);
  });

  it("{ block { __typename } } reaches the indexer, so it costs the graph price: 300 + 2", async () => {
    const res = await gql(url, "{ block(limit: 1) { __typename } }");
    expect(res.body.data).toEqual({ block: [{ __typename: "Block" }] });
    expect(res.body.extensions?.cost).toMatchObject({ complexity: 2, charged: 302 });
  });
});

describe("joins", () => {
  it("a block's transactions joined to full Transactions: ceil(N / batchSize) round trips, the formula's price", async () => {
    const n = 120;
    const batchSize = t.gateway.app.config.graphql.batchSize;
    const before = { core: { ...core() }, indexer: indexerRequests(), balance: await available() };
    const res = await gql<{
      block_by_pk: {
        height: number;
        transactions: {
          hash: string;
          size_bytes: number;
          input_count: number;
          output_count: number;
          transaction: { txid: string; size: number; inputs: unknown[]; outputs: unknown[] };
        }[];
      };
    }>(
      url,
      `query ($h: String!, $n: Int!) { block_by_pk(hash: $h) { height
        transactions(limit: $n) { hash size_bytes input_count output_count
          transaction { txid size inputs { index } outputs { n } } } } }`,
      { h: BLOCK_277647.hash, n },
    );
    expect(res.body.errors).toBeUndefined();
    const rows = res.body.data!.block_by_pk.transactions;
    expect(rows.map((r) => r.hash)).toEqual(
      BLOCK_277647.transactions.slice(0, n).map((x) => x.txid),
    );
    for (const row of rows) {
      expect(row.transaction.txid).toBe(row.hash);
      expect(row.transaction.size).toBe(row.size_bytes);
      expect(row.transaction.inputs).toHaveLength(row.input_count);
      expect(row.transaction.outputs).toHaveLength(row.output_count);
    }
    expect(core().httpRequests - before.core.httpRequests).toBe(Math.ceil(n / batchSize));
    expect(core().calls - before.core.calls).toBe(n);
    expect(indexerRequests() - before.indexer).toBe(1);
    // block_by_pk 1×1×1; height 2×1×1; transactions 2×2×1; hash, size_bytes, input_count and
    // output_count 4 × (3×1×120); the join is not the indexer's: 120 × 200 CC.
    const complexity = 1 + 2 + 4 + 4 * (3 * 1 * n);
    const price = 300 + complexity + n * 200;
    expect(res.body.extensions?.cost).toEqual({
      complexity,
      estimated: price,
      actual: price,
      charged: price,
      balance: before.balance - price,
      calls: [
        { method: "getrawtransaction", count: n, unitPrice: 200, subtotal: n * 200 },
        { method: "graph", count: 1, subtotal: 300 + complexity },
      ],
    });
    const [record] = await latestAudit(t.gateway.app.db, accountId, 1);
    expect(record).toMatchObject({
      backend: "gateway",
      method: "graphql",
      outcome: "ok",
      complexity,
      estimated_cc: price,
      charged_cc: price,
    });
  });

  it("a join needs no column of the row selected, directly or in a fragment", async () => {
    const txids = chain.byHash.get(BLOCK_170)!.block.transactions.map((x) => x.txid);
    const direct = await gql<{
      block_by_pk: { transactions: { transaction: { txid: string } }[] };
    }>(url, `{ block_by_pk(hash: "${BLOCK_170}") { transactions { transaction { txid } } } }`);
    expect(direct.body.data!.block_by_pk.transactions.map((r) => r.transaction.txid)).toEqual(
      txids,
    );
    const spread = await gql<{ block: { transactions: { t: { txid: string } }[] }[] }>(
      url,
      `{ block(where: {height: {_eq: 170}}) { transactions { ...J } } }
       fragment J on BlockTransaction { t: transaction { txid } }`,
    );
    expect(spread.body.data!.block[0]!.transactions.map((r) => r.t.txid)).toEqual(txids);
  });

  it("the typed LatestBlocks operation: two blocks' transactions in one batch to the node", async () => {
    const before = { core: { ...core() }, balance: await available() };
    const res = await execute(url, LatestBlocksDocument, { count: 2, transactions: 3 });
    expect(res.body.errors).toBeUndefined();
    const blocks = res.body.data!.block!;
    expect(blocks.map((b) => b.height)).toEqual([951658, 702861]);
    for (const b of blocks) {
      const held = chain.byHeight.get(b.height)!.block;
      expect(b.transactions.map((x) => x.transaction!.txid)).toEqual(
        held.transactions.slice(0, 3).map((x) => x.txid),
      );
    }
    expect(core().httpRequests - before.core.httpRequests).toBe(1);
    // block 1×2×1; five columns 5 × (2×1×2); transactions 2×2×2; hash, size_bytes 2 × (3×1×(2×3));
    // six transactions joined at 200 CC.
    const complexity = 2 + 5 * 4 + 8 + 2 * 18;
    expect(res.body.extensions?.cost).toMatchObject({
      complexity,
      estimated: 300 + complexity + 6 * 200,
      charged: 300 + complexity + 6 * 200,
    });
    expect(await available()).toBe(before.balance - (300 + complexity + 6 * 200));
  });

  it("Transaction.block: block_by_pk per distinct block, all in one indexer round trip", async () => {
    const coinbase = (height: number) => chain.byHeight.get(height)!.block.transactions[0]!.txid;
    const mempool = [...chain.mempool.keys()][0]!;
    const txids = [HAL_TXID, coinbase(100), coinbase(170), mempool];
    const before = { indexer: indexerRequests(), balance: await available() };
    const res = await gql<{
      transactions: {
        txid: string;
        blockhash: string | null;
        block: { hash: string; height: number } | null;
      }[];
    }>(
      url,
      "query ($t: [TxId!]!) { transactions(txids: $t) { txid blockhash block { hash height } } }",
      {
        t: txids,
      },
    );
    expect(res.body.errors).toBeUndefined();
    const txs = res.body.data!.transactions;
    expect(txs.map((x) => x.block?.height ?? null)).toEqual([170, 100, 170, null]);
    for (const x of txs) expect(x.block?.hash ?? null).toBe(x.blockhash);
    expect(indexerRequests() - before.indexer).toBe(1);
    // Each Transaction.block is block_by_pk 1×1×1 + hash, height 2 × (2×1×1) = 5, priced for the
    // 4 transactions; looked up for the 2 distinct blocks (the mempool one has none).
    expect(res.body.extensions?.cost).toEqual({
      complexity: 2 * 5,
      estimated: 4 * 200 + 300 + 4 * 5,
      actual: 4 * 200 + 300 + 2 * 5,
      charged: 4 * 200 + 300 + 2 * 5,
      balance: before.balance - (4 * 200 + 300 + 2 * 5),
      calls: [
        { method: "getrawtransaction", count: 4, unitPrice: 200, subtotal: 800 },
        { method: "graph", count: expect.any(Number), subtotal: 300 + 2 * 5 },
      ],
    });
  });

  it("the typed TransactionBlock operation", async () => {
    const res = await execute(url, TransactionBlockDocument, { txid: HAL_TXID });
    expect(res.body.data!.transaction).toMatchObject({
      txid: HAL_TXID,
      block: { hash: BLOCK_170, height: 170, timestamp: chain.byHash.get(BLOCK_170)!.block.time },
    });
  });

  it("a mempool transaction's block is null and costs no graph price", async () => {
    const mempool = [...chain.mempool.keys()][0]!;
    const before = indexerRequests();
    const res = await gql(url, `{ transaction(txid: "${mempool}") { status block { height } } }`);
    expect(res.body.data).toEqual({ transaction: { status: "MEMPOOL", block: null } });
    expect(res.body.extensions?.cost).toMatchObject({ complexity: 0, actual: 200, charged: 200 });
    expect(indexerRequests()).toBe(before);
  });

  it("the worked example of docs/users/gateway.md: estimated 1550 CC, charged 1538 CC", async () => {
    const query = `{ block(limit: 2, order_by: {height: desc}) { height
        transactions(limit: 3) { hash transaction { txid block { height } } } } }`;
    const words = (text: string) => text.replace(/\s+/g, " ");
    const page = words(readFileSync("docs/users/gateway.md", "utf8"));
    expect(page).toContain(words(query));
    expect(page).toContain("1550 CC");
    expect(page).toContain("1538 CC is charged");
    const before = { indexer: indexerRequests(), balance: await available() };
    const res = await gql(url, query);
    expect(res.body.errors).toBeUndefined();
    // block: 1×2×1 + height 2×1×2 + transactions 2×2×2 + hash 3×1×6 = 32; Transaction.block:
    // block_by_pk 1 + height 2 = 3, priced for 6, looked up for the 2 distinct blocks.
    expect(res.body.extensions?.cost).toEqual({
      complexity: 32 + 2 * 3,
      estimated: 300 + 32 + 6 * 3 + 6 * 200,
      actual: 300 + 32 + 2 * 3 + 6 * 200,
      charged: 1538,
      balance: before.balance - 1538,
      // The page's worked example, line by line.
      calls: [
        { method: "getrawtransaction", count: 6, unitPrice: 200, subtotal: 1200 },
        { method: "graph", count: expect.any(Number), subtotal: 300 + 32 + 2 * 3 },
      ],
    });
    // The root field, then the two block lookups together.
    expect(indexerRequests() - before.indexer).toBe(2);
  });

  it("a dry run itemizes the joins and the indexer sites, and runs nothing", async () => {
    const before = { core: core().calls, indexer: indexerRequests(), balance: await available() };
    const res = await gql(
      url,
      `{ block(limit: 2) { height transactions(limit: 3) { transaction { txid block { height } } } } }`,
      {},
      { "x-dry-run": "true" },
    );
    expect(res.body.data).toBeNull();
    // block: 1×2×1 + height 2×1×2 + transactions 2×2×2 = 14; each Transaction.block 1 + 2 = 3, for
    // 2 × 3 transactions: 18. Six joins at 200 CC.
    expect(res.body.extensions?.cost).toEqual({
      dryRun: true,
      estimated: 300 + 14 + 18 + 6 * 200,
      balance: before.balance,
      breakdown: [
        {
          path: "block.transactions.transaction",
          method: "getrawtransaction",
          count: 6,
          unitPrice: 200,
          subtotal: 1200,
        },
        { path: "block", method: "graph", rootField: "block", count: 1, complexity: 14 },
        {
          path: "block.transactions.transaction.block",
          method: "graph",
          rootField: "block_by_pk",
          count: 6,
          complexity: 3,
        },
      ],
      graph: { complexity: 32, price: 332 },
    });
    expect(core().calls).toBe(before.core);
    expect(indexerRequests()).toBe(before.indexer);
    expect(await available()).toBe(before.balance);
  });

  it("the ledger checks out after all of it", async () => {
    await expectLedgerOk(t.gateway.app.db, accountId, { held: 0 });
  });
});
