import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { TokenOwner } from "../access/tokens.ts";
import { cycleContaining } from "../billing/usage/cycles.ts";
import { chargedSince } from "../billing/usage/usage.ts";
import type { Config } from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import { type GatewayError, gatewayError } from "../protocol/errors/codes.ts";
import { LruMap } from "../util/lru.ts";
import { MemorySlots, type Slots } from "./concurrency.ts";
import { type PolicyState, rateLimitHeaders } from "./headers.ts";
import { type Plan, planOf, plansInForce } from "./plans.ts";
import { RedisAdmission } from "./redis-admission.ts";
import { type RateVerdict, RequestRate } from "./request-rates.ts";
import { type CapWindow, dayWindow, SpendingCaps } from "./spending-caps.ts";
import { type LimiterStore, memoryStore, redisStore } from "./stores.ts";

/** The limits phase's verdict on one request. */
export type Admission =
  /** `release`: gives the call's slot back once it is answered (null: it took none). */
  | { ok: true; headers: Record<string, string>; release: (() => void) | null }
  | { ok: false; headers: Record<string, string>; error: GatewayError; retryAfterSeconds: number };

const ADMITTED: Admission = { ok: true, headers: {}, release: null };

interface AccountTerms {
  plan: string | null;
  createdAt: Date;
}

/** How long an account's plan is trusted without asking the database (a change is signalled). */
const TERMS_TTL_MS = 60_000;

/**
 * Plans, enforced (src/limits/): request rates per token and per account with a burst, calls in
 * flight per account, and credit caps per day and per billing cycle. Counters live in this
 * process's memory, or in Redis when REDIS_URL is set, so every process holds one limit together.
 * With no plan configured every check is skipped: the phase costs nothing.
 */
export class Limits {
  private readonly rates = new Map<string, RequestRate>();
  private readonly terms = new LruMap<number, AccountTerms & { until: number }>(10_000);
  private readonly caps: SpendingCaps;
  private readonly inForce: boolean;

  private constructor(
    private readonly config: Config,
    private readonly db: Database,
    /** Where rates count when no script does: this process's memory. */
    private readonly store: LimiterStore,
    private readonly slots: Slots,
    private readonly redis: Redis | null,
    onCapsFromLedger: () => void,
    /** With Redis: a call's rates and slot counted in one script (redis-admission.ts). */
    private readonly admission: RedisAdmission | null = null,
    capStore: LimiterStore = store,
  ) {
    this.inForce = plansInForce(config);
    const spentSince = (accountId: number, since: Date) => chargedSince(db, accountId, since);
    this.caps = new SpendingCaps(capStore, spentSince, onCapsFromLedger);
    db.listen("account_changed", (payload) => this.terms.delete(Number(payload)));
  }

  static create(
    config: Config,
    db: Database,
    log: Logger,
    redisUrl?: string,
    /** Each credit cap check the ledger answered because Redis could not. */
    onCapsFromLedger: () => void = () => {},
  ): Limits {
    if (!redisUrl || !plansInForce(config)) {
      return new Limits(config, db, memoryStore, new MemorySlots(), null, onCapsFromLedger);
    }
    const redis = new Redis(redisUrl, {
      commandTimeout: config.limits.redisTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(times * 100, 2_000),
    });
    let warned = false;
    redis.on("error", (err: Error) => {
      if (!warned)
        log.warn(
          { err: err.message },
          "limits: Redis unreachable; rates held per process, credit caps by the ledger",
        );
      warned = true;
    });
    redis.on("ready", () => {
      warned = false;
    });
    // A slot outlives its call by at most the longest a request may take.
    const leaseMs = config.server.requestTimeoutMs + 5_000;
    const prefix = config.limits.redisKeyPrefix;
    const admission = new RedisAdmission(redis, prefix, config.limits.burstWindowSeconds, leaseMs);
    // Rates and slots are counted by the script; while Redis cannot answer, each process counts
    // its own (memory), as rate-limiter-flexible's insurance limiter did.
    return new Limits(
      config,
      db,
      memoryStore,
      new MemorySlots(),
      redis,
      onCapsFromLedger,
      admission,
      redisStore(redis, prefix),
    );
  }

