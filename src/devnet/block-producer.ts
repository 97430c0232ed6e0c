import { type Prevout, sha256 } from "../bitcoin/index.ts";
import { concatBytes } from "../bitcoin/script-build.ts";
import type { BlockRef, ChainChange, DevnetBlocks } from "../events/chain-change.ts";
import type { ChainBlock, DevnetChain } from "./chain.ts";
import { mineBlocks } from "./produce-block.ts";

/**
 * Where devnet's own blocks pay: P2WSH of `OP_TRUE`, valid on every network and spendable by
 * anyone (the witness is the script alone), so tests can spend what devnet mined.
 */
export const DEVNET_PAYOUT: Uint8Array = concatBytes(
  Uint8Array.of(0x00, 0x20),
  sha256(Uint8Array.of(0x51)),
);

const ref = (b: ChainBlock): BlockRef => ({ height: b.height, hash: b.block.hash });

/**
 * Blocks on one network's devnet chain, on command or on a timer (block-timer.ts), built as
 * generatetoaddress builds them (produce-block.ts).
 */
export class BlockProducer implements DevnetBlocks {
  constructor(
    readonly chain: DevnetChain,
    private readonly prevouts: (txid: string, vout: number) => Prevout | undefined,
  ) {}

  /** `count` blocks on the tip, carrying the mempool transactions devnet can price. */
  mine(count: number): ChainChange {
    const made = mineBlocks(this.chain, this.prevouts, DEVNET_PAYOUT, count);
    return { tip: ref(this.chain.tip), connected: made.map(ref), disconnected: [] };
  }

  /**
   * A reorganisation as a chain watcher sees one: the top `depth` blocks leave the best chain
   * (their transactions back in the mempool) and `depth + 1` new blocks on the fork point
   * outgrow them, so the best chain switches to a longer branch, different above the fork point.
   * Tip listeners hear of it once, when the new branch is complete. Refused, with the reason,
   * where devnet does not hold every height from the fork point up.
   */
  reorg(depth: number): ChainChange | { refused: string } {
    const gone = this.chain.disconnectTop(depth);
    if (!gone) {
      return {
        refused: `cannot take ${depth} block(s) off a chain whose tip is ${this.chain.tip.height}: every height from the fork point up must be held`,
      };
    }
    const made = mineBlocks(this.chain, this.prevouts, DEVNET_PAYOUT, depth + 1);
    return { tip: ref(this.chain.tip), connected: made.map(ref), disconnected: gone.map(ref) };
  }
}
