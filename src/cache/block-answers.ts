import type { NetworkName } from "../config/schema.ts";
import type { Json } from "../jsonrpc/json.ts";
import type { BlockRef } from "./chain-guard.ts";

/** An indexer answer about deep blocks, and the blocks it is about (what a reorg must evict). */
export interface BlockAnswer {
  network: NetworkName;
  data: { [key: string]: Json };
  blocks: BlockRef[];
  /** What the entry costs in the budget: its JSON text and key. */
  bytes: number;
}

/**
 * A byte-bounded LRU of indexer answers about blocks buried deep enough not to change (the graph
 * route's `block_by_pk` of a deep block), keyed by network and request. An answer about a block is
 * final only while the block is on the best chain: `dropHeight` takes out every answer about a
 * block at a height a reorganisation replaced.
 */
export class BlockAnswerCache {
  // Map keeps insertion order: its first entry is the least recently used.
  private readonly entries = new Map<string, BlockAnswer>();
  private size = 0;
  readonly stats = { hits: 0, misses: 0, evictions: 0, entries: 0, bytes: 0 };

  constructor(readonly bytesMax: number) {}

  get(key: string): BlockAnswer | undefined {
    const entry = this.entries.get(key);
    if (!entry) {
      this.stats.misses += 1;
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.stats.hits += 1;
    return entry;
  }

  set(key: string, entry: BlockAnswer): void {
    if (entry.bytes > this.bytesMax) return;
    this.delete(key);
    this.entries.set(key, entry);
    this.size += entry.bytes;
    for (const [oldest, old] of this.entries) {
      if (this.size <= this.bytesMax) break;
      this.delete(oldest, old);
      this.stats.evictions += 1;
    }
    this.updateStats();
  }

  delete(key: string, entry = this.entries.get(key)): void {
    if (!entry) return;
    this.entries.delete(key);
    this.size -= entry.bytes;
    this.updateStats();
  }

  /** Drops every answer about a block at `height` on `network` (a scan: reorgs are rare). */
  dropHeight(network: NetworkName, height: number): number {
    let dropped = 0;
    for (const [key, entry] of this.entries) {
      if (entry.network === network && entry.blocks.some((b) => b.height === height)) {
        this.delete(key, entry);
        dropped += 1;
      }
    }
    this.stats.evictions += dropped;
    return dropped;
  }

  private updateStats(): void {
    this.stats.entries = this.entries.size;
    this.stats.bytes = this.size;
  }
}
