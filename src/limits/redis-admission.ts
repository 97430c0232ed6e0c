import { randomBytes } from "node:crypto";
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
 * What the admission script counts for a call, apart from its slot's member and its caps' amount:
 * the same for every call of a token until its plan or its cap windows change, so built once
 * (`RedisAdmission.shape`) and kept by the caller. `keys`: each key once; `spec`: the script's JSON
 * for them, naming each key by its place in `keys` (from 0): `[scopes, slot, caps]`, the scopes
 * `[[rate key, reserve key, requests a second, burst, burst window s]…]`, the slot `[] | [key,
 * max]`, the caps `[] | [key, cap, key, cap…]` (admission-scripts.ts).
 */
export interface AdmissionShape {
  readonly keys: readonly string[];
  readonly spec: string;
  readonly scopes: number;
  readonly slotKey: string | null;
}

/** One call's admission waiting for its send. */
interface Waiting {
  shape: AdmissionShape;
  /** Its slot's member ("" when it asks for none). */
  member: string;
  /** What to take from its caps (0: nothing). */
  amount: number;
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
  /** Members of slot sets given back since the last send, by set. */
  private freed = new Map<string, string[]>();
  private scheduled = false;
  /** A send waiting for Redis's answer: what comes meanwhile goes with the next. */
  private sending = false;
  /** Slot members: this process's own prefix (random) and a count, unique across processes. */
  private readonly memberPrefix = `${randomBytes(9).toString("base64url")}:`;
  private members = 0;

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

  /** What the script counts for calls with these scopes, slot and cap counters (see AdmissionShape). */
  shape(
    scopes: readonly ScopeCount[],
    slot: { key: string; max: number } | null,
    capCounters: readonly CapCounter[],
  ): AdmissionShape {
    const keys: string[] = [];
    const place = (key: string) => {
      const at = keys.indexOf(key);
      return at >= 0 ? at : keys.push(key) - 1;
    };
    const scopeSpec = scopes.map((s) => [
      place(`${this.prefix}${rateKeyPrefix(s.name)}:${s.key}`),
      place(`${this.prefix}${reserveKeyPrefix(s.name)}:${s.key}`),
      s.requestsPerSecond,
      s.burst,
      this.burstWindowSeconds,
    ]);
    const slotKey = slot ? `${this.prefix}slots:${slot.key}` : null;
    const slotSpec = slot && slotKey ? [place(slotKey), slot.max] : [];
    const capSpec = capCounters.flatMap((c) => [place(`${this.prefix}${c.key}`), c.cap]);
    return {
      keys,
      spec: JSON.stringify([scopeSpec, slotSpec, capSpec]),
      scopes: scopes.length,
      slotKey,
    };
  }

  /**
   * The call's counters; null when Redis could not answer (the caller counts on its own). `amount`:
   * what to take from the shape's cap counters once the call is otherwise admitted (0: nothing).
   */
  countShaped(shape: AdmissionShape, amount: number): Promise<Counted | null> {
    if (this.redis.status !== "ready") return Promise.resolve(null);
    const member = shape.slotKey ? `${this.memberPrefix}${(++this.members).toString(36)}` : "";
    return new Promise((done) => {
      this.waiting.push({ shape, member, amount, done });
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
    const now = Date.now();
    let out: number[] | null = null;
    try {
      out = await this.admitScript(
        keys.length,
        ...keys,
        calls,
        String(now),
        String(now + this.leaseMs),
        String(this.leaseMs),
      );
    } catch {
      // Each call counts on its own (the caller's memory), as when Redis is not ready.
    }
    let at = 0;
    for (const { shape, member, done } of waiting) {
      done(out ? countedOf(out, at, shape, member) : null);
      at += shape.scopes * 5 + 2;
    }
  }
}

/**
 * The script's KEYS (each shape's keys once) and its calls as JSON: runs of calls with the same
 * shape as one group, `[place of the shape's first key in KEYS (from 0), spec, [member, amount,
 * member, amount…]]`, in the order the calls were asked (admission-scripts.ts).
 */
function scriptInput(waiting: readonly Waiting[]): { keys: string[]; calls: string } {
  const keys: string[] = [];
  const bases = new Map<AdmissionShape, number>();
  const groups: string[] = [];
  let i = 0;
  while (i < waiting.length) {
    const { shape } = waiting[i]!;
    let base = bases.get(shape);
    if (base === undefined) {
      base = keys.length;
      bases.set(shape, base);
      keys.push(...shape.keys);
    }
    const items: (string | number)[] = [];
    for (; i < waiting.length && waiting[i]!.shape === shape; i++) {
      items.push(waiting[i]!.member, waiting[i]!.amount);
    }
    groups.push(`[${base},${shape.spec},${JSON.stringify(items)}]`);
  }
  return { keys, calls: `[${groups.join(",")}]` };
}

/** One call's part of the script's reply (from `at`), as its verdicts. */
function countedOf(
  out: readonly number[],
  at: number,
  shape: AdmissionShape,
  member: string,
): Counted {
  const n = shape.scopes;
  const readings: RateReadings[] = [];
  for (let i = 0; i < n; i++) {
    const k = at + i * 5;
    const used = out[k + 2];
    readings.push({
      rate: { consumed: out[k] ?? 0, msBeforeNext: out[k + 1] ?? 0 },
      reserve:
        used === undefined || used < 0 ? null : { consumed: used, msBeforeNext: out[k + 3] ?? 0 },
      reserveTaken: out[k + 4] === 1,
    });
  }
  const taken = out[at + n * 5] ?? -1;
  return {
    readings,
    asked: taken >= 0,
    slot: taken > 0 && shape.slotKey ? { key: shape.slotKey, member, inFlight: taken } : null,
    capsTaken: out[at + n * 5 + 1] === 1,
  };
}
