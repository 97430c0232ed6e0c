import { describe, expect, it } from "vitest";
import { hashToken, tokenCacheKey } from "../../src/access/tokens.ts";

describe("tokenCacheKey", () => {
  it("is the base64 of hashToken's digest (the one-shot hash changes nothing)", () => {
    for (const token of [`bgt_${"A".repeat(43)}`, "bgt_0Vn7-_xyz", "", "é ünïcode ✓"]) {
      expect(tokenCacheKey(token)).toBe(hashToken(token).toString("base64"));
    }
  });
});
