import type { AttemptOutcome, BreakerState, PoolObserver } from "../log/pool-observer.ts";
import { type GatewayError, gatewayError } from "../protocol/errors/codes.ts";
import { CachedCheck } from "../util/cached-check.ts";
import { Cancel, type CancelSignal } from "../util/cancel.ts";
import { type Admission, Breaker, type BreakerOptions } from "./breaker.ts";
import { deadline } from "./deadline.ts";
import { HedgeDelay, type HedgeOptions } from "./hedge-delay.ts";

/** One upstream's failure: the pool decides from `retryable` whether to try the next one. */
export type UpstreamFailure = { ok: false; retryable: boolean; error: GatewayError };

/** A call that got no answer it can use; `upstream`: who answered one too large for it. */
export type PoolFailure = { ok: false; error: GatewayError; upstream?: string };

export interface Upstream {
  /** `host:port`, never the URL: no user, password, path or query (it shows in /readyz and metrics). */
  readonly name: string;
  /** A cheap call that shows the upstream answers, within `timeoutMs`; false on any failure. */
  probe(timeoutMs: number): Promise<boolean>;
  /** `abort`: requests in flight are dropped rather than waited for (a drain that timed out). */
  close(abort?: boolean): void | Promise<void>;
}

/** One member as /readyz shows it: up when its latest round trip or probe answered. */
export interface MemberHealth {
  name: string;
  status: "up" | "down";
}

/** healthy: every member up; degraded: some; down: none. */
export interface PoolHealth {
  status: "healthy" | "degraded" | "down";
  members: MemberHealth[];
}

export interface HealthOptions {
  timeoutMs: number;
  cacheMs: number;
}

const NO_OBSERVER: PoolObserver = {
  attempt: () => {},
  retried: () => {},
  hedged: () => {},
  breaker: () => {},
};

export type { AttemptOutcome, PoolObserver };

export interface FailoverPolicy {
  /** One attempt of a read when there is another upstream to try (see config failover.attemptTimeoutMs). */
  attemptTimeoutMs: number;
  attemptsMax: number;
  hedge: HedgeOptions;
  breaker: BreakerOptions;
  /** 0: no background probes. */
  healthCheckIntervalMs: number;
}

/** The schema's defaults (src/config/schema.ts), for pools built outside a gateway (tests, benches). */
export const DEFAULT_POLICY: FailoverPolicy = {
  attemptTimeoutMs: 2_000,
  attemptsMax: 3,
  hedge: { enabled: true, quantile: 0.95, minMs: 50, maxMs: 500 },
  breaker: { failuresMax: 5, failureRate: 0.5, windowCalls: 20, openMs: 5_000 },
  healthCheckIntervalMs: 2_000,
};

export interface PoolOptions {
  policy?: FailoverPolicy | undefined;
  observer?: PoolObserver | undefined;
  /** The whole call's budget, retries and hedges included: the members' own timeout. */
  budgetMs: number;
  /** The upstream kind in public messages: "the full node". */
  what: string;
}

export interface RunOptions {
  /**
   * A read, safe to send twice: retried on another upstream after a timeout too, and hedged.
   * Otherwise (a call with effects) it goes to another upstream only when the first refused it
   * before it could have run (a retryable transport failure), never after a timeout.
   */
  idempotent?: boolean;
  /** The caller's own deadline: when it fires every attempt is abandoned. */
  signal?: CancelSignal | undefined;
}

/** How long a background probe may take, at most. */
const PROBE_TIMEOUT_MS_MAX = 2_000;

interface Member<C> {
  client: C;
  breaker: Breaker;
  /** For /readyz: the latest evidence, a call's outcome or a probe. */
  health: CachedCheck;
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

/**
 * Several upstreams for one network, round-robin over the members their breaker admits. A read
 * that fails or times out goes to another member, and one unanswered after the hedge delay is also
 * sent elsewhere (the first answer wins). Every failure counts against the member's breaker,
 * timeouts included, so a frozen upstream is soon passed over; with no member admitted a call fails
 * at once (UPSTREAM_UNAVAILABLE). The caller gets one outcome: billing sees one call.
 */
export class FailoverPool<C extends Upstream> {
  private readonly members: Member<C>[];
  private cursor = 0;
  private readonly policy: FailoverPolicy;
  private readonly observer: PoolObserver;
  private readonly hedgeDelay: HedgeDelay;
  private readonly budgetMs: number;
  private readonly what: string;
  private healthTimer: NodeJS.Timeout | undefined;

