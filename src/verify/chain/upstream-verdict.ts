import type { ChainParams } from "./chain-params.ts";
import { blockProof } from "./header-check.ts";
import type { HeaderNode } from "./header-node.ts";

/** Where an upstream stands against the verified chain. */
export type Standing =
  | { status: "consistent"; height: number }
  | { status: "inconsistent"; reason: string; height?: number };

/**
 * An upstream whose tip is a verified header is consistent unless its chain has less work than
 * the best by more than `lagBlocksMax` blocks' work at the best tip's difficulty (a block or two
 * not yet reached it is not a fault; a chain held back, or a stale branch, is).
 */
export function standingOf(
  p: ChainParams,
  best: HeaderNode,
  node: HeaderNode,
  lagBlocksMax: number,
): Standing {
  const allowance = BigInt(lagBlocksMax) * blockProof(p, best.bits);
  if (best.chainwork - node.chainwork <= allowance)
    return { status: "consistent", height: node.height };
  const behind = best.height - node.height;
  return {
    status: "inconsistent",
    height: node.height,
    reason: `its chain has less work than the verified chain (tip ${node.height}, ${behind} below ${best.height})`,
  };
}
