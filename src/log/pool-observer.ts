/** A circuit breaker's state (src/upstreams/breaker.ts), as metrics show it. */
export type BreakerState = "closed" | "open" | "half-open";

/**
 * How an attempt ended: answered; answered more than the call may have (too_large: the upstream
 * is well); failed (refused, dropped, an error status, an unreadable answer); timed out; outpaced
 * (abandoned because an attempt started after it answered first: a slow upstream); unverified
 * (answered, but the answer failed its check: a transaction's bytes not its txid); cancelled
 * (abandoned, having started after the one that answered: says nothing).
 */
export type AttemptOutcome =
  | "ok"
  | "too_large"
  | "failed"
  | "unverified"
  | "timeout"
  | "outpaced"
  | "cancelled";

/**
 * Told of every attempt, retry, hedge and change of breaker state of an upstream pool
 * (src/upstreams/failover.ts); metrics implement it.
 */
export interface PoolObserver {
  attempt(upstream: string, outcome: AttemptOutcome, seconds: number): void;
  retried(upstream: string): void;
  hedged(upstream: string): void;
  breaker(upstream: string, state: BreakerState): void;
}
