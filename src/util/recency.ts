/**
 * The recency rule of the gateway's LRU caches (lru.ts, byte-lru.ts): a Map in insertion order
 * whose entry moves to the end when used, but only when it is in the older half. Moving on every
 * hit (a delete and a set) churns a long-lived Map's hash table, whose dead tables keep young keys
 * alive through scavenges (util/in-flight-map.ts). The price is exactness: an entry may be evicted
 * a little before one used less recently, never before it has aged past half the cache unused.
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
  if (2 * (clock.tick - slot.tick) < entries.size) return;
  entries.delete(slot.key);
  entries.set(slot.key, slot);
  slot.tick = ++clock.tick;
}
