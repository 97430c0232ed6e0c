import { type RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";
import { LruMap } from "../util/lru.ts";
import type { LimiterStore } from "./stores.ts";

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
 * Redis, like the rate limits) that a call's estimate is taken from before it runs and what it did
 * not cost is given back to after it settles, so concurrent calls cannot overshoot a cap by more
 * than they were estimated at. A counter starts from what the ledger says the account was charged
 * in the window so far, so a restart does not reset anyone's spending (in Redis, where two
 * processes start one counter at the same instant, the later start wins; both read the same
 * ledger, so the two differ by at most the calls of that instant). While Redis cannot answer, the
 * ledger decides instead (what the account was charged in the window, plus this estimate): caps
 * are money, and a cap held per process would let a fleet spend it once per process.
 */
export class SpendingCaps {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  /** Counters known to exist, until when: their start from the ledger is not read again. */
  private readonly started = new LruMap<string, number>(10_000);

  constructor(
    private readonly store: LimiterStore,
    private readonly spentSince: (accountId: number, since: Date) => Promise<number>,
    /** Each verdict the ledger gave because Redis could not answer. */
    private readonly onFallback: () => void = () => {},
  ) {}

  async spend(
    accountId: number,
    windows: readonly CapWindow[],
    amount: number,
  ): Promise<CapVerdict> {
    if (amount <= 0) return { ok: true };
    // The windows at once (one round trip to Redis, not one per window).
    const outcomes = await Promise.allSettled(
      windows.map(async (w) => {
        const { limiter, key } = await this.counter(accountId, w);
        return limiter.consume(key, amount, { customDuration: secondsLeft(w) });
      }),
    );
    const unanswered = outcomes.some(
      (o) => o.status === "rejected" && !(o.reason instanceof RateLimiterRes),
    );
    if (unanswered) {
      const verdict = await this.fromLedger(accountId, windows, amount);
      // What the counters that did answer took is given back with a refusal, as below.
      if (!verdict.ok) await this.refund(accountId, windows, amount);
      return verdict;
    }
    const refused = outcomes.findIndex((o) => o.status === "rejected");
    if (refused < 0) return { ok: true };
    // A refused consume still counted its points: every window gets the amount back.
    await this.refund(accountId, windows, amount);
    const reason = (outcomes[refused] as PromiseRejectedResult).reason as unknown;
    if (!(reason instanceof RateLimiterRes)) throw reason;
    const w = windows[refused]!;
    return {
      ok: false,
      window: w,
      spent: Math.max(0, reason.consumedPoints - amount),
      retryAfterMs: Math.max(0, w.end.getTime() - Date.now()),
    };
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
      if (spent + amount > w.cap) {
        return {
          ok: false,
          window: w,
          spent,
          retryAfterMs: Math.max(0, w.end.getTime() - Date.now()),
        };
      }
    }
    return { ok: true };
  }

  /**
   * What a call was estimated at but did not cost goes back to its windows. A counter Redis could
   * not give back to overstates the spending until it expires: never past the cap.
   */
  async refund(accountId: number, windows: readonly CapWindow[], amount: number): Promise<void> {
    if (amount <= 0) return;
    await Promise.allSettled(
      windows.map(async (w) => {
        const { limiter, key } = await this.counter(accountId, w);
        await limiter.reward(key, amount);
      }),
    );
  }

  private async counter(accountId: number, w: CapWindow) {
    // The cap is part of the limiter: an account moved to another plan starts a counter afresh,
    // from the ledger, under its new cap.
    const name = `${w.kind}:${w.cap}`;
    let limiter = this.limiters.get(name);
    if (!limiter) {
      const shape = { keyPrefix: `cap:${name}`, points: w.cap, duration: 86_400 };
      limiter = this.store.limiter(shape);
      this.limiters.set(name, limiter);
    }
    const key = `${accountId}:${w.start.getTime()}`;
    const known = `${name}:${key}`;
    const now = Date.now();
    if ((this.started.get(known) ?? 0) <= now) {
      const res = await limiter.get(key);
      if (res === null) {
        const spent = await this.spentSince(accountId, w.start);
        await limiter.set(key, spent, secondsLeft(w));
        this.started.set(known, now + secondsLeft(w) * 1000);
      } else {
        this.started.set(known, now + res.msBeforeNext);
      }
    }
    return { limiter, key };
  }
}

/**
 * A counter's life: to its window's end, but never past 20 days. The memory limiter expires keys
 * with setTimeout, whose delay is a 32-bit count of ms (24.8 days): a month-long cycle's key would
 * otherwise be set to expire after 1 ms. A counter that expires before its window ends is started
 * again from the ledger, so nothing is lost.
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
