import { type Slot, touch } from "./recency.ts";

/**
 * A small LRU map bounded by entry count: Map keeps insertion order, so the least recently used
 * entry is the first one, and a hit moves its entry to the end — unless it is among the newer
 * half already (util/recency.ts: most hits then change nothing). For memos whose values are cheap
 * to keep and whose keys may be many (documents × variables): past `entriesMax` the oldest goes.
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, Slot<K, V>>();
  private readonly clock = { tick: 0 };

  constructor(readonly entriesMax: number) {
    if (!Number.isInteger(entriesMax) || entriesMax < 1) {
      throw new Error(`LruMap: entriesMax must be a positive integer, got ${entriesMax}`);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const slot = this.entries.get(key);
    if (slot === undefined) return undefined;
    touch(this.entries, slot, this.clock);
    return slot.value;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { key, value, tick: ++this.clock.tick });
    if (this.entries.size > this.entriesMax) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}
