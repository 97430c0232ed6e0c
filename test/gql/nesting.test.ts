import fc from "fast-check";
import { type FieldNode, Kind, type OperationDefinitionNode, parse, type ValueNode } from "graphql";
import { describe, expect, it } from "vitest";
import {
  DOCUMENT_NESTING_MAX,
  documentNesting,
  INPUT_DEPTH_MAX,
  valueDepthOver,
  variablesNesting,
} from "../../src/protocol/graphql/nesting.ts";

/**
 * The bounds on nesting checked before anything parses a client's GraphQL (src/protocol/graphql/nesting.ts):
 * the lexical count agrees with the depth graphql-js's parser finds, strings, block strings and
 * comments full of brackets included; the value walk agrees with a recursive one.
 */

/** Lists and objects inside one another in a parsed value: a scalar is 0, `[]` and `{}` are 1. */
function astDepth(node: ValueNode): number {
  if (node.kind === Kind.LIST) return 1 + Math.max(0, ...node.values.map(astDepth));
  if (node.kind === Kind.OBJECT)
    return 1 + Math.max(0, ...node.fields.map((f) => astDepth(f.value)));
  return 0;
}

function jsonDepth(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  const items = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...items.map(jsonDepth));
}

/** Text that looks like nesting but is not: strings, block strings, and a comment. */
const bracketText = fc.constantFrom("[", "]", "{", "}", "(", ")", "#", '"', "\\", "a", " ");
const filler: fc.Arbitrary<string> = fc.oneof(
  fc.constant(" "),
  fc.array(bracketText, { maxLength: 6 }).map((cs) => ` # ${cs.join("")}\n`),
);
const stringLiteral: fc.Arbitrary<string> = fc.oneof(
  fc.array(bracketText, { maxLength: 6 }).map((cs) => JSON.stringify(cs.join(""))),
  // A block string's only escape is \"""; a lone quote or backslash is text in it.
  fc
    .array(fc.constantFrom("[", "]", "{", "}", "(", ")", "#", " ", '\\"""', '"a', "\\a"), {
      maxLength: 6,
    })
    .map((parts) => `"""${parts.join("")}a"""`),
);

/** A GraphQL value literal: scalars, strings holding brackets, lists and objects, any depth. */
const literal: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: "medium" },
    fc.constantFrom("1", "true", "null", "ENUM", "$x"),
    stringLiteral,
    fc
      .tuple(fc.array(tie("v"), { maxLength: 3 }), filler)
      .map(([xs, f]) => `[${f}${xs.join(`,${f}`)}]`),
    fc
      .tuple(fc.array(tie("v"), { maxLength: 3 }), filler)
      .map(([xs, f]) => `{${f}${xs.map((x, i) => `k${i}:${f}${x}`).join(" ")}}`),
  ),
})).v;

describe("documentNesting", () => {
  it("finds an argument's value too deep exactly when graphql-js's parse finds it so, at every bound", () => {
    fc.assert(
      fc.property(literal, filler, (value, f) => {
        const text = `{ a(x:${f}${value}) @d(y: 1) { b } }`;
        const operation = parse(text).definitions[0] as OperationDefinitionNode;
        const field = operation.selectionSet.selections[0] as FieldNode;
        const depth = astDepth(field.arguments?.[0]?.value as ValueNode);
        for (const max of [0, depth - 1, depth, depth + 1].filter((m) => m >= 0)) {
          const found = documentNesting(text, { inputDepthMax: max, documentNestingMax: 10_000 });
          expect(found?.kind === "input", `${text} at ${max}`).toBe(depth > max);
        }
      }),
      { numRuns: 1_000 },
    );
  });

  it("counts every bracket outside strings and comments for the document's bound", () => {
    const deep = (n: number) => `${"{ a ".repeat(n)}${"}".repeat(n)}`;
    expect(documentNesting(deep(DOCUMENT_NESTING_MAX))).toBeNull();
    expect(documentNesting(deep(DOCUMENT_NESTING_MAX + 1))).toMatchObject({
      kind: "document",
      message: `the document nests braces, brackets and parentheses more than ${DOCUMENT_NESTING_MAX} deep; the limit is ${DOCUMENT_NESTING_MAX}`,
    });
    // Type references nest outside any selection (a type system document parses too).
    expect(documentNesting(`type T { f: ${nestedType(300)} }`)?.kind).toBe("document");
    const hidden = `{ a(s: "${"[".repeat(5_000)}", b: """${"{".repeat(5_000)}\\""" [""") # ${"(".repeat(5_000)}\n }`;
    expect(documentNesting(hidden)).toBeNull();
  });

  it("counts a value's depth from its own argument list, variable definitions' defaults and types included", () => {
    const value = (n: number) => `${"[".repeat(n)}1${"]".repeat(n)}`;
    const ok = `query ($v: ${nestedType(INPUT_DEPTH_MAX)} = ${value(INPUT_DEPTH_MAX)}) { a(x: ${value(INPUT_DEPTH_MAX)}) @d(y: ${value(INPUT_DEPTH_MAX)}) { b(z: ${value(INPUT_DEPTH_MAX)}) } }`;
    expect(documentNesting(ok)).toBeNull();
    for (const past of [
      `{ a(x: ${value(INPUT_DEPTH_MAX + 1)}) }`,
      `{ a @d(y: ${value(INPUT_DEPTH_MAX + 1)}) }`,
      `query ($v: Int = ${value(INPUT_DEPTH_MAX + 1)}) { a }`,
    ]) {
      expect(documentNesting(past)).toMatchObject({
        kind: "input",
        message: `an argument's value nests lists and input objects more than ${INPUT_DEPTH_MAX} deep; the limit is ${INPUT_DEPTH_MAX}`,
      });
    }
  });

  it("reads a megabyte of brackets in one pass, stopping at the first level past the bound", () => {
    expect(documentNesting(`{ a(x: ${"[".repeat(1 << 20)}`)?.kind).toBe("input");
    expect(documentNesting("{".repeat(1 << 20))?.kind).toBe("document");
    expect(documentNesting(`{ a(x: "${"[".repeat(1 << 20)}") }`)).toBeNull();
  });
});

describe("variablesNesting and valueDepthOver", () => {
  it("agree with a recursive depth on generated JSON, at every bound", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        const depth = jsonDepth(value);
        for (const max of [0, depth - 1, depth, depth + 1].filter((m) => m >= 0)) {
          expect(valueDepthOver(value, max)).toBe(depth > max);
        }
      }),
      { numRuns: 1_000 },
    );
  });

  it("name the first variable past the bound; walk a million levels without recursion", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) deep = [deep];
    expect(variablesNesting({ a: [[1]], b: deep })).toMatchObject({
      name: "b",
      problem: { kind: "input", max: INPUT_DEPTH_MAX },
    });
    expect(variablesNesting({ a: JSON.parse(`${"[".repeat(64)}${"]".repeat(64)}`) })).toBeNull();
    expect(variablesNesting(null)).toBeNull();
  });
});

function nestedType(n: number): string {
  return `${"[".repeat(n)}Int${"]".repeat(n)}`;
}