  constructor(clients: readonly C[], opts: PoolOptions) {
    this.policy = opts.policy ?? DEFAULT_POLICY;
    this.observer = opts.observer ?? NO_OBSERVER;
    this.budgetMs = opts.budgetMs;
    this.what = opts.what;
    this.hedgeDelay = new HedgeDelay(this.policy.hedge);
    this.members = clients.map((client) => {
      const member: Member<C> = {
        client,
        breaker: new Breaker(this.policy.breaker, (state) =>
          this.observer.breaker(client.name, state),
        ),
        // A probe counts like a call: one that fails counts against the breaker, one that
        // answers closes it.
        health: new CachedCheck(async (timeoutMs) => {
          const ok = await client.probe(timeoutMs);
          member.breaker.probed(ok);
          return ok;
        }),
      };
      return member;
    });
    for (const m of this.members) this.observer.breaker(m.client.name, "closed");
    const every = this.policy.healthCheckIntervalMs;
    if (every > 0) {
      this.healthTimer = setInterval(() => this.checkHealth(every), every);
      // Background work: it must not keep a process alive that has nothing else to do.
      this.healthTimer.unref();
    }
  }

  /**
   * Probes each member whose breaker is not closed, or whose latest call or probe failed: so that a
   * recovered upstream is back before its cool-down ends, and a failing one is found failing
   * without a client's call paying for it. A member that answers its calls is not probed: the
   * calls are the evidence (and /readyz probes an idle one when asked).
   */
  private checkHealth(every: number): void {
    for (const m of this.members) {
      if (m.breaker.state === "closed" && m.health.lastOk !== false) continue;
      void m.health.get(Math.min(every, PROBE_TIMEOUT_MS_MAX), 0);
    }
  }

  /** The member an upstream event vouches for (a reconnected Electrum server): its breaker closes. */
  recovered(client: C): void {
    const m = this.members.find((x) => x.client === client);
    if (m && m.breaker.state !== "closed") m.breaker.success();
  }

