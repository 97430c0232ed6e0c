import { type Slot, touch } from "./recency.ts";

/** What a byte-bounded cache has done, for tests, benches and metrics. */
export interface ByteLruStats {
  hits: number;
  misses: number;
  evictions: number;
  entries: number;
  bytes: number;
}

/**
 * An LRU bounded by what its entries cost in bytes (`costOf`), not by their count: Map keeps
 * insertion order, so the least recently used entry is the first one, and a hit moves its entry
 * to the end unless it is among the newer half already (util/recency.ts). An entry that alone
 * costs more than the budget is not kept. The response caches (src/cache/) are this with their
 * own keys and what a reorganisation must drop.
 */
export class ByteLru<V> {
  private readonly entries = new Map<string, Slot<string, V>>();
  private readonly clock = { tick: 0 };
  private size = 0;
  readonly stats: ByteLruStats = { hits: 0, misses: 0, evictions: 0, entries: 0, bytes: 0 };

  constructor(
    readonly bytesMax: number,
    private readonly costOf: (value: V) => number,
  ) {}

  get(key: string): V | undefined {
    const slot = this.entries.get(key);
    if (slot === undefined) {
      this.stats.misses += 1;
      return undefined;
    }
    touch(this.entries, slot, this.clock);
    this.stats.hits += 1;
    return slot.value;
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  set(key: string, value: V): void {
    if (this.costOf(value) > this.bytesMax) return;
    this.remove(key);
    this.entries.set(key, { key, value, tick: ++this.clock.tick });
    this.size += this.costOf(value);
    this.fitBudget();
  }

  /**
   * Changes `value` in place with `change` while it is still the entry at `key`, counting what
   * that adds to its cost (older entries make room); false, and nothing changed, when it is not.
   */
  grow(key: string, value: V, change: () => void): boolean {
    if (this.entries.get(key)?.value !== value) return false;
    const before = this.costOf(value);
    change();
    this.size += this.costOf(value) - before;
    this.fitBudget();
    return true;
  }

  delete(key: string): void {
    this.remove(key);
    this.updateStats();
  }

  /** Drops every entry `doomed` names (a scan: what calls it, a reorganisation, is rare). */
  dropWhere(doomed: (key: string, value: V) => boolean): number {
    let dropped = 0;
    for (const [key, { value }] of this.entries) {
      if (doomed(key, value)) {
        this.remove(key);
        dropped += 1;
      }
    }
    this.stats.evictions += dropped;
    this.updateStats();
    return dropped;
  }

  private remove(key: string): void {
    const slot = this.entries.get(key);
    if (slot === undefined) return;
    this.entries.delete(key);
    this.size -= this.costOf(slot.value);
  }

  private fitBudget(): void {
    for (const key of this.entries.keys()) {
      if (this.size <= this.bytesMax) break;
      this.remove(key);
      this.stats.evictions += 1;
    }
    this.updateStats();
  }

  private updateStats(): void {
    this.stats.entries = this.entries.size;
    this.stats.bytes = this.size;
  }
}
