// An ended trip's answer may be taken by an identical request for as long after its end as the
// trip took, at most msMax, and never once the tip moved (src/upstreams/finished-trips.ts,
// decision 0058). The clock is the test's, so every bound is checked at its edge.
import { describe, expect, it } from "vitest";
import { FinishedTrips } from "../../src/upstreams/finished-trips.ts";

type Outcome = { ok: boolean; n: number };

/** A trip the test ends: `end` resolves it at the clock's time then. */
function trip() {
  let end!: (o: Outcome) => void;
  const promise = new Promise<Outcome>((resolve) => {
    end = resolve;
  });
  return { promise, end: async (o: Outcome) => end(o) };
}

function finished(msMax: number) {
  const clock = { ms: 1_000 };
  const trips = new FinishedTrips<Outcome>(
    msMax,
    (o) => o.ok,
    () => clock.ms,
  );
  /** Starts a trip for `key` at the clock's time, ends it `tookMs` later with `outcome`. */
  const run = async (key: string, tookMs: number, outcome: Outcome) => {
    const t = trip();
    trips.watch(key, t.promise);
    clock.ms += tookMs;
    await t.end(outcome);
    await t.promise;
    // The keeping callback ran before any later caller of the promise.
    await Promise.resolve();
  };
  return { clock, trips, run };
}

describe("answers of ended trips", () => {
  it("are taken for as long after the end as the trip took, not a millisecond more", async () => {
    const { clock, trips, run } = finished(10);
    await run("q", 4, { ok: true, n: 1 });
    clock.ms += 4;
    expect(await trips.get("q")).toEqual({ ok: true, n: 1 });
    clock.ms += 0.001;
    expect(trips.get("q")).toBeUndefined();
    expect(trips.get("other")).toBeUndefined();
    expect(trips.stats).toEqual({ kept: 1, taken: 1 });
  });

  it("at most msMax after the end, however long the trip took", async () => {
    const { clock, trips, run } = finished(10);
    await run("q", 50, { ok: true, n: 1 });
    clock.ms += 10;
    expect(trips.get("q")).toBeDefined();
    clock.ms += 1;
    expect(trips.get("q")).toBeUndefined();
  });

  it("the latest trip's answer, not an earlier one's", async () => {
    const { clock, trips, run } = finished(10);
    await run("q", 5, { ok: true, n: 1 });
    await run("q", 5, { ok: true, n: 2 });
    clock.ms += 1;
    expect(await trips.get("q")).toEqual({ ok: true, n: 2 });
  });

  it("never once the tip moved: neither what ended before nor what was under way", async () => {
    const { clock, trips, run } = finished(10);
    await run("q", 5, { ok: true, n: 1 });
    trips.newTip();
    expect(trips.get("q")).toBeUndefined();
    // A trip under way when the tip moves may hold the old tip's answer: not kept.
    const under = trip();
    trips.watch("r", under.promise);
    trips.newTip();
    clock.ms += 5;
    await under.end({ ok: true, n: 2 });
    await under.promise;
    await Promise.resolve();
    expect(trips.get("r")).toBeUndefined();
    // One started after the tip moved is kept.
    await run("r", 5, { ok: true, n: 3 });
    expect(await trips.get("r")).toEqual({ ok: true, n: 3 });
  });

  it("failures are not kept, and msMax 0 keeps nothing", async () => {
    const { trips, run } = finished(10);
    await run("q", 5, { ok: false, n: 1 });
    expect(trips.get("q")).toBeUndefined();
    const off = finished(0);
    await off.run("q", 5, { ok: true, n: 1 });
    expect(off.trips.get("q")).toBeUndefined();
    expect(off.trips.stats).toEqual({ kept: 0, taken: 0 });
  });

  it("entries of long ago are let go as new ones come (two generations of msMax)", async () => {
    const { clock, trips, run } = finished(10);
    await run("old", 5, { ok: true, n: 1 });
    clock.ms += 100;
    await run("a", 5, { ok: true, n: 2 });
    clock.ms += 100;
    await run("b", 5, { ok: true, n: 3 });
    // "old", long expired, is no longer held; "a" (expired too) is, until the next generation.
    expect(trips.size).toBe(2);
  });
});
