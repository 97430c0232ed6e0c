import type { PoolObserver } from "../log/pool-observer.ts";
import { type GatewayError, gatewayError } from "../protocol/errors/codes.ts";
import type { CachedCheck } from "../util/cached-check.ts";
import { Cancel, type CancelSignal } from "../util/cancel.ts";
import type { AnswerCheck } from "./answer-check.ts";
import type { Admission, Breaker, BreakerOptions } from "./breaker.ts";
import { deadline } from "./deadline.ts";
import type { HedgeDelay, HedgeOptions } from "./hedge-delay.ts";

/** One upstream's failure: the pool decides from `retryable` whether to try the next one. */
export type UpstreamFailure = { ok: false; retryable: boolean; error: GatewayError };

/** A call that got no answer it can use; `upstream`: who answered one too large for it. */
export type PoolFailure = { ok: false; error: GatewayError; upstream?: string };

export interface FailoverPolicy {
  /** One attempt of a read when there is another upstream to try (see config failover.attemptTimeoutMs). */
  attemptTimeoutMs: number;
  attemptsMax: number;
  hedge: HedgeOptions;
  breaker: BreakerOptions;
  /** 0: no background probes. */
  healthCheckIntervalMs: number;
}

export interface Member<C> {
  client: C;
  breaker: Breaker;
  /** For /readyz: the latest evidence, a call's outcome or a probe. */
  health: CachedCheck;
  /** For /readyz: its answers that failed their check, and the latest's reason and time. */
  unverified?: { answers: number; last: string; at: string };
}

/** What one call of a pool reads of it. */
export interface PoolView<C> {
  members: readonly Member<C>[];
  policy: FailoverPolicy;
  observer: PoolObserver;
  hedgeDelay: HedgeDelay;
  budgetMs: number;
  what: string;
  /** The next member in round-robin order, not yet tried by this call, its breaker admitting. */
  pick(tried: ReadonlySet<Member<C>>): [Member<C>, Admission] | null;
}

interface Attempt<C> {
  member: Member<C>;
  admission: Admission;
  cancel: Cancel;
  startedAt: number;
  /** Accounted for: answered, failed, or abandoned. A late outcome is then ignored. */
  done: boolean;
}

/** Why an abandoned attempt was aborted (never read as the call's failure). */
const ABANDONED = new DOMException("another upstream answered first", "AbortError");

type Call<C, T> = (client: C, signal: CancelSignal) => Promise<T | UpstreamFailure>;
type Out<T> = (T & { upstream: string }) | PoolFailure;

/**
 * One call through a pool (FailoverPool.run): its attempts — the first, retries, a hedge — and
 * the one outcome the caller gets. Each attempt's outcome is told to its member's breaker.
 */
export class PoolCall<C extends { readonly name: string }, T extends { ok: true }> {
  private readonly attempts: Attempt<C>[] = [];
  private readonly tried = new Set<Member<C>>();
  private readonly started = performance.now();
  private readonly attemptsMax: number;
  private settled = false;
  private last: GatewayError | undefined;
  private hedgeTimer: NodeJS.Timeout | undefined;
  private resolve: (out: Out<T>) => void = () => {};
  private reject: (err: unknown) => void = () => {};
  private readonly onOuter = () => {
    this.abandon(null);
    this.finish({
      ok: false,
      error: gatewayError("UPSTREAM_TIMEOUT", `${this.pool.what} did not answer in time`, {
        detail: "the caller's deadline passed",
      }),
    });
  };

  constructor(
    private readonly pool: PoolView<C>,
    private readonly call: Call<C, T>,
    private readonly idempotent: boolean,
    private readonly outer: CancelSignal | undefined,
    private readonly check: AnswerCheck<T> | undefined = undefined,
  ) {
    this.attemptsMax = idempotent ? pool.policy.attemptsMax : pool.members.length;
  }

