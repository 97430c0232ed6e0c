import type { NetworkName } from "../config/schema.ts";
import type { Json } from "../protocol/json/json.ts";
import { ByteLru, type ByteLruStats } from "../util/byte-lru.ts";
import type { BlockRef } from "./chain-guard.ts";

/**
 * An answer about deep blocks, and the blocks it is about (what a reorg must evict): the graph
 * route's indexer answer by default, or whatever another route keeps (the unified API's whole
 * answers: src/routes/gateway/answers/).
 */
export interface BlockAnswer<T = { [key: string]: Json }> {
  network: NetworkName;
  data: T;
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
export class BlockAnswerCache<T = { [key: string]: Json }> {
  private readonly lru: ByteLru<BlockAnswer<T>>;

  constructor(readonly bytesMax: number) {
    this.lru = new ByteLru(bytesMax, (entry) => entry.bytes);
  }

  get stats(): ByteLruStats {
    return this.lru.stats;
  }

  get(key: string): BlockAnswer<T> | undefined {
    return this.lru.get(key);
  }

  set(key: string, entry: BlockAnswer<T>): void {
    this.lru.set(key, entry);
  }

  delete(key: string): void {
    this.lru.delete(key);
  }

  /** Drops every answer about a block at `height` on `network` (a scan: reorgs are rare). */
  dropHeight(network: NetworkName, height: number): number {
    return this.lru.dropWhere(
      (_key, entry) => entry.network === network && entry.blocks.some((b) => b.height === height),
    );
  }
}
