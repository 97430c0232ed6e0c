import { ByteLru, type ByteLruStats } from "../../util/byte-lru.ts";
import type { EsploraAnswer } from "./client.ts";

/**
 * Paths whose answer a block's hash fixes for good: the block itself, its header, its raw bytes,
 * its txids, one txid by index. A hash commits to all of them, so no reorganisation or new block
 * can change them, and a stale block's answers stay true of that block. What depends on the
 * chain's tip (a block's status, heights, a transaction's confirmation) is never kept.
 */
const KEPT = /^\/block\/[0-9a-f]{64}(\/header|\/raw|\/txids|\/txid\/\d{1,7})?$/;

/** Whether an Esplora GET path (below /api) is kept once answered 200. */
export function isKeptPath(path: string): boolean {
  return KEPT.test(path);
}

/** Esplora's 200 answers to content-addressed block paths, byte-bounded, per network's pool. */
export class EsploraAnswerCache {
  private readonly lru: ByteLru<EsploraAnswer>;

  constructor(readonly bytesMax: number) {
    // The body dominates; the key and the content type are counted as a small constant.
    this.lru = new ByteLru(bytesMax, (answer) => answer.body.length + 256);
  }

  get stats(): ByteLruStats {
    return this.lru.stats;
  }

  get(path: string): EsploraAnswer | undefined {
    return this.bytesMax > 0 && isKeptPath(path) ? this.lru.get(path) : undefined;
  }

  /** Keeps `answer` when its path is content-addressed and Esplora answered it 200. */
  offer(path: string, answer: EsploraAnswer): void {
    if (this.bytesMax === 0 || answer.status !== 200 || !isKeptPath(path)) return;
    this.lru.set(path, { ...answer });
  }
}
