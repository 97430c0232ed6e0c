import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { TokenOwner } from "../access/tokens.ts";
import { cycleContaining } from "../billing/usage/cycles.ts";
import { chargedSince } from "../billing/usage/usage.ts";
import type { Config } from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import { type GatewayError, gatewayError } from "../protocol/errors/codes.ts";
import { LruMap } from "../util/lru.ts";
import {
  type CapCounter,
  type CapCounters,
  MemoryCapCounters,
  RedisCapCounters,
} from "./cap-counters.ts";
import { CapTicket } from "./cap-ticket.ts";
import { MemorySlots, type Slot, type Slots } from "./concurrency.ts";
import { type PolicyState, policyField, rateLimitField, rateLimitHeaders } from "./headers.ts";
import { type Plan, planOf, plansInForce } from "./plans.ts";
import {
  type AdmissionShape,
  type Counted,
  RedisAdmission,
  type RedisSlot,
} from "./redis-admission.ts";
import { MemoryWindows, type RateVerdict, RequestRate } from "./request-rates.ts";
import {
  type CapVerdict,
  type CapWindow,
  capCounter,
  dayWindow,
  SpendingCaps,
} from "./spending-caps.ts";

/** The limits phase's verdict on one request. */
export type Admission =
  /**
   * `release`: gives the call's slot back once it is answered, and what it owes its credit caps
   * (null: nothing to give back). `caps`: for the cap phase (meter), what the call holds of them.
   */
  | {
      ok: true;
      headers: Record<string, string>;
      release: (() => void) | null;
      caps?: CapTicket | null;
    }
  | { ok: false; headers: Record<string, string>; error: GatewayError; retryAfterSeconds: number };

const ADMITTED: Admission = { ok: true, headers: {}, release: null };

const NO_COUNTERS: readonly CapCounter[] = [];

/** A token's terms as its calls are admitted under its plan (Limits.tokenTermsOf). */
interface TokenTerms {
  plan: Plan;
  accountId: number;
  /** The cap counters its shape takes from (the account's windows' own list). */
  counters: readonly CapCounter[];
  scopes: {
    scope: "token" | "account";
    rule: NonNullable<Plan["token"]>;
    key: string;
    rate: RequestRate;
  }[];
  slotAsked: { key: string; max: number } | null;
  shape: AdmissionShape | null;
}

interface AccountTerms {
  plan: string | null;
  createdAt: Date;
}

/** An account's credit cap windows now, with their counters, kept until the first one ends. */
interface CapWindows {
  windows: CapWindow[];
  counters: CapCounter[];
  until: number;
}

/** The cap phase's verdict: refused, or what the call took, with how to give back what it owes. */
export type CapSpend =
  | { ok: true; giveBack(amount: number): Promise<void> }
  | ({ ok: false } & CapRefusal);

