import type { Network } from "../../bitcoin/network.ts";
import type { VerifiedHeader } from "./verified-header.ts";

/**
 * One network's best verified chain: the most-work chain of headers the gateway checked, from
 * genesis or from the checkpoint the config names, whichever upstream served them.
 */
export interface VerifiedChain {
  readonly network: Network;
  /** The best verified tip; undefined until the first sync. */
  tip(): VerifiedHeader | undefined;
  /** The header at `height` on the best verified chain. */
  atHeight(height: number): VerifiedHeader | undefined;
  /** The header with this hash, when it is on the best chain; undefined otherwise. */
  byHash(hash: string): VerifiedHeader | undefined;
  /** Resolves once the chain has caught up with the best upstream tip seen (or rejects after ms). */
  synced(timeoutMs?: number): Promise<void>;
  /**
   * Looks at every upstream now rather than at the next poll (one more look after one under way);
   * resolves when done. An announcement asked for now (ChainEvents.pollNow) asks this first, so it
   * is not a poll late.
   */
  look?(): Promise<void>;
}
