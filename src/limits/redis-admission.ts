import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { ADMIT, RELEASE } from "./admission-scripts.ts";
import type { CapCounter } from "./cap-counters.ts";
import { type RedisScript, redisScript } from "./redis-script.ts";
import { type RateReadings, rateKeyPrefix, reserveKeyPrefix } from "./request-rates.ts";

/** One scope's rate as the script counts it: its key and its rule. */
export interface ScopeCount {
  /** `<plan>:<scope>`, as RequestRate names its counters. */
  name: string;
  key: string;
  requestsPerSecond: number;
  /** 0: no burst reserve. */
  burst: number;
}

export interface Counted {
  /** Each scope's readings, in the order asked (RequestRate.judge gives the verdict). */
  readings: RateReadings[];
  /** The call's slot; null when at the plan's maximum or not asked for (`asked`). */
  slot: (RedisSlot & { inFlight: number }) | null;
  asked: boolean;
  /** Whether the caps' amount was taken (only ever with the call admitted). */
  capsTaken: boolean;
}

/** The most admissions one script counts. */
const SCRIPT_CALLS_MAX = 128;

type Script = RedisScript<number[]>;

/** A slot taken in Redis: its sorted set and this call's member of it. */
export interface RedisSlot {
  key: string;
  member: string;
}

/**
 * One call as the admission script reads it (admission-scripts.ts), keys by name: its scopes'
 * `[rate key, reserve key, requests a second, burst, burst window s]`, its slot's `[key, now,
 * expiry, max, member, lease ms]` (the times as text, which Redis takes as written), its caps'
 * amount and `[key, cap]` counters.
 */
interface CallInput {
  scopes: [string, string, number, number, number][];
  slot: [string, string, string, number, string, string] | null;
  caps: { amount: number; counters: [string, number][] } | null;
}

/** One call's admission waiting for the end of the turn. */
interface Waiting {
  call: CallInput;
  done: (counted: Counted | null) => void;
}

/**
 * A call's plan counted in Redis: its admission (admission-scripts.ts) and its release. What waits
 * goes to Redis as one send: the slots given back, as one ZREM per account, then the admissions,
 * as one script. A send goes when the turn of the event loop that asked for it has handled its I/O
 * (setImmediate) and no send is waiting for Redis's answer; while one is, what comes waits for the
 * next, sent as that one's answer is handled. Each command costs this process and Redis more than
 * what it counts, so a loaded gateway's commands carry the calls of many turns, while a call alone
 * is sent in its own turn. A release waits no longer than one round trip, so a slot is never held
 * much past its call; releases go first, so the admissions sent with them find them given back.
 */