const NOTHING_TAKEN: CapSpend = { ok: true, giveBack: async () => {} };

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
  private readonly terms = new LruMap<
    number,
    AccountTerms & { until: number; windows?: CapWindows }
  >(10_000);
  /** Each token's scopes under its plan, and their admission shape (tokenTermsOf). */
  private readonly tokenTerms = new LruMap<number, TokenTerms>(10_000);
  /** Each token's last estimate per route and network: what admission takes from the caps. */
  private readonly guesses = new LruMap<string, number>(10_000);
  /** Each plan's RateLimit-Policy on the calls it admits (always the same policies). */
  private readonly policies = new Map<string, string>();
  private readonly caps: SpendingCaps;
  private readonly capCounters: CapCounters;
  private readonly inForce: boolean;

  private constructor(
    private readonly config: Config,
    private readonly db: Database,
    /** Where rates count when no script does (no Redis, or Redis not answering). */
    private readonly windows: MemoryWindows,
    private readonly slots: Slots,
    private readonly redis: Redis | null,
    onCapsFromLedger: () => void,
    /** With Redis: a call's rates, slot and caps counted in one script (redis-admission.ts). */
    private readonly admission: RedisAdmission | null = null,
    capCounters: CapCounters = new MemoryCapCounters(),
  ) {
    this.inForce = plansInForce(config);
    const spentSince = (accountId: number, since: Date) => chargedSince(db, accountId, since);
    this.capCounters = capCounters;
    this.caps = new SpendingCaps(capCounters, spentSince, onCapsFromLedger);
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
      return new Limits(config, db, new MemoryWindows(), new MemorySlots(), null, onCapsFromLedger);
    }
    const redis = new Redis(redisUrl, {
      commandTimeout: config.limits.redisTimeoutMs,
      // The commands of calls whose I/O one turn of the event loop handled go as one write: each
      // write costs this process and Redis more than the command itself.
      enableAutoPipelining: true,
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
      new MemoryWindows(),
      new MemorySlots(),
      redis,
      onCapsFromLedger,
      admission,
      new RedisCapCounters(redis, prefix),
    );
  }

  /**
   * Request rates and calls in flight, before anything of the request is read or priced.
   * `guessKey` (a call whose admission lasts until its answer is sent): with Redis, the script
   * also takes the token's last estimate on this route from the caps (cap-ticket.ts).
   */
  async admit(owner: TokenOwner, guessKey?: string): Promise<Admission> {
    if (!this.inForce) return ADMITTED;
    const chosen = planOf(this.config, (await this.termsOf(owner.accountId)).plan);
    if (!chosen) return ADMITTED;
    const { name } = chosen;
    const ticket = guessKey && this.admission ? await this.ticketOf(owner, guessKey) : null;
    const { scopes, slotAsked, shape } = this.tokenTermsOf(owner, chosen, ticket?.counters);
    const counted =
      this.admission && shape
        ? await this.admission.countShaped(shape, ticket ? ticket.guessed : 0)
        : null;
    if (ticket && !counted?.capsTaken) ticket.guessed = 0;
    const verdicts: RateVerdict[] = counted
      ? counted.readings.map((r, i) => scopes[i]!.rate.judge(r))
      : scopes.map(({ rate, key }) => rate.take(key));
    const states: PolicyState[] = verdicts.flatMap((v) => v.states);
    const refusedAt = verdicts.findIndex((v) => !v.ok);
    if (refusedAt >= 0) {
      const { scope, rule } = scopes[refusedAt]!;
      return this.refused(
        states,
        verdicts[refusedAt]!.retryAfterMs,
        `rate limit of plan "${name}": ${rule.requestsPerSecond} requests per second per ${scope}, burst ${rule.burst}`,
      );
    }
    return this.slotted(name, states, slotAsked, counted, ticket);
  }

  /**
   * A token's scopes and slot under its plan, and with Redis what the admission script counts for
   * them: the same for each of its calls until its plan, account or cap windows change, so kept.
   */
  private tokenTermsOf(
    owner: TokenOwner,
    { name, plan }: { name: string; plan: Plan },
    counters: readonly CapCounter[] = NO_COUNTERS,
  ): TokenTerms {
    const known = this.tokenTerms.get(owner.tokenId);
    if (
      known &&
      known.plan === plan &&
      known.accountId === owner.accountId &&
      known.counters === counters
    ) {
      return known;
    }
    // Token and account at once. A call the token's rate refuses still counts against the
    // account's: the account's rate counts attempts.
    const scopes = (
      [
        ["token", plan.token, owner.tokenId],
        ["account", plan.account, owner.accountId],
      ] as const
    ).flatMap(([scope, rule, key]) =>
      rule ? [{ scope, rule, key: String(key), rate: this.rate(name, scope, rule) }] : [],
    );
    const slotAsked =
      plan.concurrentCalls === undefined
        ? null
        : { key: String(owner.accountId), max: plan.concurrentCalls };
    const shape =
      this.admission?.shape(
        scopes.map(({ scope, rule, key }) => ({
          name: `${name}:${scope}`,
          key,
          requestsPerSecond: rule.requestsPerSecond,
          burst: rule.burst,
        })),
        slotAsked,
        counters,
      ) ?? null;
    const terms = { plan, accountId: owner.accountId, counters, scopes, slotAsked, shape };
    this.tokenTerms.set(owner.tokenId, terms);
    return terms;
  }

  /** The slot's part of the verdict, once every rate allowed the call. */
  private async slotted(
    name: string,
    states: PolicyState[],
    slotAsked: { key: string; max: number } | null,
    counted: Counted | null,
    ticket: CapTicket | null,
  ): Promise<Admission> {
    let slot: Slot | (RedisSlot & { inFlight: number }) | null = null;
    if (slotAsked) {
      slot = counted ? counted.slot : await this.slots.acquire(slotAsked.key, slotAsked.max);
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
    }
    let policy = this.policies.get(name);
    if (policy === undefined) {
      policy = policyField(states);
      this.policies.set(name, policy);
    }
    return {
      ok: true,
      headers:
        states.length === 0
          ? {}
          : { "ratelimit-policy": policy, ratelimit: rateLimitField(states) },
      release: this.releaseOf(slot, ticket),
      caps: ticket,
    };
  }

  /** How an admitted call gives back its slot and what it owes its caps, once. */
  private releaseOf(slot: Slot | RedisSlot | null, ticket: CapTicket | null): (() => void) | null {
    if (!slot && !ticket) return null;
    if (slot && "release" in slot && !ticket) return slot.release;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const owed = ticket ? ticket.settle() : 0;
      if (slot && "release" in slot) slot.release();
      const redisSlot = slot && "member" in slot ? slot : null;
      if (this.admission && (redisSlot || owed > 0)) {
        this.admission.release(redisSlot, ticket?.counters ?? [], owed);
      }
    };
  }

  /** A call's hold on its caps, with the guess to take at admission (0: none, nothing known). */
  private async ticketOf(owner: TokenOwner, guessKey: string): Promise<CapTicket | null> {
    const caps = await this.capWindowsOf(owner.accountId);
    if (caps.windows.length === 0) return null;
    return new CapTicket(caps.windows, caps.counters, this.guesses.get(guessKey) ?? 0, guessKey);
  }

  /**
   * Takes a request's estimate from the account's spending caps before it is reserved: what it
   * took, with how to give back what the request did not cost, or the refusal. `ticket`: what
   * the call's admission took on a guess, claimed here.
   */
  async spend(
    owner: TokenOwner,
    estimate: number,
    ticket: CapTicket | null = null,
  ): Promise<CapSpend> {
    if (!this.inForce) return NOTHING_TAKEN;
    if (ticket) this.guesses.set(ticket.guessKey, estimate);
    const guessed = ticket ? ticket.claim() : 0;
    if (ticket && guessed > 0) {
      const held = this.heldBy(ticket);
      if (estimate <= guessed) {
        ticket.owed += guessed - estimate;
        return held;
      }
      const more = estimate - guessed;
      const verdict = await this.caps.spend(owner.accountId, ticket.windows, more, guessed);
      if (verdict.ok) return held;
      // The guess goes back with the slot, at release, as a refused call's estimate would.
      ticket.owed += guessed;
      return capRefusal(verdict, estimate);
    }
    if (estimate <= 0) return NOTHING_TAKEN;
    const { windows } = await this.capWindowsOf(owner.accountId);
    if (windows.length === 0) return NOTHING_TAKEN;
    const verdict = await this.caps.spend(owner.accountId, windows, estimate);
    if (!verdict.ok) return capRefusal(verdict, estimate);
    return {
      ok: true,
      giveBack: (amount) => this.caps.refund(owner.accountId, windows, amount),
    };
  }

  /** What a ticket's call took: given back with its slot, or at once once that is gone. */
  private heldBy(ticket: CapTicket): CapSpend {
    return {
      ok: true,
      giveBack: async (amount) => {
        if (amount <= 0) return;
        if (!ticket.released) ticket.owed += amount;
        else await this.capCounters.give(ticket.counters, amount);
      },
    };
  }

  async close(): Promise<void> {
    // The turn's slots go back, and its admissions get their answers, before the connection goes.
    this.admission?.flush();
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
      rate = new RequestRate(
        this.windows,
        scope,
        rule,
        this.config.limits.burstWindowSeconds,
        name,
      );
      this.rates.set(name, rate);
    }
    return rate;
  }

  /** The account's cap windows now, kept until the first of them ends (or its terms change). */
  private async capWindowsOf(accountId: number): Promise<CapWindows> {
    const terms = await this.termsOf(accountId);
    const now = Date.now();
    if (terms.windows && terms.windows.until > now) return terms.windows;
    const plan = planOf(this.config, terms.plan)?.plan;
    const windows: CapWindow[] = [];
    const at = new Date(now);
    if (plan?.creditsPerDay !== undefined) windows.push(dayWindow(at, plan.creditsPerDay));
    if (plan?.creditsPerCycle !== undefined) {
      const cycle = cycleContaining(terms.createdAt, at, this.config.billing.cycle);
      windows.push({
        kind: "cycle",
        cap: plan.creditsPerCycle,
        start: cycle.start,
        end: cycle.end,
      });
    }
    const counters = windows.map((w) => capCounter(accountId, w));
    terms.windows = {
      windows,
      counters,
      // A counter's life (secondsLeft) is counted from now: kept a minute at most.
      until: Math.min(now + 60_000, ...windows.map((w) => w.end.getTime())),
    };
    return terms.windows;
  }

  private async termsOf(
    accountId: number,
  ): Promise<AccountTerms & { until: number; windows?: CapWindows }> {
    const now = Date.now();
    const known = this.terms.get(accountId);
    if (known && known.until > now && this.db.listening()) return known;
    const { rows } = await this.db.query<{ plan: string | null; created_at: Date }>(
      "SELECT plan, created_at FROM accounts WHERE id = $1",
      [accountId],
    );
    const terms = {
      plan: rows[0]?.plan ?? null,
      createdAt: rows[0]?.created_at ?? new Date(0),
      until: now + TERMS_TTL_MS,
    };
    this.terms.set(accountId, terms);
    return terms;
  }
}

function capRefusal(verdict: Extract<CapVerdict, { ok: false }>, estimate: number): CapSpend {
  const { window } = verdict;
  const per = window.kind === "day" ? "per day (UTC)" : "per billing cycle";
  return {
    ok: false,
    error: gatewayError(
      "CREDIT_CAP_REACHED",
      `Credit cap reached: ${window.cap} CC ${per}, ${verdict.spent} CC spent, ${estimate} CC required`,
      { data: { cap: window.cap, spent: verdict.spent, required: estimate, window: window.kind } },
    ),
    retryAfterSeconds: Math.ceil(verdict.retryAfterMs / 1000),
  };
}

export interface CapRefusal {
  error: GatewayError;
  retryAfterSeconds: number;
}
