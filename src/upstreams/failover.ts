import type { AttemptOutcome, BreakerState, PoolObserver } from "../log/pool-observer.ts";
import { CachedCheck } from "../util/cached-check.ts";
import type { CancelSignal } from "../util/cancel.ts";
import type { AnswerCheck } from "./answer-check.ts";
import { type Admission, Breaker } from "./breaker.ts";
import { HedgeDelay } from "./hedge-delay.ts";
import {
  type FailoverPolicy,
  type Member,
  PoolCall,
  type PoolFailure,
  type PoolView,
  type UpstreamFailure,
} from "./pool-call.ts";

export type { FailoverPolicy, PoolFailure, UpstreamFailure };

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
  /** Why it is held out of the pool: its chain disagrees with the verified one. */
  inconsistent?: string;
  /**
   * Its answers that failed their check (bytes that do not hash to what was asked, a block claim
   * it could not prove) since the gateway started, and the latest's reason: an upstream that lies.
   */
  unverified?: { answers: number; last: string; at: string };
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

/** RunOptions for a call whose answers are checked before they are taken (answer-check.ts). */
export interface CheckedRunOptions<T> extends RunOptions {
  check?: AnswerCheck<NoInfer<T>> | undefined;
}

/** How long a background probe may take, at most. */
const PROBE_TIMEOUT_MS_MAX = 2_000;

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
  /** What each call reads of the pool. */
  private readonly view: PoolView<C>;

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
    this.view = {
      members: this.members,
      policy: this.policy,
      observer: this.observer,
      hedgeDelay: this.hedgeDelay,
      budgetMs: this.budgetMs,
      what: this.what,
      pick: (tried) => this.pick(tried),
    };
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

  /**
   * Holds the member named `name` out of the pool while its chain disagrees with the verified
   * one (`reason`), or puts it back (null). Its breaker stays open meanwhile, whatever it answers.
   */
  setInconsistent(name: string, reason: string | null): void {
    const m = this.members.find((x) => x.client.name === name);
    if (!m) return;
    if (reason === null) m.breaker.release();
    else m.breaker.hold(reason);
  }

  /** Whether the member named `name` is held out for disagreeing with the verified chain. */
  isInconsistent(name: string): boolean {
    return this.members.some((m) => m.client.name === name && m.breaker.held !== null);
  }

  /** One call, with failover, retries and hedging by the pool's policy (pool-call.ts). */
  run<T extends { ok: true }>(
    call: (client: C, signal: CancelSignal) => Promise<T | UpstreamFailure>,
    opts: CheckedRunOptions<T> = {},
  ): Promise<(T & { upstream: string }) | PoolFailure> {
    const idempotent = opts.idempotent ?? false;
    return new PoolCall<C, T>(this.view, call, idempotent, opts.signal, opts.check).run();
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
        const held = m.breaker.held;
        const status = up ? ("up" as const) : ("down" as const);
        return {
          name: m.client.name,
          status,
          ...(held === null ? {} : { inconsistent: held }),
          ...(m.unverified ? { unverified: m.unverified } : {}),
        };
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