  /** Request rates and calls in flight, before anything of the request is read or priced. */
  async admit(owner: TokenOwner): Promise<Admission> {
    if (!this.inForce) return ADMITTED;
    const chosen = planOf(this.config, (await this.termsOf(owner.accountId)).plan);
    if (!chosen) return ADMITTED;
    const { name, plan } = chosen;
    const states: PolicyState[] = [];
    // Token and account at once (with Redis: their round trips overlap). A call the token's rate
    // refuses still counts against the account's: the account's rate counts attempts.
    const scopes = (
      [
        ["token", plan.token, owner.tokenId],
        ["account", plan.account, owner.accountId],
      ] as const
    ).flatMap(([scope, rule, key]) => (rule ? [{ scope, rule, key }] : []));
    const slotAsked =
      plan.concurrentCalls === undefined
        ? null
        : { key: String(owner.accountId), max: plan.concurrentCalls };
    const counted = await this.admission?.count(
      scopes.map(({ scope, rule, key }) => ({
        name: `${name}:${scope}`,
        key: String(key),
        requestsPerSecond: rule.requestsPerSecond,
        burst: rule.burst,
      })),
      slotAsked,
    );
    const verdicts: RateVerdict[] = counted
      ? counted.readings.map((r, i) => this.rate(name, scopes[i]!.scope, scopes[i]!.rule).judge(r))
      : await Promise.all(
          scopes.map(({ scope, rule, key }) => this.rate(name, scope, rule).take(String(key))),
        );
    for (const v of verdicts) states.push(...v.states);
    const refusedAt = verdicts.findIndex((v) => !v.ok);
    if (refusedAt >= 0) {
      const { scope, rule } = scopes[refusedAt]!;
      return this.refused(
        states,
        verdicts[refusedAt]!.retryAfterMs,
        `rate limit of plan "${name}": ${rule.requestsPerSecond} requests per second per ${scope}, burst ${rule.burst}`,
      );
    }
    if (!slotAsked) {
      return { ok: true, headers: rateLimitHeaders(states), release: null };
    }
    const slot = counted ? counted.slot : await this.slots.acquire(slotAsked.key, slotAsked.max);
    const max = slotAsked.max;
    const inFlight = slot ? slot.inFlight : max;
    states.push({
      name: "concurrency",
      quota: max,
      unit: "concurrent-requests",
      remaining: max - inFlight,
      resetSeconds: 0,
    });
    if (!slot) {
      return this.refused(
        states,
        1_000,
        `plan "${name}" allows ${max} calls in flight per account`,
      );
    }
    return { ok: true, headers: rateLimitHeaders(states), release: slot.release };
  }

  /**
   * Takes a request's estimate from the account's spending caps before it is reserved: null when
   * within them, else the refusal. What the request did not cost is given back by `refund`.
   */
  async spend(owner: TokenOwner, estimate: number): Promise<CapRefusal | null> {
    if (!this.inForce || estimate <= 0) return null;
    const windows = await this.windowsOf(owner.accountId);
    if (windows.length === 0) return null;
    const verdict = await this.caps.spend(owner.accountId, windows, estimate);
    if (verdict.ok) return null;
    const { window } = verdict;
    const per = window.kind === "day" ? "per day (UTC)" : "per billing cycle";
    return {
      error: gatewayError(
        "CREDIT_CAP_REACHED",
        `Credit cap reached: ${window.cap} CC ${per}, ${verdict.spent} CC spent, ${estimate} CC required`,
        {
          data: { cap: window.cap, spent: verdict.spent, required: estimate, window: window.kind },
        },
      ),
      retryAfterSeconds: Math.ceil(verdict.retryAfterMs / 1000),
    };
  }

  async refund(owner: TokenOwner, amount: number): Promise<void> {
    if (!this.inForce || amount <= 0) return;
    const windows = await this.windowsOf(owner.accountId);
    await this.caps.refund(owner.accountId, windows, amount);
  }

  async close(): Promise<void> {
    this.redis?.disconnect();
  }

  private refused(states: PolicyState[], retryAfterMs: number, message: string): Admission {
    const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    return {
      ok: false,
      headers: { ...rateLimitHeaders(states), "retry-after": String(retryAfterSeconds) },
      error: gatewayError("RATE_LIMITED", message, { data: { retryAfter: retryAfterSeconds } }),
      retryAfterSeconds,
    };
  }

  private rate(plan: string, scope: "token" | "account", rule: NonNullable<Plan["token"]>) {
    const name = `${plan}:${scope}`;
    let rate = this.rates.get(name);
    if (!rate) {
      rate = new RequestRate(this.store, scope, rule, this.config.limits.burstWindowSeconds, name);
      this.rates.set(name, rate);
    }
    return rate;
  }

  private async windowsOf(accountId: number): Promise<CapWindow[]> {
    const terms = await this.termsOf(accountId);
    const plan = planOf(this.config, terms.plan)?.plan;
    const windows: CapWindow[] = [];
    if (!plan) return windows;
    const now = new Date();
    if (plan.creditsPerDay !== undefined) windows.push(dayWindow(now, plan.creditsPerDay));
    if (plan.creditsPerCycle !== undefined) {
      const cycle = cycleContaining(terms.createdAt, now, this.config.billing.cycle);
      windows.push({
        kind: "cycle",
        cap: plan.creditsPerCycle,
        start: cycle.start,
        end: cycle.end,
      });
    }
    return windows;
  }

  private async termsOf(accountId: number): Promise<AccountTerms> {
    const now = Date.now();
    const known = this.terms.get(accountId);
    if (known && known.until > now && this.db.listening()) return known;
    const { rows } = await this.db.query<{ plan: string | null; created_at: Date }>(
      "SELECT plan, created_at FROM accounts WHERE id = $1",
      [accountId],
    );
    const terms = { plan: rows[0]?.plan ?? null, createdAt: rows[0]?.created_at ?? new Date(0) };
    this.terms.set(accountId, { ...terms, until: now + TERMS_TTL_MS });
    return terms;
  }
}

export interface CapRefusal {
  error: GatewayError;
  retryAfterSeconds: number;
}
