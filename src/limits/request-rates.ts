import { type RateLimiterAbstract, RateLimiterRes } from "rate-limiter-flexible";
import type { PolicyState } from "./headers.ts";
import type { LimiterStore } from "./stores.ts";

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
 * Requests per second with a burst, one scope: a 1-second window of `requestsPerSecond` calls and,
 * once it is spent, a reserve of `burst` more per `burstWindowSeconds` (rate-limiter-flexible's
 * bursty pattern). Over any stretch up to the burst window, a caller gets at most the rate plus
 * one burst. The counters are rate-limiter-flexible's (`take`), or read by a script that counts
 * every scope of a call at once (redis-admission.ts) and judged here alike (`judge`).
 */
export class RequestRate {
  private readonly rate: RateLimiterAbstract;
  private readonly reserve: RateLimiterAbstract | null;

  constructor(
    store: LimiterStore,
    private readonly scope: string,
    private readonly rule: RateRule,
    private readonly burstWindowSeconds: number,
    /** Names this rule's counters apart from other plans' (`<plan>:<scope>`). */
    keyPrefix: string,
  ) {
    this.rate = store.limiter({
      keyPrefix: rateKeyPrefix(keyPrefix),
      points: rule.requestsPerSecond,
      duration: 1,
    });
    this.reserve =
      rule.burst > 0
        ? store.limiter({
            keyPrefix: reserveKeyPrefix(keyPrefix),
            points: rule.burst,
            duration: burstWindowSeconds,
          })
        : null;
  }

  async take(key: string): Promise<RateVerdict> {
    const [rate, reserve] = await Promise.all([
      settle(this.rate.consume(key)),
      this.reserve ? this.reserve.get(key) : Promise.resolve(null),
    ]);
    if (rate.ok || !this.reserve) {
      return this.judge({
        rate: reading(rate.res),
        reserve: reading(reserve),
        reserveTaken: false,
      });
    }
    const burst = await settle(this.reserve.consume(key));
    return this.judge({ rate: reading(rate.res), reserve: reading(burst.res), reserveTaken: true });
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

function reading(res: RateLimiterRes): CounterReading;
function reading(res: RateLimiterRes | null): CounterReading | null;
function reading(res: RateLimiterRes | null): CounterReading | null {
  return res ? { consumed: res.consumedPoints, msBeforeNext: res.msBeforeNext } : null;
}

/** A consume's verdict: refused is a RateLimiterRes too; anything else is a fault, thrown on. */
async function settle(p: Promise<RateLimiterRes>): Promise<{ ok: boolean; res: RateLimiterRes }> {
  try {
    return { ok: true, res: await p };
  } catch (err) {
    if (err instanceof RateLimiterRes) return { ok: false, res: err };
    throw err;
  }
}
