import { describe, expect, it } from "vitest";
import { ByteLru } from "../../src/util/byte-lru.ts";
import { LruMap } from "../../src/util/lru.ts";
import { ageEverything, promotedBy } from "../support/promoted.ts";

describe("LRU recency (util/recency.ts)", () => {
  it("moves a used entry of the older half to the newest end, so it outlives the unused", () => {
    const lru = new LruMap<string, number>(4);
    for (const [i, k] of ["a", "b", "c", "d"].entries()) lru.set(k, i);
    expect(lru.get("a")).toBe(0); // the oldest: moved
    lru.set("e", 4);
    lru.set("f", 5);
    expect(lru.get("b")).toBeUndefined();
    expect(lru.get("c")).toBeUndefined();
    expect(lru.get("a")).toBe(0);
  });

  it("leaves an entry of the newer half where it is: it goes only after aging past half unused", () => {
    const lru = new LruMap<string, number>(4);
    for (const [i, k] of ["a", "b", "c", "d"].entries()) lru.set(k, i);
    expect(lru.get("d")).toBe(3); // the newest: nothing moves
    lru.set("e", 4); // a goes
    lru.set("f", 5); // b goes
    expect(lru.get("d")).toBe(3); // now in the older half: moved
    lru.set("g", 6); // c goes, not d
    expect(lru.get("c")).toBeUndefined();
    expect([lru.get("d"), lru.get("e"), lru.get("f"), lru.get("g")]).toEqual([3, 4, 5, 6]);
  });

  it("counts the newer half of an odd number of entries rounded up", () => {
    const lru = new LruMap<string, number>(3);
    for (const [i, k] of ["a", "b", "c"].entries()) lru.set(k, i);
    expect(lru.get("b")).toBe(1); // second newest of three: the newer half, not moved
    lru.set("d", 3); // a goes
    lru.set("e", 4); // b goes: used only while it was among the newer
    expect(lru.get("b")).toBeUndefined();
    expect([lru.get("c"), lru.get("d"), lru.get("e")]).toEqual([2, 3, 4]);
  });

  it("ByteLru follows the same rule within its byte budget", () => {
    const lru = new ByteLru<string>(4, () => 1);
    for (const k of ["a", "b", "c", "d"]) lru.set(k, k);
    expect(lru.get("a")).toBe("a");
    lru.set("e", "e");
    expect(lru.get("b")).toBeUndefined();
    expect(lru.get("a")).toBe("a");
    expect(lru.stats).toMatchObject({ entries: 4, bytes: 4, evictions: 1 });
  });

  it("serves a hot working set without rebuilding the cache's table (nothing promoted)", () => {
    const lru = new LruMap<string, { i: number }>(2000);
    for (let i = 0; i < 2000; i++) lru.set(`key ${i}`, { i });
    // Fifty hot entries asked for 20,000 times, each time by a key string of the caller's own.
    const work = () => {
      let found = 0;
      for (let r = 0; r < 20_000; r++) if (lru.get(`key ${r % 50}`)) found += 1;
      return found;
    };
    work();
    ageEverything();
    let found = 0;
    const promoted = promotedBy(() => {
      found = work();
    });
    expect(found).toBe(20_000);
    // Moving every hit (a delete and a set) promoted the callers' keys and the replaced tables.
    expect(promoted).toBeLessThan(300_000);
  });
});
