import { type BlockHeader, parseBlockHeader } from "../../bitcoin/block.ts";
import { toHex } from "../../bitcoin/hex.ts";
import type { ChainParams } from "./chain-params.ts";
import { blockProof, checkHeader } from "./header-check.ts";
import type { HeaderNode } from "./header-node.ts";

/** Headers off the best chain kept this far below its tip (deeper forks are forgotten). */
const FORK_DEPTH_MAX = 2_016;
/** Headers found invalid, remembered so an upstream serving one again is refused at once. */
const REJECTED_MAX = 1_000;

export type AddOutcome = { ok: true; node: HeaderNode } | { ok: false; reason: string };

/** A header as a node of the tree, on `prev` (its work added to `prev`'s). */
export function nodeOf(
  h: BlockHeader,
  prev: HeaderNode | null,
  height: number,
  chainwork: bigint,
): HeaderNode {
  return {
    height,
    hash: h.hash,
    header: toHex(h.headerBytes),
    merkleRoot: h.merkleroot,
    time: h.time,
    chainwork,
    version: h.version,
    bits: Number.parseInt(h.bits, 16),
    prev,
  };
}

/**
 * Every header checked for one network, as a tree (forks included), and its best chain: the
 * branch with the most work (the first seen wins a tie, as in Core). Headers enter only on a
 * parent already in the tree and only once checked (header-check.ts); the root is genesis or
 * the context below a checkpoint (checkpoint.ts).
 */
export class HeaderTree {
  private readonly nodes = new Map<string, HeaderNode>();
  private readonly rejected = new Map<string, string>();
  /** The best chain by height, from `floor` up. */
  private best: HeaderNode[] = [];
  private floor = 0;
  private readonly tipListeners = new Set<(tip: HeaderNode) => void>();

  constructor(
    readonly params: ChainParams,
    private readonly nowS: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  /** Installs the root chain (lowest first), trusted as given: genesis or a checkpoint's context. */
  seed(chain: readonly HeaderNode[]): void {
    for (const n of chain) this.nodes.set(n.hash, n);
    this.floor = chain[0]!.height;
    this.best = [...chain];
    this.changed();
  }

  get seeded(): boolean {
    return this.best.length > 0;
  }

  get lowest(): number {
    return this.floor;
  }

  tip(): HeaderNode | undefined {
    return this.best[this.best.length - 1];
  }

  atHeight(height: number): HeaderNode | undefined {
    return this.best[height - this.floor];
  }

  /** A header of the tree, on the best chain or not. */
  node(hash: string): HeaderNode | undefined {
    return this.nodes.get(hash);
  }

  onBest(hash: string): HeaderNode | undefined {
    const n = this.nodes.get(hash);
    return n && this.best[n.height - this.floor] === n ? n : undefined;
  }

  /** Why the header with this hash was refused, when it was. */
  rejection(hash: string): string | undefined {
    return this.rejected.get(hash);
  }

  /** Calls `fn` with the new tip whenever the best chain changes; returns the way to stop. */
  onTip(fn: (tip: HeaderNode) => void): () => void {
    this.tipListeners.add(fn);
    return () => this.tipListeners.delete(fn);
  }

  /** Checks the 80-byte header and adds it on its parent, which must be in the tree. */
  add(bytes: Uint8Array): AddOutcome {
    const h = parseBlockHeader(bytes);
    const known = this.nodes.get(h.hash);
    if (known) return { ok: true, node: known };
    const refused = this.rejected.get(h.hash);
    if (refused) return { ok: false, reason: refused };
    const parent = this.nodes.get(h.previousblockhash);
    if (!parent) return { ok: false, reason: "prev-blk-not-found" };
    const failed = checkHeader(this.params, parent, h, this.nowS());
    if (failed) {
      // Remembered with its height, so a later look at the same header says the same.
      const reason = `${failed} at height ${parent.height + 1}`;
      this.reject(h.hash, reason);
      return { ok: false, reason };
    }
    const work = parent.chainwork + blockProof(this.params, Number.parseInt(h.bits, 16));
    const node = nodeOf(h, parent, parent.height + 1, work);
    this.nodes.set(node.hash, node);
    if (node.chainwork > (this.tip()?.chainwork ?? -1n)) this.switchTo(node);
    return { ok: true, node };
  }

  private reject(hash: string, reason: string): void {
    this.rejected.set(hash, reason);
    if (this.rejected.size > REJECTED_MAX) this.rejected.delete(this.rejected.keys().next().value!);
  }

  /** Makes `tip`'s branch the best chain: the heights above the fork point are replaced. */
  private switchTo(tip: HeaderNode): void {
    const branch: HeaderNode[] = [];
    let at: HeaderNode | null = tip;
    while (at && this.best[at.height - this.floor] !== at) {
      branch.push(at);
      at = at.prev;
    }
    this.best.length = (at ? at.height : this.floor - 1) - this.floor + 1;
    for (let i = branch.length - 1; i >= 0; i--) this.best.push(branch[i]!);
    this.prune();
    this.changed();
  }

  /** Forgets forks that fell deeper than FORK_DEPTH_MAX below the tip. */
  private prune(): void {
    if (this.nodes.size - this.best.length < FORK_DEPTH_MAX) return;
    const below = this.tip()!.height - FORK_DEPTH_MAX;
    for (const [hash, n] of this.nodes) {
      if (n.height < below && this.best[n.height - this.floor] !== n) this.nodes.delete(hash);
    }
  }

  private changed(): void {
    const tip = this.tip();
    if (tip) for (const fn of this.tipListeners) fn(tip);
  }
}
