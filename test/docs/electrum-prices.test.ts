import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_PRICES } from "../../src/billing/pricing/price-list.ts";
import { CATALOGUE } from "../../src/routes/catalogue/methods.ts";

/** docs/users/electrum.md's method table: every Electrum method, at its default prices. */
describe("docs/users/electrum.md", () => {
  const page = readFileSync("docs/users/electrum.md", "utf8");
  const rows = page
    .split("\n")
    .map((line) => /^\| `([a-z_.]+)` \| (\d+) \| (\d+) \|/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null);

  it("lists every method the Electrum route serves, and no other", () => {
    const served = CATALOGUE.filter((m) => m.backend === "electrum").map((m) => m.method);
    expect(new Set(rows.map((r) => r[1]))).toEqual(new Set(served));
    expect(rows).toHaveLength(served.length);
  });

  it("gives each its default price on mainnet and on the other networks", () => {
    const prices = DEFAULT_PRICES as Record<string, { default: number; mainnet: number }>;
    for (const [, method, mainnet, other] of rows) {
      expect([method, Number(mainnet), Number(other)]).toEqual([
        method,
        prices[method!]!.mainnet,
        prices[method!]!.default,
      ]);
    }
  });
});
