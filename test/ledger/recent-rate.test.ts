// An account's recent rate of reservations (src/billing/ledger/recent-rate.ts), which sizes its
// credit leases: read at rates above one reservation a millisecond, where many share a clock tick.
import { describe, expect, it } from "vitest";
import { RecentRate } from "../../src/billing/ledger/recent-rate.ts";

const HALF_LIFE_MS = 1_000;
/** What a steady rate reads: each reservation weighs 1000/halfLife and halves every half-life. */
const steady = (ccPerSecond: number) => ccPerSecond / Math.LN2;

/** `perMs` reservations of `amount` CC in each millisecond for `ms` ms; the last one's time. */
function feed(rate: RecentRate, from: number, ms: number, perMs: number, amount: number): number {
  for (let t = from; t < from + ms; t++) for (let k = 0; k < perMs; k++) rate.observe(amount, t);
  return from + ms - 1;
}

describe("an account's recent rate", () => {
  it("reads a steady rate of many reservations a millisecond as it reads a slow one", () => {
    // 5,000 calls of 200 CC a second, five in each millisecond: a million CC a second.
    const fast = new RecentRate(HALF_LIFE_MS, 0);
    feed(fast, 0, 10_000, 5, 200);
    expect(fast.perSecond / steady(1_000_000)).toBeCloseTo(1, 1);
    // One call every ten milliseconds: 20,000 CC a second.
    const slow = new RecentRate(HALF_LIFE_MS, 0);
    for (let t = 0; t < 10_000; t += 10) slow.observe(200, t);
    expect(slow.perSecond / steady(20_000)).toBeCloseTo(1, 1);
  });

  it("halves every half-life without reservations, and a clock stepping back adds no weight", () => {
    const rate = new RecentRate(HALF_LIFE_MS, 0);
    const last = feed(rate, 0, 5_000, 2, 100);
    const before = rate.perSecond;
    rate.observe(0, last + HALF_LIFE_MS);
    expect(rate.perSecond / before).toBeCloseTo(0.5, 5);
    const now = rate.perSecond;
    rate.observe(0, last); // a second earlier than the last reading
    expect(rate.perSecond).toBeCloseTo(now, 5);
  });
});
