import { deriveTarget, type Network } from "../bitcoin/index.ts";
import type { ChainBlock, DevnetChain } from "./chain.ts";

/** Core's GetBlockProof: 2^256 / (target + 1), the expected hashes to meet the header's nBits. */
export function blockProof(bits: string, network: Network): bigint {
  const target = deriveTarget(Number.parseInt(bits, 16), network);
  return target === undefined ? 0n : (1n << 256n) / (target + 1n);
}

/** The block below `entry` on devnet's chain, when devnet holds it (the chain may be sparse). */
export function parentOf(chain: DevnetChain, entry: ChainBlock): ChainBlock | undefined {
  if (entry.height === 0) return undefined;
  const below = chain.byHash.get(entry.block.previousblockhash);
  return below && below.height === entry.height - 1 ? below : undefined;
}

/**
 * Core's GetMedianTimePast: the median of the times of the block and its up to 10 ancestors.
 * Exact where devnet holds all of them (heights 0–255, produced chains) or Core's value is
 * shipped for the block; undefined where an ancestor is missing, never a guess.
 */
export function medianTimePast(chain: DevnetChain, entry: ChainBlock): number | undefined {
  const anchored = chain.anchors.get(entry.block.hash);
  if (anchored) return anchored.mediantime;
  const times: number[] = [];
  let at: ChainBlock | undefined = entry;
  for (let i = 0; i < 11 && at; i++) {
    times.push(at.block.time);
    if (at.height === 0) break;
    const below = parentOf(chain, at);
    if (!below && i < 10) return undefined;
    at = below;
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

/**
 * Core's nChainWork: the work of every block from genesis to this one. Exact where devnet holds
 * the whole way down to genesis or to a block whose Core value is shipped; undefined otherwise.
 */
export function chainWork(chain: DevnetChain, entry: ChainBlock): bigint | undefined {
  const path: ChainBlock[] = [];
  let at: ChainBlock | undefined = entry;
  let base = 0n;
  while (at) {
    const cachedWork = chain.workMemo.get(at.block.hash);
    const anchored = chain.anchors.get(at.block.hash);
    if (cachedWork !== undefined || anchored) {
      base = cachedWork ?? anchored!.chainwork;
      break;
    }
    path.push(at);
    if (at.height === 0) break;
    at = parentOf(chain, at);
    if (!at) return undefined;
  }
  let work = base;
  for (let i = path.length - 1; i >= 0; i--) {
    const b = path[i]!;
    work += blockProof(b.block.bits, chain.network);
    chain.workMemo.set(b.block.hash, work);
  }
  return work;
}
