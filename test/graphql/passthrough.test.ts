import fc from "fast-check";
import { parse, print } from "graphql";
import { describe, expect, it } from "vitest";
import type { Passthrough } from "../../src/routes/gateway/query-plans/candidate.ts";
import {
  compilePassthrough,
  dataText,
  fits,
  passthroughOf,
} from "../../src/routes/gateway/query-plans/passthrough.ts";
import { gatewaySchema } from "../../src/routes/gateway/schema.ts";
import { sized } from "../support/size.ts";

/**
 * The passthrough compiler and its shape check (src/routes/gateway/query-plans/passthrough.ts): what a
 * plan sends the indexer, and which of the indexer's answers it may write as they are. An answer
 * that does not fit goes to the executor (test/graphql/query-plans.test.ts has the requests).
 */
const compile = (query: string, operationName?: string): Passthrough | null =>
  compilePassthrough(gatewaySchema, parse(query), operationName);

const HASH = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f";

describe("compilePassthrough", () => {
  it("sends the document as written, its fragments on the indexer's tables", () => {
    const plan = compile(
      `query Q($n: Int) { b: block(limit: $n) { ...F transactions { ... on BlockTransaction { hash } } } }
       fragment F on Block { height }`,
      "Q",
    );
    expect(plan?.indexerQuery).toContain("fragment F on block {");
    expect(plan?.indexerQuery).toContain("... on block_transaction {");
    expect(plan?.indexerQuery).toContain("b: block(limit: $n)");
    expect(plan?.operationName).toBe("Q");
    expect(plan?.variableDefinitions.map((v) => v.variable.name.value)).toEqual(["n"]);
  });

  it("sends a document that names no type as it was parsed", () => {
    const query =
      "query Q($n: Int) { block(limit: $n) { height ... @include(if: true) { hash } } }";
    expect(compile(query, "Q")?.indexerQuery).toBe(print(parse(query)));
  });

  it.each([
    ["a join", "{ block { transactions { transaction { txid } } } }"],
    ["a directive but @skip and @include", "{ block { height @deprecated } }"],
    [
      "@include where the executor does not read it",
      "query Q @include(if: true) { block { height } }",
    ],
    [
      "@include on a fragment's definition",
      "{ block { ...F } } fragment F on Block @include(if: true) { height }",
    ],
    [
      "another directive on an inline fragment",
      "{ block { ... on Block @deprecated { height } } }",
    ],
    [
      "another directive deep in a fragment",
      "{ block { ...F } } fragment F on Block { transactions { hash @deprecated } }",
    ],
    ["another root", "{ block { height } chain { height } }"],
    ["a mutation", 'mutation { createToken(name: "x") { token } }'],
    ["two operations", "query A { block { height } } query B { block { hash } }"],
    ["another operation's name", "query A { block { height } }"],
  ])("refuses %s", (_what, query) => {
    expect(compile(query, query.includes("query A") ? "B" : undefined)).toBeNull();
  });
});

