/**
 * A Map for entries that come and go all the time — what is in flight now, one entry per request
 * or call, deleted when it ends — renewed whenever it empties, and otherwise every so many
 * deletions, so that the Map itself is never old.
 *
 * Why: V8 links each hash table a churning Map replaces to its successor; in an old Map those dead
 * tables keep every request's entries alive through scavenges (bench/gc-survivors.ts,
 * docs/benchmarks.md). A Map that never empties is copied after RENEW_AFTER deletions.
 */
const RENEW_AFTER = 1024;

export class InFlightMap<K, V> {
  private map = new Map<K, V>();
  private deletions = 0;

  get size(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  set(key: K, value: V): this {
    this.map.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    if (!this.map.delete(key)) return false;
    this.deletions += 1;
    if (this.map.size === 0) {
      this.map = new Map();
      this.deletions = 0;
    } else if (this.deletions >= RENEW_AFTER) {
      this.map = new Map(this.map);
      this.deletions = 0;
    }
    return true;
  }

  keys(): IterableIterator<K> {
    return this.map.keys();
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }

  entries(): IterableIterator<[K, V]> {
    return this.map.entries();
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.map.entries();
  }
}
