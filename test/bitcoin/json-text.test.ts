import { join } from "node:path";
import { LosslessNumber, stringify } from "lossless-json";
import { describe, expect, it } from "vitest";
import { parseBlock } from "../../src/bitcoin/block.ts";
import { toJsonText } from "../../src/bitcoin/json-text.ts";
import { txToUniv } from "../../src/bitcoin/tx-json.ts";
import { BLOCKS_DIR, readBytes } from "./chain-data.ts";

describe("toJsonText", () => {
  it("writes LosslessNumber literally and matches lossless-json", () => {
    const v = {
      a: new LosslessNumber("0.00100000"),
      b: [new LosslessNumber("-1.50000000"), 3, "x"],
      c: true,
    };
    expect(toJsonText(v)).toBe('{"a":0.00100000,"b":[-1.50000000,3,"x"],"c":true}');
    expect(toJsonText(v)).toBe(stringify(v));
  });

  it("falls back safely when a string holds the marker character", () => {
    const v = { s: "\u00010.5", n: new LosslessNumber("0.5") };
    expect(toJsonText(v)).toBe(stringify(v));
    expect(JSON.parse(toJsonText(v)).s).toBe("\u00010.5");
  });

  it("equals lossless-json stringify for a whole segwit block", () => {
    const block = parseBlock(
      readBytes(
        join(
          BLOCKS_DIR,
          "block-00000000000000000021868c2cefc52a480d173c849412fe81c4e5ab806f94ab.blk",
        ),
      ),
    );
    const objects = block.transactions.map((tx) => txToUniv(tx, { network: "mainnet" }));
    expect(toJsonText(objects)).toBe(stringify(objects));
  });
});
