import { describe, expect, it } from "vitest";
import { BatchGather } from "../../src/billing/ledger/batch-gather.ts";

/** When the settle queue's next statement waits for more of its batch (src/billing/ledger/batch-gather.ts). */
describe("the settle batch gather", () => {
  /** A gather on a clock the test moves (ms). */
  function gather(maxWaitUs: number) {
    const clock = { now: 0 };
    return { g: new BatchGather(maxWaitUs, () => clock.now), clock };
  }
  /** `n` arrivals, `gapMs` apart. */
  function arrive(t: ReturnType<typeof gather>, n: number, gapMs: number) {
    for (let i = 0; i < n; i++) {
      t.clock.now += gapMs;
      t.g.arrival();
    }
  }

  it("under a steady load, waits for as many calls as the recent batches held, for at most its bound", () => {
    const t = gather(600);
    arrive(t, 16, 0.1); // 10 calls per ms
    t.g.taken(3);
    t.g.taken(8);
    t.g.taken(5);
    expect(t.g.plan(2)).toEqual({ calls: 8, until: t.clock.now + 0.6 });
    expect(t.g.plan(7)).toEqual({ calls: 8, until: t.clock.now + 0.6 });
  });

  it("starts at once when the batch is already as large as the recent ones", () => {
    const t = gather(600);
    arrive(t, 16, 0.1);
    t.g.taken(4);
    expect(t.g.plan(4)).toBeNull();
    expect(t.g.plan(9)).toBeNull();
  });

  it("starts at once at a trickle: calls arriving slower than statements are written", () => {
    const t = gather(600);
    t.g.wrote(0.6);
    arrive(t, 16, 2); // one call per 2 ms, statements of 0.6 ms
    t.g.taken(2);
    expect(t.g.plan(1)).toBeNull();
    // The same calls, faster: one per 0.25 ms, two or more per statement.
    arrive(t, 32, 0.25);
    expect(t.g.plan(1)).toEqual({ calls: 2, until: t.clock.now + 0.6 });
    // Statements that have become quicker: fewer than two calls come during one, no wait.
    for (let i = 0; i < 30; i++) t.g.wrote(0.3);
    expect(t.g.plan(1)).toBeNull();
  });

  it("a load that has stopped has no rate: the next statement starts at once", () => {
    const t = gather(600);
    arrive(t, 32, 0.05);
    t.g.taken(8);
    expect(t.g.plan(1)).not.toBeNull();
    t.clock.now += 100; // nothing for 100 ms
    expect(t.g.plan(1)).toBeNull();
  });

  it("only the last eight batches set the expected size", () => {
    const t = gather(600);
    arrive(t, 32, 0.05);
    t.g.taken(20);
    for (let i = 0; i < 8; i++) t.g.taken(3);
    expect(t.g.plan(2)?.calls).toBe(3);
  });

  it("never waits with no history, with one call seen, or with a bound of 0", () => {
    const fresh = gather(600);
    expect(fresh.g.plan(0)).toBeNull();
    fresh.g.arrival();
    fresh.g.taken(4);
    expect(fresh.g.plan(1)).toBeNull();
    const off = gather(0);
    arrive(off, 32, 0.01);
    off.g.taken(8);
    expect(off.g.plan(1)).toBeNull();
  });
});
