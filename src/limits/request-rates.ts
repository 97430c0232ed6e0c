import { LruMap } from "../util/lru.ts";
import type { PolicyState } from "./headers.ts";

/** A plan's request rate for one scope (a token, or an account). */
export interface RateRule {
  requestsPerSecond: number;
  /** Requests allowed above the rate, once per burst window. */
  burst: number;
}

export interface RateVerdict {
  ok: boolean;
  states: PolicyState[];
  /** When the caller may try again (refused only). */
  retryAfterMs: number;
}

/** A counter as read: what its window has counted, and the ms until the window ends. */
export interface CounterReading {
  consumed: number;
  msBeforeNext: number;
}

/**
 * What one scope's counters say of a call: its rate's window counted (this call included) and its
 * burst reserve — read, when the rate allowed the call, or spent from (`reserveTaken`), when it did
 * not; null where the reserve was never used (or there is none).
 */
export interface RateReadings {
  rate: CounterReading;
  reserve: CounterReading | null;
  reserveTaken: boolean;
}

/**
 * Fixed windows counted in this process: a key's count and when its window ends. Bounded: a key
 * pushed out starts a fresh window, so past 100,000 active tokens and accounts a rate may let a
 * few more calls through, never refuse one it should not.
 */
export class MemoryWindows {
  private readonly windows = new LruMap<string, { consumed: number; until: number }>(100_000);

  /** Counts a call in the key's window (opened now if none is open): its count and time left. */
  take(key: string, seconds: number, now: number): CounterReading {
    const w = this.read(key, now);
    if (w) {
      w.consumed += 1;
      return { consumed: w.consumed, msBeforeNext: w.until - now };
    }
    this.windows.set(key, { consumed: 1, until: now + seconds * 1000 });
    return { consumed: 1, msBeforeNext: seconds * 1000 };
  }

  /** The key's open window, if any. */
  get(key: string, now: number): CounterReading | null {
    const w = this.read(key, now);
    return w ? { consumed: w.consumed, msBeforeNext: w.until - now } : null;
  }

  private read(key: string, now: number) {
    const w = this.windows.get(key);
    if (w && w.until > now) return w;
    if (w) this.windows.delete(key);
    return undefined;
  }
}

/**
 * Requests per second with a burst, one scope: a 1-second window of `requestsPerSecond` calls and,
 * once it is spent, a reserve of `burst` more per `burstWindowSeconds` (rate-limiter-flexible's
 * bursty pattern). Over any stretch up to the burst window, a caller gets at most the rate plus
 * one burst. The counters are this process's (`take`), or read by a script that counts every
 * scope of a call at once in Redis (redis-admission.ts) with the same arithmetic, judged here
 * alike (`judge`).
 */
export class RequestRate {
  private readonly rateKey: string;
  private readonly reserveKey: string;

  constructor(
    private readonly windows: MemoryWindows,
    private readonly scope: string,
    private readonly rule: RateRule,
    private readonly burstWindowSeconds: number,
    /** Names this rule's counters apart from other plans' (`<plan>:<scope>`). */
    keyPrefix: string,
  ) {
    this.rateKey = `${rateKeyPrefix(keyPrefix)}:`;
    this.reserveKey = `${reserveKeyPrefix(keyPrefix)}:`;
  }

  /** Counts a call in this process, as the admission script counts it in Redis. */
  take(key: string): RateVerdict {
    const now = Date.now();
    const rate = this.windows.take(this.rateKey + key, 1, now);
    const { requestsPerSecond, burst } = this.rule;
    if (rate.consumed <= requestsPerSecond || burst === 0) {
      const reserve = burst > 0 ? this.windows.get(this.reserveKey + key, now) : null;
      return this.judge({ rate, reserve, reserveTaken: false });
    }
    const reserve = this.windows.take(this.reserveKey + key, this.burstWindowSeconds, now);
    return this.judge({ rate, reserve, reserveTaken: true });
  }

  /** The verdict and the policy states the counters' readings give. */
  judge(r: RateReadings): RateVerdict {
    const { requestsPerSecond, burst } = this.rule;
    const states: PolicyState[] = [
      {
        name: this.scope,
        quota: requestsPerSecond,
        windowSeconds: 1,
        remaining: Math.max(requestsPerSecond - r.rate.consumed, 0),
        resetSeconds: Math.ceil(r.rate.msBeforeNext / 1000),
      },
    ];
    const rateOk = r.rate.consumed <= requestsPerSecond;
    if (burst > 0) states.push(this.reserveState(r.reserve));
    if (rateOk) return { ok: true, states, retryAfterMs: 0 };
    if (burst === 0 || !r.reserveTaken || !r.reserve) {
      return { ok: false, states, retryAfterMs: r.rate.msBeforeNext };
    }
    return r.reserve.consumed <= burst
      ? { ok: true, states, retryAfterMs: 0 }
      : // The rate's next window comes first, whatever is left of the burst window.
        {
          ok: false,
          states,
          retryAfterMs: Math.min(r.rate.msBeforeNext, r.reserve.msBeforeNext),
        };
  }

  private reserveState(res: CounterReading | null): PolicyState {
    return {
      name: `${this.scope}-burst`,
      quota: this.rule.burst,
      windowSeconds: this.burstWindowSeconds,
      remaining: res ? Math.max(this.rule.burst - res.consumed, 0) : this.rule.burst,
      resetSeconds: res ? Math.ceil(res.msBeforeNext / 1000) : 0,
    };
  }
}

/** The counters' key prefixes (rate-limiter-flexible's `keyPrefix`), shared with the script. */
export const rateKeyPrefix = (name: string) => `${name}:rate`;
export const reserveKeyPrefix = (name: string) => `${name}:burst`;
