import fc from "fast-check";
import { parse, validate, visit } from "graphql";
import { describe, expect, it } from "vitest";
import {
  literalRule,
  literalsFit,
  shapeOf,
} from "../../src/routes/gateway/plugins/document-shape.ts";
import { gatewaySchema } from "../../src/routes/gateway/schema.ts";

/**
 * A document's shape (src/routes/gateway/plugins/document-shape.ts) stands for every document that parses
 * to the same tree but for its scalar literals' values; a validated document's LiteralRule says
 * which of them are valid. The property that matters: for any values, the rule's verdict is
 * graphql-js's own `validate` on the document written with them.
 */

const shape = (text: string) => {
  const found = shapeOf(parse(text));
  if (!found) throw new Error("no shape");
  return found;
};

describe("a document's shape", () => {
  it("leaves out literal values, comments and whitespace, and nothing else", () => {
    const a = shape('{ block(limit: 10, where: {hash: {_eq: "ab"}}) { hash } }');
    const b = shape('# a comment\n{block(limit:3 where:{hash:{_eq:"cd"}}){hash}}');
    expect(b.key).toBe(a.key);
    expect(b.literals.map((l) => l.value)).toEqual(["3", "cd"]);
    // A literal of another kind, another name, an enum value or null is another shape.
    for (const other of [
      '{ block(limit: 1.5, where: {hash: {_eq: "ab"}}) { hash } }',
      '{ block(limit: 10, where: {hash: {_eq: """ab"""}}) { hash } }',
      '{ block(limit: 10, where: {hash: {_neq: "ab"}}) { hash } }',
      "{ block(limit: 10, where: {hash: {_eq: null}}) { hash } }",
      '{ b: block(limit: 10, where: {hash: {_eq: "ab"}}) { hash } }',
    ]) {
      expect(shape(other).key).not.toBe(a.key);
    }
  });

  it("a string's value is what the parser makes of it: escapes read, block strings dedented", () => {
    for (const text of [
      '{ block_by_pk(hash: "a\\u0062\\n\\"") { height } }',
      '{ block_by_pk(hash: """\n    a\\nb\n      c\n  """) { height } }',
    ]) {
      const nodes: unknown[] = [];
      visit(parse(text), {
        StringValue: ({ kind, value, block }) => void nodes.push({ kind, value, block }),
      });
      expect(shape(text).literals).toEqual(nodes);
    }
  });
});

/** Templates whose holes take any value written as a literal of one kind. */
const TXID = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b";
const intAt = (holes: number, write: (values: string[]) => string) => ({ holes, write });

const INT_TEMPLATES = [
  // (a)'s query, literal heights: Int, inside input objects.
  intAt(
    2,
    ([a, b]) =>
      `{ block(where: {height: {_gte: ${a}, _lte: ${b}}}, order_by: {height: asc}) { hash height } }`,
  ),
  // A list of Int, and an argument's default value.
  intAt(
    2,
    ([a, b]) =>
      `query ($n: Int = ${a}) { block(limit: $n, where: {height: {_in: [${b}]}}) { hash } }`,
  ),
  // A repeated response name: OverlappingFieldsCanBeMerged compares the two fields' arguments.
  intAt(2, ([a, b]) => `{ x: block(limit: ${a}) { hash } x: block(limit: ${b}) { hash } }`),
  // The same through a fragment, which the rule merges into the selection.
  intAt(
    2,
    ([a, b]) =>
      `{ x: block(limit: ${a}) { hash } ...F } fragment F on Query { x: block(limit: ${b}) { hash } }`,
  ),
];

const ints = fc.oneof(
  fc.integer({ min: -5, max: 200 }),
  fc.constantFrom(2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
);

const valid = (text: string) => validate(gatewaySchema, parse(text)).length === 0;

describe("a validated shape's literal rule", () => {
  it("says of any Int values what graphql-js's validation says", () => {
    const open = INT_TEMPLATES.map((template) => {
      const first = template.write(Array.from({ length: template.holes }, () => "1"));
      expect(valid(first)).toBe(true);
      const rule = literalRule(gatewaySchema, parse(first));
      if (!rule) throw new Error("no rule");
      fc.assert(
        fc.property(
          fc.array(ints, { minLength: template.holes, maxLength: template.holes }),
          (values) => {
            const text = template.write(values.map(String));
            expect(shape(text).key).toBe(shape(first).key);
            // Never valid where validation refuses; where no response name repeats, exactly
            // it (where one does, only the values validated pass: the rules run again).
            const fits = literalsFit(rule, shape(text));
            if (rule.open) expect(fits).toBe(valid(text));
            else expect(fits && !valid(text)).toBe(false);
          },
        ),
        { numRuns: 150 },
      );
      return rule.open;
    });
    expect(open).toEqual([true, true, false, false]);
  });

  it("checks strings where the schema's own scalars read them (TxId: 64 hex digits)", () => {
    const write = (a: string, b: string) =>
      `{ transactions(txids: [${JSON.stringify(a)}, ${JSON.stringify(b)}]) { txid } }`;
    const first = write(TXID, TXID);
    const rule = literalRule(gatewaySchema, parse(first));
    if (!rule) throw new Error("no rule");
    expect(rule.open).toBe(true);
    const txids = fc.oneof(
      fc.stringMatching(/^[0-9a-f]{64}$/),
      fc.stringMatching(/^[0-9a-fA-F]{62,66}$/),
      fc.string(),
    );
    fc.assert(
      fc.property(txids, txids, (a, b) => {
        const text = write(a, b);
        expect(literalsFit(rule, shape(text))).toBe(valid(text));
      }),
      { numRuns: 300 },
    );
  });

  it("holds a shape that repeats a response name to the values validated", () => {
    const rule = literalRule(
      gatewaySchema,
      parse("{ x: block(limit: 1) { hash } x: block(limit: 1) { hash } }"),
    );
    expect(rule?.open).toBe(false);
    const open = literalRule(
      gatewaySchema,
      parse("{ x: block(limit: 1) { hash } y: block(limit: 1) { hash } }"),
    );
    expect(open?.open).toBe(true);
  });
});
