// A cache hit's decoded form is built from the memoised text (src/protocol/core/decoded-tx.ts): the same
// bytes as the decoded form written afresh, for every transaction of a real block.
import { describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import {
  decodedTx,
  decodedTxBaseText,
  decodedTxFromBase,
} from "../../src/protocol/core/decoded-tx.ts";
import { stringifyJson } from "../../src/protocol/json/json.ts";

describe("the memoised rendering", () => {
  it("gives decodedTx's bytes, with or without blockheight, inside a JSON-RPC reply", () => {
    const block = loadDevnetChain().byHeight.get(277647)!;
    for (const tx of block.block.transactions) {
      const position = {
        blockhash: block.block.hash,
        height: block.height,
        blocktime: block.block.time,
        confirmations: 674012,
      };
      const base = decodedTxBaseText(tx, "mainnet");
      for (const blockheight of [false, true]) {
        const fresh = {
          jsonrpc: "2.0",
          result: decodedTx(tx, "mainnet", position, { blockheight }),
          id: 1,
        };
        const memo = {
          jsonrpc: "2.0",
          result: decodedTxFromBase(base, position, { blockheight }),
          id: 1,
        };
        expect(stringifyJson(memo)).toBe(stringifyJson(fresh));
      }
    }
  });
});
