import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { latestAudit } from "../../src/billing/usage/usage.ts";
import { BLOCK_170, startTestGateway, type TestGateway } from "../support/harness.ts";
import { available, type GraphAnswer, viaGateway } from "./support.ts";

/**
 * The documented formula, by hand: price = base + ceil(Σ depth × weight × multiplier × perPoint),
 * base 300 and perPoint 1 on mainnet, 150 and 0.5 elsewhere; weights 2 for query_root.block and
 * block.transactions, 1 for every other field; a list's size is its limit, or its height range
 * when smaller, else 100.
 */
const cases: { name: string; query: string; complexity: number }[] = [
  {
    name: "the latest block with 5 columns and transactions(limit: 3) of 4 columns",
    query: `{ block(limit: 1, order_by: {height: desc}) {
      hash height timestamp transaction_count size_bytes
      transactions(limit: 3) { hash size_bytes input_count output_count } } }`,
    // block 1×2×1; five columns 5 × (2×1×1); transactions 2×2×1; four columns 4 × (3×1×(1×3))
    complexity: 1 * 2 * 1 + 5 * (2 * 1 * 1) + 2 * 2 * 1 + 4 * (3 * 1 * 3),
  },
  {
    name: "the worked example of docs/users/graph.md",
    query: "{ block(limit: 1) { hash height transactions(limit: 3) { hash size_bytes } } }",
    complexity: 28,
  },
  {
    name: "the curl example of docs/users/graph.md",
    query:
      "{ block(limit: 1, order_by: {height: desc}) { hash height transactions(limit: 2) { hash size_bytes } } }",
    complexity: 22,
  },
  {
    name: "a height range of 10 blocks, no limit",
    query: "{ block(where: {height: {_gte: 100, _lte: 109}}) { height hash } }",
    complexity: 1 * 2 * 1 + 2 * (2 * 1 * 10),
  },
  {
    name: "a height range of 10 with limit 4: the smaller bounds the list",
    query:
      "{ block(where: {_and: [{height: {_gte: 100}}, {height: {_lte: 109}}]}, limit: 4) { height } }",
    complexity: 1 * 2 * 1 + 1 * (2 * 1 * 4),
  },
  {
    name: "block_by_pk with an unbounded transactions list (the default 100 rows)",
    query: `{ block_by_pk(hash: "${BLOCK_170}") { height transactions { hash } } }`,
    complexity: 1 * 1 * 1 + 2 * 1 * 1 + 2 * 2 * 1 + 3 * 1 * 100,
  },
  {
    name: "two aliased root fields, a fragment and __typename (free)",
    query: `query ($n: Int!) { a: block(limit: $n) { ...H __typename } b: block_by_pk(hash: "${BLOCK_170}") { ...H } }
      fragment H on block { hash }`,
    complexity: 1 * 2 * 1 + 2 * 1 * 2 + (1 * 1 * 1 + 2 * 1 * 1),
  },
];

let t: TestGateway;
let token: string;
let accountId: number;
beforeAll(async () => {
  t = await startTestGateway();
  ({ token, id: accountId } = await t.account("payer", 1_000_000));
});
afterAll(() => t.close());

describe("graph pricing", () => {
  for (const c of cases) {
    it(`charges the formula: ${c.name}`, async () => {
      for (const [network, base, perPoint] of [
        ["mainnet", 300, 1],
        ["regtest", 150, 0.5],
        ["testnet4", 150, 0.5],
      ] as const) {
        const price = base + Math.ceil(c.complexity * perPoint);
        const before = await available(t, accountId);
        const variables = c.query.includes("$n") ? { n: 2 } : {};
        const res = await viaGateway(t, token, { query: c.query, variables }, network);
        const answer = res.json as GraphAnswer;
        expect(answer.errors).toBeUndefined();
        expect(answer.extensions!.cost).toEqual({
          complexity: c.complexity,
          estimated: price,
          actual: price,
          charged: price,
          balance: before - price,
        });
        expect(res.headers.get("x-credits-estimated")).toBe(String(price));
        expect(res.headers.get("x-credits-charged")).toBe(String(price));
        expect(res.headers.get("x-credits-balance")).toBe(String(before - price));
        expect(await available(t, accountId)).toBe(before - price);
        const [record] = await latestAudit(t.gateway.app.db, accountId, 1);
        expect(record).toMatchObject({
          backend: "graph",
          network,
          outcome: "ok",
          complexity: c.complexity,
          estimated_cc: price,
          charged_cc: price,
        });
      }
    });
  }

  it("docs/users/graph.md states its examples' queries and their mainnet prices", () => {
    const page = readFileSync("docs/users/graph.md", "utf8");
    for (const c of cases.filter((k) => k.name.includes("docs/users/graph.md"))) {
      expect(page).toContain(c.query);
      expect(page).toContain(`${300 + c.complexity} CC`);
    }
  });

  it("writes the root fields as the audit record's method", async () => {
    await viaGateway(t, token, {
      query: `{ block(limit: 1) { height } block_by_pk(hash: "${BLOCK_170}") { height } }`,
    });
    const [record] = await latestAudit(t.gateway.app.db, accountId, 1);
    expect(record!.method).toBe("block,block_by_pk");
  });
});

describe("graph pricing from config", () => {
  it("takes weights, the default list size and the price table from config", async () => {
    const custom = await startTestGateway("pglite", {
      graph: { weights: { default: 3, "block.hash": 10 }, listSizeDefault: 7 },
      pricing: { graph: { base: { default: 1000 }, perPoint: { default: 2 } } },
    });
    try {
      const { token: tk } = await custom.account("c", 100_000);
      const res = await viaGateway(custom, tk, { query: "{ block { hash height } }" });
      // block 1×3×1; hash 2×10×7; height 2×3×7
      const complexity = 1 * 3 * 1 + 2 * 10 * 7 + 2 * 3 * 7;
      expect((res.json as GraphAnswer).extensions!.cost).toMatchObject({
        complexity,
        charged: 1000 + 2 * complexity,
      });
    } finally {
      await custom.close();
    }
  });
});
