import { describe, expect, it } from "vitest";
import { InFlightMap } from "../../src/util/in-flight-map.ts";
import { ageEverything, promotedBy } from "../support/promoted.ts";

describe("InFlightMap", () => {
  it("is a Map for what is in flight: get, has, set, delete, size and iteration", () => {
    const m = new InFlightMap<string, number>();
    m.set("a", 1).set("b", 2);
    expect(m.get("a")).toBe(1);
    expect(m.has("b")).toBe(true);
    expect(m.size).toBe(2);
    expect(m.delete("a")).toBe(true);
    expect(m.delete("a")).toBe(false);
    expect([...m]).toEqual([["b", 2]]);
    expect([...m.keys()]).toEqual(["b"]);
    expect([...m.values()]).toEqual([2]);
    expect(m.delete("b")).toBe(true);
    expect(m.size).toBe(0);
    expect(m.get("b")).toBeUndefined();
  });

  it("keeps every entry across its renewals, and can be emptied while iterated", () => {
    const m = new InFlightMap<number, number>();
    // Never empty: renewed by copy every so many deletions, its entries all kept.
    m.set(-1, -1);
    for (let i = 0; i < 5000; i++) {
      m.set(i, i * 2);
      expect(m.delete(i)).toBe(true);
    }
    for (let i = 0; i < 100; i++) m.set(i, i);
    expect(m.size).toBe(101);
    expect(m.get(-1)).toBe(-1);
    // As the Electrum connection fails what it has in flight: each entry seen once, then gone.
    const seen: number[] = [];
    for (const [key] of m) {
      m.delete(key);
      seen.push(key);
    }
    expect(seen.sort((a, b) => a - b)).toEqual([-1, ...Array.from({ length: 100 }, (_, i) => i)]);
    expect(m.size).toBe(0);
  });

  it("keeps what its deleted entries held out of the old generation, however long it has lived", () => {
    const m = new InFlightMap<string, { text: string }>();
    // Four hundred requests of fifty calls, each holding 10 KB (4 MB in all) while in flight.
    const work = () => {
      for (let r = 0; r < 400; r++) {
        const held = { text: `${"x".repeat(10_000)}${r}` };
        const keys: string[] = [];
        for (let k = 0; k < 50; k++) {
          const key = `call ${k} of request ${r}`;
          keys.push(key);
          m.set(key, held);
        }
        for (const key of keys) m.delete(key);
      }
    };
    work(); // once first: compiling it allocates in the old generation too
    ageEverything(); // the map is old, as a server's registry of what is in flight is
    const promoted = promotedBy(work);
    // A plain Map used the same way promotes nearly all of it: its replaced hash
    // tables, old and dead, link to the young ones after them.
    expect(promoted).toBeLessThan(1_000_000);
  });
});
