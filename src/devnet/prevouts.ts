import { loadPrevoutsFile, type Prevout } from "../bitcoin/index.ts";
import { projectPath } from "../paths.ts";
import type { DevnetChain } from "./chain.ts";

const PREVOUTS_FILE = projectPath("data", "chain", "blocks", "277647.prevouts.json");

/**
 * devnet's stand-in for Core's undo data: an output is known when the transaction that created it
 * is in a block we hold, or when it is one of the outputs block 277647 spends (shipped with the
 * block). Core always has undo data; devnet has it only for these, and falls back to the
 * verbosity 1 shape elsewhere.
 */
export function chainPrevouts(
  chain: DevnetChain,
): (txid: string, vout: number) => Prevout | undefined {
  const shipped = loadPrevoutsFile(PREVOUTS_FILE);
  return (txid, vout) => {
    const known = shipped.get(`${txid}:${vout}`);
    if (known) return known;
    const at = chain.txIndex.get(txid);
    if (!at) return undefined;
    const tx = at.block.block.transactions[at.index]!;
    const output = tx.outputs[vout];
    if (!output) return undefined;
    return {
      valueSats: output.value,
      scriptPubKey: output.scriptPubKey,
      height: at.block.height,
      coinbase: tx.isCoinbase,
    };
  };
}
