/**
 * The recency rule of the gateway's LRU caches (lru.ts, byte-lru.ts): a Map in insertion order,
 * oldest first, whose entry moves to the end when it is used — but only when it is in the older
 * half, counted in moves since its own. A hit on an entry among the newer half changes nothing,
 * so a working set smaller than half the cache is served without touching the Map at all.
 *
 * Why not move on every hit: a hit was a delete and a set, and a long-lived Map that is deleted
 * from and added to all the time rebuilds its hash table every few operations. Each replaced
 * table is linked to its successor (for iterators), so once the cache is in V8's old generation
 * its dead tables keep the young ones after them — and the young keys each hit wrote — alive
 * through every scavenge until a major collection (util/in-flight-map.ts tells the same of maps
 * of what is in flight). What an entry in the newer half gives up is exactness: it may be evicted
 * a little before an entry used less recently, never before it has aged past half the cache
 * without a use.
 */
export interface Slot<K, V> {
  /** The key the entry was set with (moves re-use it, not a caller's copy of it). */
  readonly key: K;
  value: V;
  /** The clock's tick when the entry was set or last moved. */
  tick: number;
}

/** Moves `slot` to the newest end of `entries` if it is in the older half. */
export function touch<K, V>(
  entries: Map<K, Slot<K, V>>,
  slot: Slot<K, V>,
  clock: { tick: number },
): void {
  if (clock.tick - slot.tick < entries.size >> 1) return;
  entries.delete(slot.key);
  entries.set(slot.key, slot);
  slot.tick = ++clock.tick;
}