  run<T extends { ok: true }>(
    call: (client: C, signal: CancelSignal) => Promise<T | UpstreamFailure>,
    opts: RunOptions = {},
  ): Promise<(T & { upstream: string }) | PoolFailure> {
    const idempotent = opts.idempotent ?? false;
    const several = this.members.length > 1;
    const attemptsMax = idempotent ? this.policy.attemptsMax : this.members.length;
    const started = performance.now();
    const attempts: Attempt<C>[] = [];
    const tried = new Set<Member<C>>();
    type Out = (T & { upstream: string }) | PoolFailure;

    return new Promise<Out>((resolve, reject) => {
      let settled = false;
      let last: GatewayError | undefined;
      let hedgeTimer: NodeJS.Timeout | undefined;
      const outer = opts.signal;

      const finish = (out: Out) => {
        if (settled) return;
        settled = true;
        clearTimeout(hedgeTimer);
        outer?.removeEventListener("abort", onOuter);
        resolve(out);
      };
      const abandon = (winner: Attempt<C> | null) => {
        for (const a of attempts) {
          if (a.done) continue;
          a.done = true;
          a.cancel.abort(ABANDONED);
          const seconds = (performance.now() - a.startedAt) / 1000;
          // An attempt that a later one beat was slow: that counts against its upstream, or a
          // frozen one would never trip. One that started after the winner says nothing.
          if (winner && a.startedAt < winner.startedAt) {
            a.member.breaker.failure();
            this.observer.attempt(a.member.client.name, "outpaced", seconds);
          } else {
            a.member.breaker.neutral(a.admission);
            this.observer.attempt(a.member.client.name, "cancelled", seconds);
          }
        }
      };
      const onOuter = () => {
        abandon(null);
        finish({
          ok: false,
          error: gatewayError("UPSTREAM_TIMEOUT", `${this.what} did not answer in time`, {
            detail: "the caller's deadline passed",
          }),
        });
      };

      const settle = (a: Attempt<C>, out: T | UpstreamFailure) => {
        if (a.done) return;
        a.done = true;
        const name = a.member.client.name;
        const elapsedMs = performance.now() - a.startedAt;
        if (out.ok) {
          a.member.breaker.success();
          a.member.health.note(true);
          this.hedgeDelay.add(elapsedMs);
          this.observer.attempt(name, "ok", elapsedMs / 1000);
          abandon(a);
          finish({ ...out, upstream: name });
          return;
        }
        last = out.error;
        if (out.error.code === "RESPONSE_TOO_LARGE") {
          // The upstream answered, more than the caller may have: it is well (its breaker is left
          // as it is), and the same request would be as large from any other, so the call ends
          // here, whatever else is in flight for it.
          a.member.breaker.neutral(a.admission);
          a.member.health.note(true);
          this.observer.attempt(name, "too_large", elapsedMs / 1000);
          abandon(null);
          finish({ ok: false, error: out.error, upstream: name });
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
        this.observer.attempt(name, timedOut ? "timeout" : "failed", elapsedMs / 1000);
        if (settled) return;
        // A read may be tried again after any failure to get an answer; a call with effects only
        // when it cannot have run (refused): after a timeout it may have.
        const again = idempotent ? out.retryable || timedOut : out.retryable;
        if (again && launch("retry")) return;
        if (attempts.some((x) => !x.done)) return; // a hedge is still running: its answer may do
        finish({ ok: false, error: out.error });
      };

      const launch = (kind: "first" | "retry" | "hedge"): boolean => {
        if (attempts.length >= attemptsMax) return false;
        const remainingMs = this.budgetMs - (performance.now() - started);
        if (remainingMs <= 0) return false;
        const picked = this.pick(tried);
        if (!picked) return false;
        const [member, admission] = picked;
        tried.add(member);
        // A read with another upstream left to go to gets a shorter attempt, so that a frozen
        // upstream leaves time to ask another within the budget. With none left (the others
        // tried, or their breakers open) a slow answer is still better than none: the whole budget.
        const anotherLeft = this.members.some(
          (m) => m !== member && !tried.has(m) && m.breaker.available,
        );
        const ms =
          idempotent && anotherLeft
            ? Math.min(this.policy.attemptTimeoutMs, remainingMs)
            : remainingMs;
        const cancel = new Cancel();
        const timer = deadline(ms, cancel);
        const a: Attempt<C> = {
          member,
          admission,
          cancel,
          startedAt: performance.now(),
          done: false,
        };
        attempts.push(a);
        if (kind === "retry") this.observer.retried(member.client.name);
        if (kind === "hedge") this.observer.hedged(member.client.name);

        // The deadline ends the attempt even if a client does not honour the signal at once
        // (the pool's rules must not rest on every client's).
        const expired = new Promise<UpstreamFailure>((res) => {
          timer.signal.addEventListener(
            "abort",
            () =>
              res({
                ok: false,
                retryable: false,
                error: gatewayError("UPSTREAM_TIMEOUT", `${this.what} did not answer in time`, {
                  detail: `${member.client.name}: no answer within ${Math.round(ms)} ms`,
                }),
              }),
            { once: true },
          );
        });
        Promise.race([call(member.client, timer.signal), expired])
          .then(
            (out) => settle(a, out),
            (err: unknown) => {
              // A fault of ours, not the upstream's: the call fails with it, as it did before.
              a.done = true;
              a.member.breaker.neutral(a.admission);
              if (!settled) {
                settled = true;
                clearTimeout(hedgeTimer);
                outer?.removeEventListener("abort", onOuter);
                abandon(null);
                reject(err);
              }
            },
          )
          .finally(() => timer.clear());
        return true;
      };

      if (outer?.aborted) {
        onOuter();
        return;
      }
      outer?.addEventListener("abort", onOuter, { once: true });
      if (!launch("first")) {
        finish({
          ok: false,
          error:
            last ??
            gatewayError("UPSTREAM_UNAVAILABLE", `${this.what} is unavailable`, {
              detail: `every upstream's circuit breaker is open: ${this.members.map((m) => m.client.name).join(", ")}`,
            }),
        });
        return;
      }
      if (idempotent && several && this.policy.hedge.enabled) {
        hedgeTimer = setTimeout(() => {
          if (!settled && attempts.some((x) => !x.done)) launch("hedge");
        }, this.hedgeDelay.ms);
      }
    });
  }

  /** The next member in round-robin order, not yet tried by this call, that its breaker admits. */
  private pick(tried: ReadonlySet<Member<C>>): [Member<C>, Admission] | null {
    const n = this.members.length;
    for (let i = 0; i < n; i++) {
      const m = this.members[(this.cursor + i) % n]!;
      if (tried.has(m)) continue;
      const admission = m.breaker.admit();
      if (!admission) continue;
      this.cursor = (this.cursor + i + 1) % n;
      return [m, admission];
    }
    return null;
  }

  /**
   * Each member's state from its latest evidence — a call's outcome or a probe — no older than
   * `cacheMs`; a member with none that fresh is probed (at most one probe each at a time). A member
   * whose breaker is open is down, whatever its last probe said: calls pass it over.
   */
  async health(opts: HealthOptions): Promise<PoolHealth> {
    const members = await Promise.all(
      this.members.map(async (m) => {
        const up = (await m.health.get(opts.timeoutMs, opts.cacheMs)) && m.breaker.state !== "open";
        return { name: m.client.name, status: up ? ("up" as const) : ("down" as const) };
      }),
    );
    const up = members.filter((m) => m.status === "up").length;
    const status = up === members.length ? "healthy" : up > 0 ? "degraded" : "down";
    return { status, members };
  }

  /** Each member's breaker state (for tests and /readyz's callers). */
  breakers(): { name: string; state: BreakerState }[] {
    return this.members.map((m) => ({ name: m.client.name, state: m.breaker.state }));
  }

  async close(abort = false): Promise<void> {
    clearInterval(this.healthTimer);
    await Promise.all(this.members.map((m) => m.client.close(abort)));
  }
}
