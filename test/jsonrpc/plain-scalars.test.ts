import fc from "fast-check";
import { LosslessNumber } from "lossless-json";
import { describe, expect, it } from "vitest";
import { allPlainScalars, type Json, stringifyJson } from "../../src/protocol/json/json.ts";
import { paramsKey } from "../../src/upstreams/bitcoin-core/pool.ts";

const scalar = fc.oneof(
  fc.string({ unit: "binary" }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);

describe("allPlainScalars", () => {
  it("holds exactly where the native writer writes what stringifyJson writes", () => {
    fc.assert(
      fc.property(fc.array(scalar, { maxLength: 8 }), (values) => {
        expect(allPlainScalars(values)).toBe(true);
        expect(JSON.stringify(values)).toBe(stringifyJson(values));
        expect(paramsKey(values)).toBe(stringifyJson(values));
      }),
    );
  });

  it("refuses what the native writer would write otherwise: lossless numbers, non-finite, nesting", () => {
    const refused: Json[][] = [
      [new LosslessNumber("0.00100000")],
      ["txid", Number.NaN],
      [Number.POSITIVE_INFINITY],
      [["nested"]],
      [{ verbose: true }],
    ];
    for (const values of refused) expect(allPlainScalars(values)).toBe(false);
    // The key of a lossless number keeps its literal, as before.
    expect(paramsKey([new LosslessNumber("0.00100000")])).toBe("[0.00100000]");
  });
});
