import type { NetworkName } from "../config/schema.ts";
import { ByteLru, type ByteLruStats } from "../util/byte-lru.ts";

/** A confirmed transaction: its bytes never change; where it was mined is kept beside them. */
export interface CachedTx {
  bytes: Uint8Array;
  blockhash: string;
  height: number;
  /** The block's header time (Core's `time` and `blocktime`). */
  blocktime: number;
  /**
   * The decoded form's JSON text without the block fields, memoised at the first verbose hit
   * (see TxCache.rendered): a hit then costs no decoding and no JSON writing. Counted in the
   * budget; this process's only (never written to Redis).
   */
  text?: string;
}

export type TxCacheStats = ByteLruStats;

/** What an entry costs beside its bytes: key, block hash and bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 200;

/**
 * A byte-bounded LRU of confirmed raw transactions, keyed by network and txid, shared by the node
 * and Electrum routes. Only what cannot change goes in: the bytes of a transaction buried under
 * enough blocks, and its block; confirmations are never stored — they are computed from the
 * current tip whenever an entry is served. Mempool transactions are never put here.
 */
export class TxCache {
  private readonly lru: ByteLru<CachedTx>;

  constructor(readonly bytesMax: number) {
    this.lru = new ByteLru(bytesMax, costOf);
  }

  get stats(): TxCacheStats {
    return this.lru.stats;
  }

  get(network: NetworkName, txid: string): CachedTx | undefined {
    return this.lru.get(`${network}:${txid}`);
  }

  has(network: NetworkName, txid: string): boolean {
    return this.lru.has(`${network}:${txid}`);
  }

  set(network: NetworkName, txid: string, entry: CachedTx): void {
    this.lru.set(`${network}:${txid}`, entry);
  }

  /**
   * The entry's memoised rendering, made by `render` the first time. Kept only while the entry is
   * still the cached one, and its size counted: a budget that ignored it would be off by the
   * decoded form, several times the raw bytes.
   */
  rendered(network: NetworkName, txid: string, entry: CachedTx, render: () => string): string {
    if (entry.text !== undefined) return entry.text;
    const text = render();
    this.lru.grow(`${network}:${txid}`, entry, () => {
      entry.text = text;
    });
    return text;
  }

  /** Drops an entry that can no longer be trusted (its block left the best chain). */
  evict(network: NetworkName, txid: string): void {
    this.lru.delete(`${network}:${txid}`);
  }

  /**
   * Drops every entry mined at `height` on `network`: a reorganisation replaced that block. A
   * scan, not an index: reorganisations that reach cached depths are rare, and an index per
   * height would cost memory on every entry for them.
   */
  dropHeight(network: NetworkName, height: number): number {
    const prefix = `${network}:`;
    return this.lru.dropWhere((key, entry) => entry.height === height && key.startsWith(prefix));
  }
}

function costOf(entry: CachedTx): number {
  return entry.bytes.length + (entry.text?.length ?? 0) + ENTRY_OVERHEAD_BYTES;
}
