import { type BlockChainContext, uint256Hex } from "../../bitcoin/index.ts";
import type { ChainBlock, DevnetChain } from "../chain.ts";
import { chainWork, medianTimePast } from "../chain-facts.ts";

/** Whether the block is on devnet's best chain (invalidated blocks stay known by hash). */
export function inActiveChain(chain: DevnetChain, entry: ChainBlock): boolean {
  return chain.byHeight.get(entry.height) === entry;
}

/**
 * What blockheaderToJSON adds to a block's own bytes: confirmations (-1 off the best chain, as
 * ComputeNextBlockAndDepth), height, mediantime and chainwork where devnet can know them
 * exactly (chain-facts.ts; left out otherwise), nextblockhash when devnet holds the next height.
 */
export function blockContext(chain: DevnetChain, entry: ChainBlock): BlockChainContext {
  const active = inActiveChain(chain, entry);
  const next = active ? chain.byHeight.get(entry.height + 1) : undefined;
  const mediantime = medianTimePast(chain, entry);
  const work = chainWork(chain, entry);
  return {
    confirmations: active ? chain.confirmations(entry) : -1,
    height: entry.height,
    ...(mediantime === undefined ? {} : { mediantime }),
    ...(work === undefined ? {} : { chainwork: uint256Hex(work) }),
    ...(next && next.block.previousblockhash === entry.block.hash
      ? { nextblockhash: next.block.hash }
      : {}),
  };
}
