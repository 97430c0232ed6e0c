import { loadPrevoutsFile, type Prevout } from "../bitcoin/index.ts";
import { projectPath } from "../util/paths.ts";
import type { DevnetChain } from "./chain.ts";

const PREVOUTS_FILE = projectPath("data", "chain", "blocks", "277647.prevouts.json");
const MEMPOOL_PREVOUTS_FILE = projectPath("data", "chain", "txs", "mempool.prevouts.json");

/**
 * devnet's stand-in for Core's undo data: an output is known when the transaction that created it
 * is in a block we hold, or when it is one of the outputs block 277647 or the mempool's five
 * taproot transactions spend (shipped with them, from Core's own answers). Core always has undo data; devnet has it only for these, and falls back to the
 * verbosity 1 shape elsewhere.
 */
export function chainPrevouts(
  chain: DevnetChain,
): (txid: string, vout: number) => Prevout | undefined {
  // Mainnet's shipped undo data; the other networks' chains hold every output they spend.
  const shipped = chain.network === "mainnet" ? mainnetShipped() : new Map<string, Prevout>();
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

let mainnetPrevouts: Map<string, Prevout> | undefined;

/** Read once per process, as mainnet's blocks are (chain.ts): never changed, every devnet's. */
function mainnetShipped(): Map<string, Prevout> {
  mainnetPrevouts ??= new Map([
    ...loadPrevoutsFile(PREVOUTS_FILE),
    ...loadPrevoutsFile(MEMPOOL_PREVOUTS_FILE),
  ]);
  return mainnetPrevouts;
}
