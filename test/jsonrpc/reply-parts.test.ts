import { describe, expect, it } from "vitest";
import { replyObject } from "../../src/protocol/json/envelope.ts";
import { RawJsonText, stringifyJson } from "../../src/protocol/json/json.ts";
import { arrayParts } from "../../src/protocol/json/reply-parts.ts";

describe("arrayParts", () => {
  it("writes what the whole array's text is, results that came as text passed as they are", () => {
    const raw = new RawJsonText('{"hash":"00ab","tx":[{"txid":"cd"}]}');
    const items = [
      replyObject("2.0", 1, { result: raw }),
      // Ids that hold the envelope's own words: the result's place is still found.
      replyObject("2.0", { result: null }, { result: raw }),
      replyObject("2.0", '"result":null', { result: raw }),
      replyObject("1.0", 3, { result: raw }),
      replyObject("2.0", 4, { error: { code: -5, message: "Block not found" } }),
      replyObject("2.0", 5, { result: "plain" }),
    ];
    const parts = [...arrayParts(items)];
    expect(parts.join("")).toBe(stringifyJson(items));
    // The text itself is one of the parts: not copied into a larger string.
    expect(parts.filter((p) => p === raw.text)).toHaveLength(4);
  });
});
