import { parseBlockHeader } from "../../bitcoin/block.ts";
import { adjustmentInterval, type ChainParams, genesisHeader } from "./chain-params.ts";
import { blockProof } from "./header-check.ts";
import type { HeaderNode } from "./header-node.ts";
import { nodeOf } from "./header-tree.ts";

/** A block the operator trusts, where a network's verified chain starts instead of genesis. */
export interface Checkpoint {
  height: number;
  hash: string;
  /** Core's chainwork at the checkpoint, hex. */
  chainwork: string;
}

/** The genesis block as the root of the tree: its work is its own proof (Core's nChainWork). */
export function genesisRoot(p: ChainParams): HeaderNode[] {
  const g = parseBlockHeader(genesisHeader(p.network).header);
  return [nodeOf(g, null, 0, blockProof(p, Number.parseInt(g.bits, 16)))];
}

/**
 * The lowest height a checkpoint's context starts at: its difficulty period's first block (the
 * next retarget and the testnet rule look back that far) and at least the ten blocks below it
 * (median time past).
 */
export function contextFloor(p: ChainParams, c: Checkpoint): number {
  const periodStart = c.height - (c.height % adjustmentInterval(p));
  return Math.max(0, Math.min(periodStart, c.height - 10));
}

/**
 * The checkpoint and the headers below it down to `contextFloor` (given lowest first), as the
 * root of the tree: each must name the one before as its parent and the last must hash to the
 * checkpoint's hash — the hash commits to them all, so they are as trusted as it is. Their work
 * is counted down from the checkpoint's chainwork. A reason when they are not that chain.
 */
export function checkpointRoot(
  p: ChainParams,
  c: Checkpoint,
  headers: readonly Uint8Array[],
): HeaderNode[] | string {
  const floor = contextFloor(p, c);
  if (headers.length !== c.height - floor + 1) return "lacks headers below the checkpoint";
  const parsed = headers.map((b) => parseBlockHeader(b));
  if (parsed[parsed.length - 1]!.hash !== c.hash) return "has no header hashing to the checkpoint";
  for (let i = 1; i < parsed.length; i++) {
    if (parsed[i]!.previousblockhash !== parsed[i - 1]!.hash) {
      return "has headers below the checkpoint that do not link";
    }
  }
  const works: bigint[] = new Array(parsed.length);
  let work = BigInt(`0x${c.chainwork}`);
  for (let i = parsed.length - 1; i >= 0; i--) {
    works[i] = work;
    work -= blockProof(p, Number.parseInt(parsed[i]!.bits, 16));
  }
  const nodes: HeaderNode[] = [];
  parsed.forEach((h, i) => {
    nodes.push(nodeOf(h, nodes[i - 1] ?? null, floor + i, works[i]!));
  });
  return nodes;
}
