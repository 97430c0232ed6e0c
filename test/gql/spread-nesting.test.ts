import fc from "fast-check";
import { parse } from "graphql";
import { describe, expect, it } from "vitest";
import { DOCUMENT_NESTING_MAX } from "../../src/protocol/graphql/nesting.ts";
import { selectionNesting } from "../../src/protocol/graphql/spread-nesting.ts";
import { fragmentChain } from "../support/arbitraries.ts";

/**
 * Selections nested with fragments spread into one another (src/protocol/graphql/spread-nesting.ts), which
 * the text does not show: the iterative count agrees with the recursive definition on generated
 * fragment graphs, and a chain of any length is measured without recursion.
 */

/** A fragment: selection sets nested `own` deep, spreading later fragments at some depths. */
interface Fragment {
  own: number;
  spreads: { to: number; at: number }[];
}

/** Fragments that spread only later ones (no cycle), written out with the operation first. */
const fragmentGraphs: fc.Arbitrary<Fragment[]> = fc
  .array(
    fc.tuple(
      fc.integer({ min: 1, max: 40 }),
      fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 3 }),
    ),
    { minLength: 1, maxLength: 12 },
  )
  .map((raw) =>
    raw.map(([own, spreads], i) => ({
      own,
      spreads:
        i + 1 < raw.length
          ? spreads.map(([to, at]) => ({
              to: i + 1 + (to % (raw.length - i - 1)),
              at: 1 + (at % own),
            }))
          : [],
    })),
  );

function documentOf(fragments: Fragment[]): string {
  const body = (f: Fragment) => {
    // Nested `own` deep; each spread placed in the selection set at its depth.
    let text = "";
    for (let depth = f.own; depth >= 1; depth--) {
      const here = f.spreads.filter((s) => s.at === depth).map((s) => `...F${s.to}`);
      text = `{ a ${here.join(" ")} ${depth < f.own ? `b ${text}` : ""} }`;
    }
    return text;
  };
  const [first, ...rest] = fragments;
  return [
    body(first as Fragment),
    ...rest.map((f, i) => `fragment F${i + 1} on Query ${body(f)}`),
  ].join("\n");
}

/** The recursive definition: a spread at depth d adds the fragment's depth to d. */
function depthOf(fragments: Fragment[], i: number): number {
  const f = fragments[i] as Fragment;
  return Math.max(f.own, ...f.spreads.map((s) => s.at + depthOf(fragments, s.to)));
}

describe("selectionNesting", () => {
  it("agrees with the recursive definition on generated fragment graphs, at every bound", () => {
    fc.assert(
      fc.property(fragmentGraphs, (fragments) => {
        const document = parse(documentOf(fragments));
        const depth = Math.max(...fragments.map((_, i) => depthOf(fragments, i)));
        for (const max of [depth - 1, depth, depth + 1]) {
          expect(selectionNesting(document, max) !== null, `depth ${depth}, max ${max}`).toBe(
            depth > max,
          );
        }
      }),
      { numRuns: 500 },
    );
  });

  it("measures a chain of 100,000 fragments without recursion, and refuses it", () => {
    const document = parse(fragmentChain(100_000, "Query"));
    expect(selectionNesting(document)).toMatchObject({
      kind: "document",
      message: `the document nests selections, fragments spread in, more than ${DOCUMENT_NESTING_MAX} deep; the limit is ${DOCUMENT_NESTING_MAX}`,
    });
    expect(selectionNesting(parse(fragmentChain(100, "Query")))).toBeNull();
  });

  it("leaves a small cycle to validation; a cycle past the bound's reach is refused", () => {
    const cycle = "{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }";
    expect(selectionNesting(parse(cycle))).toBeNull();
    const deep = `${"{ a ".repeat(200)}...A${" }".repeat(200)}`;
    const big = `${cycle.replace("{ ...A }", deep)} fragment C on Query ${deep}`;
    expect(selectionNesting(parse(big))?.kind).toBe("document");
  });
});
