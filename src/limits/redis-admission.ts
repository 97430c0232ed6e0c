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

/** One call's admission waiting for the end of the turn, with its part of the script's input. */
interface Waiting {
  keys: string[];
  args: (string | number)[];
  scopes: number;
  slotKey: string | null;
  member: string;
  done: (counted: Counted | null) => void;
}

/**
 * A call's plan counted in Redis: its admission (admission-scripts.ts) and its release. The
 * admissions of one turn of the event loop go to Redis as one script, and the slots given back in
 * it as one ZREM per account, sent when the turn's I/O is handled (setImmediate): each command
 * costs this process and Redis more than what it counts, and a turn of a loaded gateway handles
 * many calls. A release waits no longer than that turn, so a slot is never held past its call's
 * turn; releases go first, so the turn's admissions find them given back.
 */
export class RedisAdmission {
  private readonly admitScript: Script;
  private readonly releaseScript: Script;
  private waiting: Waiting[] = [];
  /** Members of slot sets given back this turn, by set. */
  private freed = new Map<string, string[]>();
  private scheduled = false;

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
    const capCount = caps?.counters.length ?? 0;
    const keys: string[] = [];
    const args: (string | number)[] = [scopes.length, slot ? 1 : 0, capCount];
    for (const s of scopes) {
      keys.push(`${this.prefix}${rateKeyPrefix(s.name)}:${s.key}`);
      keys.push(`${this.prefix}${reserveKeyPrefix(s.name)}:${s.key}`);
      args.push(s.requestsPerSecond, s.burst, this.burstWindowSeconds);
    }
    const member = randomUUID();
    const slotKey = slot ? `${this.prefix}slots:${slot.key}` : null;
    if (slot && slotKey) {
      const now = Date.now();
      keys.push(slotKey);
      args.push(now, now + this.leaseMs, slot.max, member, this.leaseMs);
    }
    if (caps && capCount > 0) {
      for (const c of caps.counters) keys.push(`${this.prefix}${c.key}`);
      args.push(caps.amount);
      for (const c of caps.counters) args.push(c.cap);
    }
    return new Promise((done) => {
      this.waiting.push({ keys, args, scopes: scopes.length, slotKey, member, done });
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
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  /** Sends the turn's releases, then its admissions (also at close: nothing is left waiting). */
  flush(): void {
    this.scheduled = false;
    const freed = this.freed;
    const waiting = this.waiting;
    this.freed = new Map();
    this.waiting = [];
    for (const [key, members] of freed) this.redis.zrem(key, ...members).catch(() => {});
    // Bounded scripts: Redis serves nothing else while one runs.
    for (let i = 0; i < waiting.length; i += SCRIPT_CALLS_MAX) {
      void this.admitAll(waiting.slice(i, i + SCRIPT_CALLS_MAX));
    }
  }

  private async admitAll(waiting: readonly Waiting[]): Promise<void> {
    let out: number[] | null = null;
    try {
      out = await this.admitScript(
        waiting.reduce((n, w) => n + w.keys.length, 0),
        ...waiting.flatMap((w) => w.keys),
        ...waiting.flatMap((w) => w.args),
      );
    } catch {
      // Each call counts on its own (the caller's memory), as when Redis is not ready.
    }
    let at = 0;
    for (const w of waiting) {
      if (!out) {
        w.done(null);
        continue;
      }
      w.done(countedOf(out.slice(at, at + w.scopes * 5 + 2), w.scopes, w.slotKey, w.member));
      at += w.scopes * 5 + 2;
    }
  }
}

function countedOf(out: number[], n: number, slotKey: string | null, member: string): Counted {
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
    slot: taken > 0 && slotKey ? { key: slotKey, member, inFlight: taken } : null,
    capsTaken: out[n * 5 + 1] === 1,
  };
}
