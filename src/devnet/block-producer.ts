import type { Prevout } from "../bitcoin/index.ts";
import type { BlockRef, ChainChange, DevnetBlocks, DevnetPaid } from "../events/chain-change.ts";
import type { ChainBlock, DevnetChain } from "./chain.ts";
import { DEVNET_PAYOUT } from "./payout.ts";
import { mineBlocks } from "./produce-block.ts";
import { devnetPayment } from "./wallet.ts";

export { DEVNET_PAYOUT };

const ref = (b: ChainBlock): BlockRef => ({ height: b.height, hash: b.block.hash });

/**
 * Blocks on one network's devnet chain, on command or on a timer (block-timer.ts), built as
 * generatetoaddress builds them (produce-block.ts).
 */
export class BlockProducer implements DevnetBlocks {
  constructor(
    readonly chain: DevnetChain,
    private readonly prevouts: (txid: string, vout: number) => Prevout | undefined,
    /** devnet's Core's sendrawtransaction: a payment enters the mempool as any broadcast does. */
    private readonly broadcast: (hex: string) => string = () => {
      throw new Error("this devnet does not broadcast");
    },
  ) {}

  /** `sats` to `script` from devnet's own coins, broadcast through devnet's Core. */
  pay(script: Uint8Array, sats: number): DevnetPaid {
    const tx = devnetPayment(this.chain, script, BigInt(sats));
    if ("refused" in tx) return tx;
    try {
      return { txid: this.broadcast(Buffer.from(tx.bytes).toString("hex")) };
    } catch (err) {
      return { refused: `devnet's Core refused the payment: ${(err as Error).message}` };
    }
  }

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