describe("documents of one shape", () => {
  // Literals everywhere a document may hold them: arguments, objects, lists, a variable's default,
  // a fragment whose type condition is renamed for the indexer.
  interface Literals {
    int: number;
    float: string;
    text: string;
    more: string;
  }
  const doc = (l: Literals) =>
    `query Q($n: Int = ${l.int}) {
       a: block(where: {height: {_gte: ${l.int}, _lte: ${l.float}}}, limit: $n) { ...F }
       b: block(where: {hash: {_in: [${JSON.stringify(l.text)}, ${JSON.stringify(l.more)}]}}) { ...F }
     }
     fragment F on Block { height hash }`;
  const sent = (query: string) =>
    compilePassthrough(gatewaySchema, parse(query), "Q")?.indexerQuery;
  const through = (query: string) => passthroughOf(gatewaySchema, parse(query), "Q", {});
  /** Lines graphql-js lays out as the shape's first document's are, whatever the values. */
  const short = (text: string) => text.split("\n").every((line) => line.trim().length < 80);

  it("are compiled once; each is sent to the indexer with its own literals, as printed alone", () => {
    const known = through(doc({ int: 100, float: "1.5", text: "a", more: "b" }));
    fc.assert(
      fc.property(
        fc.record({
          int: fc.integer({ min: -99_999, max: 99_999 }),
          float: fc
            .tuple(
              fc.integer({ min: -999, max: 999 }),
              fc.nat(99),
              fc.integer({ min: -99, max: 99 }),
            )
            .map(([whole, part, exponent]) => `${whole}.${part}e${exponent}`),
          // Control characters, quotes and backslashes are printed escaped.
          text: fc.string({ unit: "binary", maxLength: 4 }),
          more: fc.string({ maxLength: 8 }),
        }),
        (literals: Literals) => {
          const query = doc(literals);
          const other = through(query);
          expect(other?.indexerQuery).toBe(sent(query));
          // The first's shape, not compiled again, wherever no line comes near the layout's limit.
          if (short(other?.indexerQuery ?? "")) expect(other?.shape).toBe(known?.shape);
        },
      ),
      { numRuns: sized(100, 2_000), seed: 42 },
    );
  });

  it("are printed as graphql-js lays them out, their arguments on lines of their own or not", () => {
    // The field's line passes 80 characters with a long literal: graphql-js then puts each
    // argument on a line of its own. A template made either way gives each document its layout.
    const query = (hash: string) =>
      `query Q { block(where: {hash: {_eq: ${JSON.stringify(hash)}}}, limit: 1) { height } }`;
    for (const [a, b] of [
      ["short", HASH],
      [`${HASH}x`, "short"],
    ]) {
      for (const hash of [a, b, a] as string[]) {
        const got = through(query(hash))?.indexerQuery;
        expect(got).toBe(sent(query(hash)));
        expect(got?.includes("(\n")).toBe(hash.length > 60);
      }
    }
  });
});

describe("fits", () => {
  const plan = compile(
    `{ one: block_by_pk(hash: "${HASH}") { height hash }
       list: block(limit: 2) { h: height transactions { hash output_count } } }`,
  )!;
  const good = () => ({
    one: { height: 0, hash: HASH },
    list: [{ h: 1, transactions: [{ hash: HASH, output_count: 2 }] }],
  });

  it("takes an answer graphql-js would write unchanged, nulls where the schema allows them", () => {
    expect(fits(good(), plan.shape)).toBe(true);
    expect(fits({ ...good(), one: null }, plan.shape)).toBe(true);
    expect(fits({ ...good(), list: [] }, plan.shape)).toBe(true);
  });

  it("__typename: the indexer's name of the type, written as the unified API's", () => {
    const typed = compile("{ __typename block(limit: 1) { __typename h: height } }")!;
    expect(typed.renamesTypes).toBe(true);
    const data = { __typename: "query_root", block: [{ __typename: "block", h: 1 }] };
    expect(fits(data, typed.shape)).toBe(true);
    expect(dataText(data, typed)).toBe(
      '{"__typename":"Query","block":[{"__typename":"Block","h":1}]}',
    );
    expect(fits({ ...data, __typename: "Query" }, typed.shape)).toBe(false);
    expect(plan.renamesTypes).toBe(false);
  });

  it("refuses a missing, extra or reordered key", () => {
    const { one, list } = good();
    expect(fits({ one }, plan.shape)).toBe(false);
    expect(fits({ list, one }, plan.shape)).toBe(false);
    expect(fits({ one: { ...one, size_bytes: 1 }, list }, plan.shape)).toBe(false);
    expect(fits({ one: { hash: one.hash, height: one.height }, list }, plan.shape)).toBe(false);
  });

  it("refuses a leaf its scalar would change or refuse, and a null where none may be", () => {
    const at = (height: unknown) => ({ ...good(), one: { height, hash: HASH } });
    expect(fits(at("0"), plan.shape)).toBe(false); // Int serializes "0" as 0
    expect(fits(at(1.5), plan.shape)).toBe(false);
    expect(fits(at(2 ** 31), plan.shape)).toBe(false); // past Int's 32 bits
    expect(fits(at(true), plan.shape)).toBe(false);
    const row = (hash: unknown) => ({
      ...good(),
      list: [{ h: 1, transactions: [{ hash, output_count: 2 }] }],
    });
    expect(fits(row(null), plan.shape)).toBe(false); // hash: TxId!
    expect(fits({ ...good(), list: [null] }, plan.shape)).toBe(false); // [Block!]
    expect(fits({ ...good(), list: {} }, plan.shape)).toBe(false);
  });
});
