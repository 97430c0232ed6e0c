import type { Network, Prevout } from "../../bitcoin/index.ts";
import type { DevnetChain } from "../chain.ts";
import type { DevnetUtxos } from "../utxo.ts";

/** What every devnet Core method of one network works on. */
export interface CoreContext {
  chain: DevnetChain;
  network: Network;
  /** Undo data as devnet has it (see prevouts.ts). */
  prevouts: (txid: string, vout: number) => Prevout | undefined;
  utxos: DevnetUtxos;
  /** When this Core started (uptime), ms since the epoch. */
  startedAt: number;
  /**
   * When each mempool transaction entered, and the tip's height then (getmempoolentry's time and
   * height); a transaction loaded with the chain entered when this Core started.
   */
  entered: Map<string, { time: number; height: number }>;
}
