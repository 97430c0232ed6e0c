/**
 * A small LRU map bounded by entry count: Map keeps insertion order, so the least recently used
 * entry is the first one, and a hit moves its entry to the end. For memos whose values are cheap
 * to keep and whose keys may be many (documents × variables): past `entriesMax` the oldest goes.
 */
export class LruMap<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(readonly entriesMax: number) {
    if (!Number.isInteger(entriesMax) || entriesMax < 1) {
      throw new Error(`LruMap: entriesMax must be a positive integer, got ${entriesMax}`);
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value === undefined) return undefined;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  delete(key: K): boolean {
    return this.entries.delete(key);
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.entriesMax) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }
}
