/**
 * A Map for entries that come and go all the time — what is in flight now, one entry per request
 * or call, deleted when it ends — renewed whenever it empties, and otherwise every so many
 * deletions, so that the Map itself is never old.
 *
 * Why: a JavaScript Map that keeps being added to and deleted from rebuilds its hash table every
 * few operations, and V8 links each table it replaces to its successor (for iterators still
 * walking the old one). Once such a Map has lived long enough to be in the old generation, the
 * table it replaces next is old and dead, yet points to the young table after it, which points to
 * the next, and every one of them to the entries it held: the young generation's collector counts
 * old objects as live, so every request's entries — and all they reach (a call's answer, its
 * text) — survive each scavenge until a major collection, which the same Map sets off again at
 * once. Measured on the Core pool's calls one at a time (fifty per request): ~4 MB copied and
 * promoted per scavenge, 3–4 ms pauses, against 0.1 MB and 1 ms with the Map renewed; for the
 * whole gateway see bench/gc-survivors.ts and test/util/in-flight-map.test.ts.
 * A Map that empties at every request never grows old; one that never empties (steady
 * concurrency) is copied into a new one after RENEW_AFTER deletions, which bounds what a chain can
 * hold to that many.
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
