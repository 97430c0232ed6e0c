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

/**
 * Requests per second with a burst, one scope: a 1-second window of `requestsPerSecond` calls and,
 * once it is spent, a reserve of `burst` more per `burstWindowSeconds` (rate-limiter-flexible's
 * bursty pattern). Over any stretch up to the burst window, a caller gets at most the rate plus
 * one burst.
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
      keyPrefix: `${keyPrefix}:rate`,
      points: rule.requestsPerSecond,
      duration: 1,
    });
    this.reserve =
      rule.burst > 0
        ? store.limiter({
            keyPrefix: `${keyPrefix}:burst`,
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
    const states: PolicyState[] = [
      {
        name: this.scope,
        quota: this.rule.requestsPerSecond,
        windowSeconds: 1,
        remaining: rate.res.remainingPoints,
        resetSeconds: Math.ceil(rate.res.msBeforeNext / 1000),
      },
    ];
    if (rate.ok) {
      if (this.reserve) states.push(this.reserveState(reserve));
      return { ok: true, states, retryAfterMs: 0 };
    }
    if (!this.reserve) return { ok: false, states, retryAfterMs: rate.res.msBeforeNext };
    const burst = await settle(this.reserve.consume(key));
    states.push(this.reserveState(burst.res));
    return burst.ok
      ? { ok: true, states, retryAfterMs: 0 }
      : // The rate's next window comes first, whatever is left of the burst window.
        {
          ok: false,
          states,
          retryAfterMs: Math.min(rate.res.msBeforeNext, burst.res.msBeforeNext),
        };
  }

  private reserveState(res: RateLimiterRes | null): PolicyState {
    return {
      name: `${this.scope}-burst`,
      quota: this.rule.burst,
      windowSeconds: this.burstWindowSeconds,
      remaining: res ? res.remainingPoints : this.rule.burst,
      resetSeconds: res ? Math.ceil(res.msBeforeNext / 1000) : 0,
    };
  }
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
