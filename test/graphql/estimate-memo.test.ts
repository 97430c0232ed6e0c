import { buildSchema, parse } from "graphql";
import { describe, expect, it } from "vitest";
import type { CostEstimate } from "../../src/routes/gateway/cost/estimate.ts";
import { EstimateMemo } from "../../src/routes/gateway/cost/estimate-memo.ts";
import { LruMap } from "../../src/util/lru.ts";

/**
 * The memo's keys and bounds, in process (the gateway's own behaviour through it is
 * test/graphql/memo.test.ts, at the socket): what may share an entry, and what may not.
 */
const SDL = "type Query { block(limit: Int): [Int] }";
const estimateOf = (total: number): CostEstimate => ({
  total,
  items: [],
  graph: null,
  wantsPrevouts: false,
  wantsPosition: false,
});

/** A compute function that counts its calls and prices by `price`. */
function counting(price: () => number) {
  const counter = { calls: 0, compute: () => estimateOf(0) };
  counter.compute = () => {
    counter.calls += 1;
    return estimateOf(price());
  };
  return counter;
}

describe("LruMap", () => {
  it("keeps at most entriesMax entries, dropping the least recently used", () => {
    const lru = new LruMap<string, number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    expect(lru.get("a")).toBe(1); // a is now the most recent
    lru.set("c", 3);
    expect(lru.size).toBe(2);
    expect(lru.get("b")).toBeUndefined();
    expect(lru.get("a")).toBe(1);
    expect(lru.get("c")).toBe(3);
  });

  it("refuses a bound that is not a positive integer", () => {
    expect(() => new LruMap(0)).toThrow(/positive integer/);
  });
});

describe("EstimateMemo", () => {
  const schema = buildSchema(SDL);
  const document = parse("query ($n: Int) { block(limit: $n) }");

  it("computes once per document and declared variables, and again for other values", () => {
    const memo = new EstimateMemo();
    const c = counting(() => 7);
    const first = memo.estimate(schema, document, undefined, { n: 1 }, "mainnet", c.compute);
    expect(memo.estimate(schema, document, undefined, { n: 1 }, "mainnet", c.compute)).toBe(first);
    // Undeclared variables do not split the entry.
    memo.estimate(schema, document, undefined, { n: 1, other: 2 }, "mainnet", c.compute);
    expect(c.calls).toBe(1);
    memo.estimate(schema, document, undefined, { n: 2 }, "mainnet", c.compute);
    memo.estimate(schema, document, undefined, { n: null }, "mainnet", c.compute);
    memo.estimate(schema, document, undefined, {}, "mainnet", c.compute); // absent is not null
    memo.estimate(schema, document, undefined, { n: 1 }, "testnet", c.compute);
    expect(c.calls).toBe(5);
  });

  it("a new schema is a new memo: nothing computed for another schema is served", () => {
    const memo = new EstimateMemo();
    const other = buildSchema(SDL);
    let price = 1;
    const c = counting(() => price);
    const onFirst = memo.estimate(schema, document, undefined, { n: 1 }, "mainnet", c.compute);
    price = 2;
    const onOther = memo.estimate(other, document, undefined, { n: 1 }, "mainnet", c.compute);
    expect(c.calls).toBe(2);
    expect(onFirst).toMatchObject({ total: 1 });
    expect(onOther).toMatchObject({ total: 2 });
  });

  it("a document parsed anew is its own entry", () => {
    const memo = new EstimateMemo();
    const c = counting(() => 3);
    const again = parse("query ($n: Int) { block(limit: $n) }");
    memo.estimate(schema, document, undefined, { n: 1 }, "mainnet", c.compute);
    memo.estimate(schema, again, undefined, { n: 1 }, "mainnet", c.compute);
    expect(c.calls).toBe(2);
  });

  it("stays bounded, and keeps no refusal and no variables past its key bound", () => {
    const memo = new EstimateMemo(4, 64);
    const c = counting(() => 1);
    for (let n = 0; n < 50; n++) {
      memo.estimate(schema, document, undefined, { n }, "mainnet", c.compute);
    }
    expect(memo.sizeFor(schema)).toBe(4);
    const long = { n: 1, pad: "x" };
    const wide = parse("query ($n: Int, $pad: String) { block(limit: $n) }");
    long.pad = "x".repeat(100);
    memo.estimate(schema, wide, undefined, long, "mainnet", c.compute);
    memo.estimate(schema, wide, undefined, long, "mainnet", c.compute);
    expect(c.calls).toBe(52);
  });

  it("shares frozen entries: no request can change what the next one is served", () => {
    const memo = new EstimateMemo();
    const hit = memo.estimate(schema, document, undefined, { n: 1 }, "mainnet", () => ({
      ...estimateOf(5),
      items: [{ path: "block", method: "graph", count: 1, unitPrice: 5, subtotal: 5 }],
    }));
    expect(Object.isFrozen(hit)).toBe(true);
    if (hit instanceof Error) throw hit;
    expect(Object.isFrozen(hit.items[0])).toBe(true);
  });
});
