import type { VerifiedHeader } from "./verified-header.ts";

/** A checked header as the chain keeps it: its parent linked, its cumulative work known. */
export interface HeaderNode extends VerifiedHeader {
  readonly version: number;
  readonly bits: number;
  /** The parent; null at genesis, or at the lowest header kept below a checkpoint. */
  readonly prev: HeaderNode | null;
}

/** The ancestor of `node` at `height` (CBlockIndex::GetAncestor); undefined below what is kept. */
export function ancestorAt(node: HeaderNode, height: number): HeaderNode | undefined {
  let at: HeaderNode | null = node;
  while (at && at.height > height) at = at.prev;
  return at && at.height === height ? at : undefined;
}

/** GetMedianTimePast: the median time of `node` and up to ten ancestors. */
export function medianTimePast(node: HeaderNode): number {
  const times: number[] = [];
  for (let at: HeaderNode | null = node; at && times.length < 11; at = at.prev) times.push(at.time);
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}
