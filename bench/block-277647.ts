// Block 277647's transactions, real data devnet serves (data/chain), as the node-route benches
// send them: one getrawtransaction body per transaction, numbered in order.
import { readFileSync } from "node:fs";

/** The block's 213 txids, in block order. */
export function block277647Txids(): string[] {
  const blocks = Object.values(
    JSON.parse(
      readFileSync(new URL("../data/chain/blocks/INDEX.json", import.meta.url), "utf8"),
    ) as Record<string, { blocks: { height: number; tx: string[] }[] }>,
  ).flatMap((f) => f.blocks);
  const txids = blocks.find((b) => b.height === 277647)?.tx ?? [];
  if (txids.length < 200) throw new Error("block 277647 is not in data/chain/blocks/INDEX.json");
  return txids;
}

/** One JSON-RPC getrawtransaction body per transaction of the block. */
export function getrawtransactionBodies(): string[] {
  return block277647Txids().map((txid, id) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "getrawtransaction", params: [txid] }),
  );
}