export class RedisAdmission {
  private readonly admitScript: Script;
  private readonly releaseScript: Script;
  private waiting: Waiting[] = [];
  /** Members of slot sets given back this turn, by set. */
  private freed = new Map<string, string[]>();
  private scheduled = false;
  /** A send waiting for Redis's answer: what comes meanwhile goes with the next. */
  private sending = false;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly burstWindowSeconds: number,
    /** How long a slot outlives a call whose process died without giving it back. */
    private readonly leaseMs: number,
  ) {
    this.admitScript = redisScript(redis, "blockgateAdmit", ADMIT);
    this.releaseScript = redisScript(redis, "blockgateRelease", RELEASE);
  }

  /**
   * The call's counters; null when Redis could not answer (the caller counts on its own). `caps`:
   * the amount to take from these cap counters once the call is otherwise admitted.
   */
  count(
    scopes: readonly ScopeCount[],
    slot: { key: string; max: number } | null,
    caps: { counters: readonly CapCounter[]; amount: number } | null,
  ): Promise<Counted | null> {
    if (this.redis.status !== "ready") return Promise.resolve(null);
    const now = Date.now();
    const call: CallInput = {
      scopes: scopes.map((s) => [
        `${this.prefix}${rateKeyPrefix(s.name)}:${s.key}`,
        `${this.prefix}${reserveKeyPrefix(s.name)}:${s.key}`,
        s.requestsPerSecond,
        s.burst,
        this.burstWindowSeconds,
      ]),
      slot: slot
        ? [
            `${this.prefix}slots:${slot.key}`,
            String(now),
            String(now + this.leaseMs),
            slot.max,
            randomUUID(),
            String(this.leaseMs),
          ]
        : null,
      caps:
        caps && caps.counters.length > 0
          ? {
              amount: caps.amount,
              counters: caps.counters.map((c) => [`${this.prefix}${c.key}`, c.cap]),
            }
          : null,
    };
    return new Promise((done) => {
      this.waiting.push({ call, done });
      this.schedule();
    });
  }

  /** Gives back a call's slot (if any) and `amount` to these cap counters. */
  release(slot: RedisSlot | null, counters: readonly CapCounter[], amount: number): void {
    const give = amount > 0 && counters.length > 0;
    // A lost release costs the slot until it expires, never a wrong answer; a lost give-back
    // overstates the spending until its counter expires, never past a cap.
    if (!give) {
      if (!slot) return;
      const members = this.freed.get(slot.key);
      if (members) members.push(slot.member);
      else this.freed.set(slot.key, [slot.member]);
      this.schedule();
      return;
    }
    const keys = counters.map((c) => `${this.prefix}${c.key}`);
    if (slot) keys.unshift(slot.key);
    this.releaseScript(keys.length, ...keys, slot ? 1 : 0, slot?.member ?? "", amount).catch(
      () => {},
    );
  }

  private schedule(): void {
    if (this.scheduled || this.sending) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Sends the releases and admissions waiting (also at close: nothing is left waiting). */
  flush(): void {
    this.scheduled = false;
    const freed = this.freed;
    const waiting = this.waiting;
    if (freed.size === 0 && waiting.length === 0) return;
    this.freed = new Map();
    this.waiting = [];
    const sent: Promise<unknown>[] = [];
    for (const [key, members] of freed) sent.push(this.redis.zrem(key, ...members).catch(() => {}));
    // Bounded scripts: Redis serves nothing else while one runs.
    for (let i = 0; i < waiting.length; i += SCRIPT_CALLS_MAX) {
      sent.push(this.admitAll(waiting.slice(i, i + SCRIPT_CALLS_MAX)));
    }
    this.sending = true;
    void Promise.all(sent).then(() => {
      this.sending = false;
      if (this.freed.size > 0 || this.waiting.length > 0) this.schedule();
    });
  }

  private async admitAll(waiting: readonly Waiting[]): Promise<void> {
    const { keys, calls } = scriptInput(waiting);
    let out: number[] | null = null;
    try {
      out = await this.admitScript(keys.length, ...keys, JSON.stringify(calls));
    } catch {
      // Each call counts on its own (the caller's memory), as when Redis is not ready.
    }
    let at = 0;
    for (const { call, done } of waiting) {
      const size = call.scopes.length * 5 + 2;
      done(out ? countedOf(out.slice(at, at + size), call) : null);
      at += size;
    }
  }
}

/** The script's KEYS (each key once) and its calls, naming keys by their place in KEYS (from 1). */
function scriptInput(waiting: readonly Waiting[]) {
  const keys: string[] = [];
  const places = new Map<string, number>();
  const place = (key: string) => {
    let at = places.get(key);
    if (at === undefined) {
      keys.push(key);
      at = keys.length;
      places.set(key, at);
    }
    return at;
  };
  const calls = waiting.map(({ call }) => [
    call.scopes.map(([rate, reserve, ...rule]) => [place(rate), place(reserve), ...rule]),
    call.slot ? [place(call.slot[0]), ...call.slot.slice(1)] : [],
    call.caps
      ? [call.caps.amount, ...call.caps.counters.flatMap(([key, cap]) => [place(key), cap])]
      : [],
  ]);
  return { keys, calls };
}

/** One call's part of the script's reply, as its verdicts. */
function countedOf(out: number[], call: CallInput): Counted {
  const n = call.scopes.length;
  const readings = Array.from({ length: n }, (_, i): RateReadings => {
    const [consumed, ttl, used, left, taken] = out.slice(i * 5, i * 5 + 5) as number[];
    return {
      rate: { consumed: consumed ?? 0, msBeforeNext: ttl ?? 0 },
      reserve: used === undefined || used < 0 ? null : { consumed: used, msBeforeNext: left ?? 0 },
      reserveTaken: taken === 1,
    };
  });
  const taken = out[n * 5] ?? -1;
  return {
    readings,
    asked: taken >= 0,
    slot:
      taken > 0 && call.slot ? { key: call.slot[0], member: call.slot[4], inFlight: taken } : null,
    capsTaken: out[n * 5 + 1] === 1,
  };
}