  run(): Promise<Out<T>> {
    return new Promise<Out<T>>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      if (this.outer?.aborted) return this.onOuter();
      this.outer?.addEventListener("abort", this.onOuter, { once: true });
      if (!this.launch("first")) {
        const names = this.pool.members.map((m) => m.client.name).join(", ");
        return this.finish({
          ok: false,
          error:
            this.last ??
            gatewayError("UPSTREAM_UNAVAILABLE", `${this.pool.what} is unavailable`, {
              detail: `every upstream's circuit breaker is open: ${names}`,
            }),
        });
      }
      const { hedge } = this.pool.policy;
      if (this.idempotent && this.pool.members.length > 1 && hedge.enabled) {
        this.hedgeTimer = setTimeout(() => {
          if (!this.settled && this.attempts.some((x) => !x.done)) this.launch("hedge");
        }, this.pool.hedgeDelay.ms);
      }
    });
  }

  private finish(out: Out<T>): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.hedgeTimer);
    this.outer?.removeEventListener("abort", this.onOuter);
    this.resolve(out);
  }

  private abandon(winner: Attempt<C> | null): void {
    for (const a of this.attempts) {
      if (a.done) continue;
      a.done = true;
      a.cancel.abort(ABANDONED);
      const seconds = (performance.now() - a.startedAt) / 1000;
      // An attempt that a later one beat was slow: that counts against its upstream, or a
      // frozen one would never trip. One that started after the winner says nothing.
      if (winner && a.startedAt < winner.startedAt) {
        a.member.breaker.failure();
        this.pool.observer.attempt(a.member.client.name, "outpaced", seconds);
      } else {
        a.member.breaker.neutral(a.admission);
        this.pool.observer.attempt(a.member.client.name, "cancelled", seconds);
      }
    }
  }

  private settle(a: Attempt<C>, answered: T | UpstreamFailure): void {
    if (a.done) return;
    a.done = true;
    const name = a.member.client.name;
    const elapsedMs = performance.now() - a.startedAt;
    const out = this.checked(a.member, answered);
    if (out.ok) {
      a.member.breaker.success();
      a.member.health.note(true);
      this.pool.hedgeDelay.add(elapsedMs);
      this.pool.observer.attempt(name, "ok", elapsedMs / 1000);
      this.abandon(a);
      this.finish({ ...out, upstream: name });
      return;
    }
    this.last = out.error;
    if (out.error.code === "RESPONSE_TOO_LARGE") {
      this.tooLarge(a, out.error, elapsedMs);
      return;
    }
    const timedOut = out.error.code === "UPSTREAM_TIMEOUT";
    if (out.retryable || timedOut) {
      // No answer at all: the upstream is unreachable or too slow.
      a.member.breaker.failure();
      a.member.health.note(false);
    } else {
      // It answered, with something we cannot use: alive, so its breaker is left as it is.
      a.member.breaker.neutral(a.admission);
    }
    const outcome = timedOut ? "timeout" : out === answered ? "failed" : "unverified";
    this.pool.observer.attempt(name, outcome, elapsedMs / 1000);
    if (this.settled) return;
    // A read may be tried again after any failure to get an answer; a call with effects only
    // when it cannot have run (refused): after a timeout it may have.
    const again = this.idempotent ? out.retryable || timedOut : out.retryable;
    if (again && this.launch("retry")) return;
    if (this.attempts.some((x) => !x.done)) return; // a hedge still runs: its answer may do
    this.finish({ ok: false, error: out.error });
  }

  /**
   * The answer as the call's check finds it: a check that does not hold makes it the upstream's
   * failure (retryable: the next upstream may answer honestly), so it is never passed on.
   */
  private checked(member: Member<C>, out: T | UpstreamFailure): T | UpstreamFailure {
    if (!out.ok || !this.check) return out;
    const why = this.check(out);
    if (why === null) return out;
    // Named in /readyz: an upstream that lies is the operator's to find.
    const answers = (member.unverified?.answers ?? 0) + 1;
    member.unverified = { answers, last: why, at: new Date().toISOString() };
    return unverified(this.pool.what, member.client.name, why);
  }

  /**
   * The upstream answered, more than the caller may have: it is well (its breaker is left as it
   * is), and the same request would be as large from any other, so the call ends here.
   */
  private tooLarge(a: Attempt<C>, error: GatewayError, elapsedMs: number): void {
    a.member.breaker.neutral(a.admission);
    a.member.health.note(true);
    this.pool.observer.attempt(a.member.client.name, "too_large", elapsedMs / 1000);
    this.abandon(null);
    this.finish({ ok: false, error, upstream: a.member.client.name });
  }

  private launch(kind: "first" | "retry" | "hedge"): boolean {
    if (this.attempts.length >= this.attemptsMax) return false;
    const remainingMs = this.pool.budgetMs - (performance.now() - this.started);
    if (remainingMs <= 0) return false;
    const picked = this.pool.pick(this.tried);
    if (!picked) return false;
    const [member, admission] = picked;
    this.tried.add(member);
    // A read with another upstream left to go to gets a shorter attempt, so that a frozen
    // upstream leaves time to ask another within the budget. With none left (the others tried,
    // or their breakers open) a slow answer is still better than none: the whole budget.
    const anotherLeft = this.pool.members.some(
      (m) => m !== member && !this.tried.has(m) && m.breaker.available,
    );
    const ms =
      this.idempotent && anotherLeft
        ? Math.min(this.pool.policy.attemptTimeoutMs, remainingMs)
        : remainingMs;
    const a: Attempt<C> = {
      member,
      admission,
      cancel: new Cancel(),
      startedAt: performance.now(),
      done: false,
    };
    this.attempts.push(a);
    if (kind === "retry") this.pool.observer.retried(member.client.name);
    if (kind === "hedge") this.pool.observer.hedged(member.client.name);
    this.send(a, ms);
    return true;
  }

  private send(a: Attempt<C>, ms: number): void {
    const timer = deadline(ms, a.cancel);
    // The deadline ends the attempt even if a client does not honour the signal at once (the
    // pool's rules must not rest on every client's).
    const expired = new Promise<UpstreamFailure>((res) => {
      const timedOut = () => {
        const error = gatewayError("UPSTREAM_TIMEOUT", `${this.pool.what} did not answer in time`, {
          detail: `${a.member.client.name}: no answer within ${Math.round(ms)} ms`,
        });
        res({ ok: false, retryable: false, error });
      };
      timer.signal.addEventListener("abort", timedOut, { once: true });
    });
    Promise.race([this.call(a.member.client, timer.signal), expired])
      .then(
        (out) => this.settle(a, out),
        (err: unknown) => this.fault(a, err),
      )
      .finally(() => timer.clear());
  }

  /** A fault of ours, not the upstream's: the call fails with it, as it did before. */
  private fault(a: Attempt<C>, err: unknown): void {
    a.done = true;
    a.member.breaker.neutral(a.admission);
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.hedgeTimer);
    this.outer?.removeEventListener("abort", this.onOuter);
    this.abandon(null);
    this.reject(err);
  }
}

/** The failure a check that did not hold makes of an answer (retryable: another may be honest). */
export function unverified(what: string, upstream: string, why: string): UpstreamFailure {
  return {
    ok: false,
    retryable: true,
    error: gatewayError(
      "UPSTREAM_BAD_RESPONSE",
      `${what} sent an answer that failed verification`,
      {
        detail: `${upstream}: ${why}`,
      },
    ),
  };
}
