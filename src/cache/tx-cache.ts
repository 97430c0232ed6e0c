import type { NetworkName } from "../config/schema.ts";

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

export interface TxCacheStats {
  hits: number;
  misses: number;
  evictions: number;
  entries: number;
  bytes: number;
}

/** What an entry costs beside its bytes: key, block hash and bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 200;

/**
 * A byte-bounded LRU of confirmed raw transactions, keyed by network and txid, shared by the node
 * and Electrum routes. Only what cannot change goes in: the bytes of a transaction buried under
 * enough blocks, and its block; confirmations are never stored — they are computed from the
 * current tip whenever an entry is served. Mempool transactions are never put here.
 */
export class TxCache {
  // Map keeps insertion order: its first entry is the least recently used.
  private readonly entries = new Map<string, CachedTx>();
  private size = 0;
  readonly stats: TxCacheStats = { hits: 0, misses: 0, evictions: 0, entries: 0, bytes: 0 };

  constructor(readonly bytesMax: number) {}

  get(network: NetworkName, txid: string): CachedTx | undefined {
    const key = `${network}:${txid}`;
    const entry = this.entries.get(key);
    if (!entry) {
      this.stats.misses += 1;
      return undefined;
    }
    // Map keeps insertion order: re-inserting makes this the most recently used entry.
    this.entries.delete(key);
    this.entries.set(key, entry);
    this.stats.hits += 1;
    return entry;
  }

  has(network: NetworkName, txid: string): boolean {
    return this.entries.has(`${network}:${txid}`);
  }

  set(network: NetworkName, txid: string, entry: CachedTx): void {
    const cost = costOf(entry);
    if (cost > this.bytesMax) return;
    const key = `${network}:${txid}`;
    this.delete(key);
    this.entries.set(key, entry);
    this.size += cost;
    this.evictOverBudget();
    this.updateStats();
  }

  private evictOverBudget(): void {
    for (const [oldest, old] of this.entries) {
      if (this.size <= this.bytesMax) break;
      this.delete(oldest, old);
      this.stats.evictions += 1;
    }
  }

  /**
   * The entry's memoised rendering, made by `render` the first time. Kept only while the entry is
   * still the cached one, and its size counted: a budget that ignored it would be off by the
   * decoded form's 3–4× the raw bytes.
   */
  rendered(network: NetworkName, txid: string, entry: CachedTx, render: () => string): string {
    if (entry.text !== undefined) return entry.text;
    const text = render();
    if (this.entries.get(`${network}:${txid}`) !== entry) return text;
    entry.text = text;
    this.size += text.length;
    this.evictOverBudget();
    this.updateStats();
    return text;
  }

  /** Drops an entry that can no longer be trusted (its block left the best chain). */
  evict(network: NetworkName, txid: string): void {
    this.delete(`${network}:${txid}`);
    this.updateStats();
  }

  /**
   * Drops every entry mined at `height` on `network`: a reorganisation replaced that block. A
   * scan, not an index: reorganisations that reach cached depths are rare, and an index per
   * height would cost memory on every entry for them.
   */
  dropHeight(network: NetworkName, height: number): number {
    const prefix = `${network}:`;
    let dropped = 0;
    for (const [key, entry] of this.entries) {
      if (entry.height === height && key.startsWith(prefix)) {
        this.delete(key, entry);
        dropped += 1;
      }
    }
    this.stats.evictions += dropped;
    this.updateStats();
    return dropped;
  }

  private delete(key: string, entry = this.entries.get(key)): void {
    if (!entry) return;
    this.entries.delete(key);
    this.size -= costOf(entry);
  }

  private updateStats(): void {
    this.stats.entries = this.entries.size;
    this.stats.bytes = this.size;
  }
}

function costOf(entry: CachedTx): number {
  return entry.bytes.length + (entry.text?.length ?? 0) + ENTRY_OVERHEAD_BYTES;
}
