import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { BLOCK_170, HAL_TXID } from "../support/harness.ts";

/** devnet's indexer on its own: Hasura's semantics over the real blocks devnet holds. */
let devnet: Devnet;
const chain = loadDevnetChain();
const HEIGHTS = chain.heights();

beforeAll(async () => {
  devnet = await startDevnet(["mainnet"]);
});
afterAll(() => devnet.close());

async function ask(query: string, variables?: Record<string, unknown>) {
  const indexer = devnet.indexers.get("mainnet")!;
  const res = await fetch(indexer.url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-hasura-admin-secret": indexer.secret },
    body: JSON.stringify({ query, variables }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    data?: Record<string, Record<string, unknown>[]>;
    errors?: unknown[];
  };
}

const heightsOf = async (where: string) =>
  ((await ask(`{ block(where: ${where}) { height } }`)).data!.block as { height: number }[]).map(
    (b) => b.height,
  );

describe("devnet indexer: rows", () => {
  it("serves every held block in height order when no order_by is given", async () => {
    const { data } = await ask("{ block { height } }");
    expect((data!.block as { height: number }[]).map((b) => b.height)).toEqual(HEIGHTS);
    expect(HEIGHTS).toHaveLength(264);
  });

  it("gives the latest block with its first transactions, as the chain holds them", async () => {
    const { data } = await ask(`{ block(limit: 1, order_by: {height: desc}) {
      hash height timestamp transaction_count size_bytes
      transactions(limit: 3) { hash size_bytes input_count output_count } } }`);
    const tip = chain.tip.block;
    expect(data!.block).toEqual([
      {
        hash: tip.hash,
        height: 951658,
        timestamp: tip.time,
        transaction_count: tip.transactions.length,
        size_bytes: tip.size,
        transactions: tip.transactions.slice(0, 3).map((tx) => ({
          hash: tx.txid,
          size_bytes: tx.size,
          input_count: tx.inputs.length,
          output_count: tx.outputs.length,
        })),
      },
    ]);
  });

  it("finds a block by primary key, and answers null for a missing one", async () => {
    const { data } = await ask(
      `{ block_by_pk(hash: "${BLOCK_170}") { height transactions { hash } } }`,
    );
    expect(data!.block_by_pk).toMatchObject({ height: 170 });
    expect(
      (data!.block_by_pk as unknown as { transactions: { hash: string }[] }).transactions.map(
        (t) => t.hash,
      ),
    ).toContain(HAL_TXID);
    expect((await ask(`{ block_by_pk(hash: "${"00".repeat(32)}") { height } }`)).data).toEqual({
      block_by_pk: null,
    });
  });
});

describe("devnet indexer: where", () => {
  it("takes a height range with _gte and _lte, ends included", async () => {
    expect(await heightsOf("{height: {_gte: 100, _lte: 104}}")).toEqual([100, 101, 102, 103, 104]);
  });

  it("reads sibling keys as AND, and {} as true", async () => {
    expect(await heightsOf("{height: {_gt: 250}, transaction_count: {_gt: 1}}")).toEqual(
      HEIGHTS.filter((h) => h > 250 && chain.byHeight.get(h)!.block.transactions.length > 1),
    );
    expect(await heightsOf("{}")).toEqual(HEIGHTS);
    expect(await heightsOf("{height: {}}")).toEqual(HEIGHTS);
    expect(await heightsOf("{_and: []}")).toEqual(HEIGHTS);
    expect(await heightsOf("{_or: []}")).toEqual([]);
  });

  it("has _or, _not, _in, _nin, _neq, _lt and _is_null", async () => {
    expect(await heightsOf("{_or: [{height: {_eq: 3}}, {height: {_eq: 951658}}]}")).toEqual([
      3, 951658,
    ]);
    expect(await heightsOf("{_not: {height: {_lt: 255}}}")).toEqual(
      HEIGHTS.filter((h) => h >= 255),
    );
    expect(await heightsOf("{height: {_in: [0, 170, 12345]}}")).toEqual([0, 170]);
    expect(await heightsOf("{height: {_nin: [0, 1], _lt: 4}}")).toEqual([2, 3]);
    expect(await heightsOf("{height: {_neq: 0, _lte: 2}}")).toEqual([1, 2]);
    // No column is NULL: _is_null true matches nothing, false everything.
    expect(await heightsOf("{hash: {_is_null: true}}")).toEqual([]);
    expect(await heightsOf("{hash: {_is_null: false}}")).toEqual(HEIGHTS);
  });

  it("filters blocks through their transactions (an array relationship: some row matches)", async () => {
    expect(await heightsOf(`{transactions: {hash: {_eq: "${HAL_TXID}"}}}`)).toEqual([170]);
  });

  it("compares strings as PostgreSQL's C collation does for hex", async () => {
    const hashes = HEIGHTS.map((h) => chain.byHeight.get(h)!.block.hash).sort();
    const { data } = await ask(
      `{ block(where: {hash: {_lt: "${hashes[3]}"}}, order_by: {hash: asc}) { hash } }`,
    );
    expect((data!.block as { hash: string }[]).map((b) => b.hash)).toEqual(hashes.slice(0, 3));
  });
});

describe("devnet indexer: order, limit, offset, nested lists", () => {
  it("orders by any column, in a list of keys, then pages", async () => {
    const { data } = await ask(
      "{ block(order_by: [{transaction_count: desc}, {height: asc}], limit: 3, offset: 1) { height transaction_count } }",
    );
    const expected = HEIGHTS.map((h) => ({
      height: h,
      transaction_count: chain.byHeight.get(h)!.block.transactions.length,
    }))
      .sort((a, b) => b.transaction_count - a.transaction_count || a.height - b.height)
      .slice(1, 4);
    expect(data!.block).toEqual(expected);
  });

  it("filters, orders and pages a block's transactions", async () => {
    const { data } = await ask(`{ block(where: {height: {_eq: 277647}}) {
      transactions(where: {input_count: {_gt: 1}}, order_by: {size_bytes: desc}, limit: 2, offset: 1) { hash size_bytes input_count } } }`);
    const txs = chain.byHeight
      .get(277647)!
      .block.transactions.filter((tx) => tx.inputs.length > 1)
      .map((tx) => ({ hash: tx.txid, size_bytes: tx.size, input_count: tx.inputs.length }))
      .sort((a, b) => b.size_bytes - a.size_bytes);
    expect(data!.block).toEqual([{ transactions: txs.slice(1, 3) }]);
  });

  it("takes aliases, fragments and variables", async () => {
    const { data } = await ask(
      `query Q($from: Int!, $n: Int = 2) {
        first: block(where: {height: {_gte: $from}}, limit: $n) { ...B }
        one: block_by_pk(hash: "${BLOCK_170}") { ... on block { height } }
      }
      fragment B on block { height }`,
      { from: 200 },
    );
    expect(data).toEqual({ first: [{ height: 200 }, { height: 201 }], one: { height: 170 } });
  });
});
