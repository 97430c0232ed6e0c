import type { CapCounter, CapCounters } from "./cap-counters.ts";

/** One spending window of an account: a UTC day, or its billing cycle. */
export interface CapWindow {
  kind: "day" | "cycle";
  cap: number;
  start: Date;
  end: Date;
}

export type CapVerdict =
  | { ok: true }
  | { ok: false; window: CapWindow; spent: number; retryAfterMs: number };

/**
 * Credit caps per day and per billing cycle. Each window's spending is a counter (memory or
 * Redis, like the rate limits: cap-counters.ts) that a call's estimate is taken from before it
 * runs, all windows or none, and what it did not cost is given back to after it settles, so
 * concurrent calls cannot overshoot a cap by more than they were estimated at. A counter starts
 * from what the ledger says the account was charged in the window so far, so a restart does not
 * reset anyone's spending (in Redis, of two processes starting one counter at the same instant
 * the first start wins; both read the same ledger). While Redis cannot answer, the ledger decides
 * instead (what the account was charged in the window, plus this estimate): caps are money, and a
 * cap held per process would let a fleet spend it once per process.
 */
export class SpendingCaps {
  constructor(
    readonly counters: CapCounters,
    private readonly spentSince: (accountId: number, since: Date) => Promise<number>,
    /** Each verdict the ledger gave because Redis could not answer. */
    private readonly onFallback: () => void = () => {},
  ) {}

  /**
   * Takes `amount` from the windows' counters. `already`: what this call took from them before
   * (at admission), reported as not yet spent should the rest be refused.
   */
  async spend(
    accountId: number,
    windows: readonly CapWindow[],
    amount: number,
    already = 0,
  ): Promise<CapVerdict> {
    if (amount <= 0) return { ok: true };
    const counters = windows.map((w) => capCounter(accountId, w));
    // A counter not started yet is started from the ledger, then the take tried again.
    for (let attempt = 0; attempt <= windows.length; attempt++) {
      const took = await this.counters.take(counters, amount);
      if (took === null) break;
      if (took.kind === "taken") return { ok: true };
      if (took.kind === "refused") {
        const w = windows[took.index]!;
        return refusal(w, Math.max(0, took.counted - already));
      }
      const w = windows[took.index]!;
      const started = await this.counters.start(
        counters[took.index]!,
        await this.spentSince(accountId, w.start),
      );
      if (!started) break;
    }
    // What admission took is in the counters, not the ledger: the ledger's verdict counts it.
    return this.fromLedger(accountId, windows, amount + already);
  }

  /**
   * The verdict without the counters: each window's charges in the ledger plus this estimate.
   * Calls in flight on other processes are not seen, so a cap may be passed by what they cost.
   */
  private async fromLedger(
    accountId: number,
    windows: readonly CapWindow[],
    amount: number,
  ): Promise<CapVerdict> {
    this.onFallback();
    for (const w of windows) {
      const spent = await this.spentSince(accountId, w.start);
      if (spent + amount > w.cap) return refusal(w, spent);
    }
    return { ok: true };
  }

  /**
   * What a call was estimated at but did not cost goes back to its windows. A counter Redis could
   * not give back to overstates the spending until it expires: never past the cap.
   */
  async refund(accountId: number, windows: readonly CapWindow[], amount: number): Promise<void> {
    if (amount <= 0) return;
    await this.counters.give(
      windows.map((w) => capCounter(accountId, w)),
      amount,
    );
  }
}

function refusal(w: CapWindow, spent: number): CapVerdict {
  return { ok: false, window: w, spent, retryAfterMs: Math.max(0, w.end.getTime() - Date.now()) };
}

/**
 * A window's counter. The cap is part of its key: an account moved to another plan starts a
 * counter afresh, from the ledger, under its new cap.
 */
export function capCounter(accountId: number, w: CapWindow): CapCounter {
  return {
    key: `cap:${w.kind}:${w.cap}:${accountId}:${w.start.getTime()}`,
    cap: w.cap,
    seconds: secondsLeft(w),
  };
}

/**
 * A counter's life: to its window's end, but never past 20 days (below the 24.8 days a 32-bit
 * setTimeout can count, which rate-limiter-flexible's memory limiter, where the counters once
 * were, relies on). A counter that expires before its window ends is started again from the
 * ledger, so nothing is lost.
 */
const COUNTER_SECONDS_MAX = 20 * 86_400;

function secondsLeft(w: CapWindow): number {
  const left = Math.ceil((w.end.getTime() - Date.now()) / 1000);
  return Math.max(1, Math.min(left, COUNTER_SECONDS_MAX));
}

const DAY_MS = 86_400_000;

/** The UTC day containing `at`. */
export function dayWindow(at: Date, cap: number): CapWindow {
  const start = new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
  return { kind: "day", cap, start, end: new Date(start.getTime() + DAY_MS) };
}
