import { jsonInteger, jsonNumber } from "../protocol/json/json.ts";
import type { BitcoinCorePool } from "../upstreams/bitcoin-core/pool.ts";

/** Where a cached answer was mined: what must still be on the best chain for it to be served. */
export interface BlockRef {
  height: number;
  blockhash: string;
}

/** Heights whose block hash the guard remembers (the cache's blocks); the oldest go first. */
const ANCHORS_MAX = 10_000;
/** Anchors re-checked per round trip when the tip moves, highest first. */
const CHECKS_PER_TRIP = 8;

/**
 * Follows one network's best chain through its full node, for the response cache: what it vouches
 * for may be served, what it finds replaced is evicted (`onStale`). The tip (`getblockcount`) is
 * trusted for ttlMs; each refresh asks `getblockhash` at the highest cached heights in the same
 * batch and walks down until one matches, which finds every block a reorganisation replaced. A
 * height not seen before (another process's Redis entry) is checked once before it is served. A
 * node that cannot be asked makes the guard vouch for nothing: the caller asks the upstream.
 */
export class ChainGuard {
  private height: number | null = null;
  private at = 0;
  private refreshing: Promise<number | null> | null = null;
  private readonly anchors = new Map<number, string>();

  constructor(
    private readonly pool: BitcoinCorePool,
    private readonly ttlMs: number,
    /** Told of each height whose cached block is no longer on the best chain. */
    private readonly onStale: (height: number) => void,
  ) {}

  /** The node's block count, refreshed (and the anchors re-checked) when older than ttlMs. */
  tip(): Promise<number | null> {
    if (this.height !== null && Date.now() - this.at < this.ttlMs) {
      return Promise.resolve(this.height);
    }
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  /** A height learned on the side (a node answer that implies the tip), kept if newer. */
  note(height: number): void {
    if (this.height === null || height >= this.height) {
      this.height = height;
      this.at = Date.now();
    }
  }

  /**
   * For each block, whether it is on the best chain as far as the guard knows now: remembered
   * heights are compared, others asked of the node in one batch. A block found replaced is
   * reported stale (evicting what the cache holds of it) and answered false.
   */
  async onBestChain(blocks: readonly BlockRef[]): Promise<boolean[]> {
    const unknown = [...new Set(blocks.map((b) => b.height))].filter((h) => !this.anchors.has(h));
    if (unknown.length > 0) {
      const hashes = await this.hashesAt(unknown);
      if (hashes === null) return blocks.map(() => false);
      unknown.forEach((h, i) => {
        const hash = hashes[i];
        if (hash) this.anchor(h, hash);
      });
    }
    return blocks.map((b) => {
      const hash = this.anchors.get(b.height);
      if (hash === undefined) return false;
      if (hash === b.blockhash) return true;
      return false;
    });
  }

  /** Remembers a block the caller knows is on the best chain now (an answer the node just gave). */
  anchor(height: number, blockhash: string): void {
    const known = this.anchors.get(height);
    if (known !== undefined && known !== blockhash) this.onStale(height);
    this.anchors.delete(height);
    this.anchors.set(height, blockhash);
    if (this.anchors.size > ANCHORS_MAX) {
      // The oldest anchor goes: entries at its height are checked again when next served.
      const oldest = this.anchors.keys().next().value;
      if (oldest !== undefined) this.anchors.delete(oldest);
    }
  }

  private async refresh(): Promise<number | null> {
    const heights = [...this.anchors.keys()].sort((a, b) => b - a);
    let checked = 0;
    let tip: number | null = null;
    // The first trip carries getblockcount; more trips only while every anchor checked is stale.
    while (true) {
      const batch = heights.slice(checked, checked + CHECKS_PER_TRIP);
      const first = tip === null;
      const out = await this.pool.batch([
        ...(first ? [{ method: "getblockcount", params: [] }] : []),
        ...batch.map((h) => ({ method: "getblockhash", params: [jsonNumber(h)] })),
      ]);
      if (!out.ok) return null;
      const answers = first ? out.answers.slice(1) : out.answers;
      if (first) {
        const count = out.answers[0];
        const height = count && "result" in count ? jsonInteger(count.result) : undefined;
        if (height === undefined) return null;
        tip = height;
      }
      let matched = false;
      batch.forEach((h, i) => {
        if (matched) return;
        const answer = answers[i];
        const hash = answer && "result" in answer ? answer.result : undefined;
        if (hash === this.anchors.get(h)) {
          matched = true;
          return;
        }
        // Above the new tip (-8) or another block at that height: what was cached there is gone.
        this.anchors.delete(h);
        this.onStale(h);
      });
      checked += batch.length;
      if (matched || checked >= heights.length) break;
    }
    this.height = tip;
    this.at = Date.now();
    return tip;
  }

  /** The best chain's block hashes at these heights (undefined where it has none); null: no node. */
  private async hashesAt(heights: readonly number[]): Promise<(string | undefined)[] | null> {
    const out = await this.pool.batch(
      heights.map((h) => ({ method: "getblockhash", params: [jsonNumber(h)] })),
    );
    if (!out.ok) return null;
    return out.answers.map((a) =>
      "result" in a && typeof a.result === "string" ? a.result : undefined,
    );
  }
}
