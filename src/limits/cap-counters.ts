import type { Redis } from "ioredis";
import { LruMap } from "../util/lru.ts";
import { type RedisScript, redisScript } from "./redis-script.ts";

/** One credit cap window's counter of an account: what it has counted, against its cap. */
export interface CapCounter {
  /** `cap:<kind>:<cap>:<account>:<window start ms>`, rate-limiter-flexible's key for it. */
  key: string;
  cap: number;
  /** How long a counter started now lives: to its window's end, at most 20 days. */
  seconds: number;
}

/**
 * What taking an amount from a call's counters did: taken from every one; refused, nothing taken
 * (the first counter it would pass and what that had counted); or missing, nothing taken (that
 * counter must be started from the ledger first).
 */
export type CapTake =
  | { kind: "taken" }
  | { kind: "refused"; index: number; counted: number }
  | { kind: "missing"; index: number };

/** Where the caps' counters live: this process's memory, or Redis shared by every process. */
export interface CapCounters {
  /** All or nothing, atomically; null: the store could not answer. */
  take(counters: readonly CapCounter[], amount: number): Promise<CapTake | null>;
  /** Starts a counter at what was spent, unless another caller started it first; false: failed. */
  start(counter: CapCounter, spent: number): Promise<boolean>;
  /** Gives an amount back to the counters that still exist (a lost give-back only overstates). */
  give(counters: readonly CapCounter[], amount: number): Promise<void>;
}

/**
 * The caps' counters in this process. Bounded: an account's counter pushed out is started again
 * from the ledger, which then does not see this process's calls in flight for that account.
 */
export class MemoryCapCounters implements CapCounters {
  private readonly counts = new LruMap<string, { counted: number; until: number }>(100_000);

  private live(key: string, now: number) {
    const c = this.counts.get(key);
    if (c && c.until > now) return c;
    if (c) this.counts.delete(key);
    return undefined;
  }

  async take(counters: readonly CapCounter[], amount: number): Promise<CapTake> {
    const now = Date.now();
    const found = [];
    for (let i = 0; i < counters.length; i++) {
      const c = this.live(counters[i]!.key, now);
      if (!c) return { kind: "missing", index: i };
      if (c.counted + amount > counters[i]!.cap)
        return { kind: "refused", index: i, counted: c.counted };
      found.push(c);
    }
    for (const c of found) c.counted += amount;
    return { kind: "taken" };
  }

  async start(counter: CapCounter, spent: number): Promise<boolean> {
    const now = Date.now();
    if (!this.live(counter.key, now)) {
      this.counts.set(counter.key, { counted: spent, until: now + counter.seconds * 1000 });
    }
    return true;
  }

  async give(counters: readonly CapCounter[], amount: number): Promise<void> {
    const now = Date.now();
    for (const counter of counters) {
      const c = this.live(counter.key, now);
      if (c) c.counted -= amount;
    }
  }
}

/**
 * Takes `amount` from the counters `keys` (their caps `caps`, in order) if every one stays within
 * its cap: 1; else 0, the index and its count; -1 and the index of a counter not started. `get`
 * reads a counter (nil when absent) and `add` adds to one: Redis's own here, the admission
 * script's, which count a key once per script (admission-scripts.ts), there.
 */
export const TAKE_LUA = `
local function takeCaps(keys, caps, amount, get, add)
  for j = 1, #keys do
    local v = get(keys[j])
    if not v then return {-1, j - 1, 0} end
    if v + amount > caps[j] then return {0, j - 1, v} end
  end
  for j = 1, #keys do add(keys[j], amount) end
  return {1, 0, 0}
end`;

const TAKE = `${TAKE_LUA}
local function get(key)
  local v = redis.call('get', key)
  return v and tonumber(v)
end
local function add(key, amount) redis.call('incrby', key, amount) end
local caps = {}
for j = 1, #KEYS do caps[j] = tonumber(ARGV[j + 1]) end
return takeCaps(KEYS, caps, tonumber(ARGV[1]), get, add)`;

/** DECRBY on the counters that exist (a counter gone was started afresh from the ledger). */
export const GIVE_LUA = `
local function giveCaps(k, m, amount)
  for j = k, k + m - 1 do
    if redis.call('exists', KEYS[j]) == 1 then redis.call('decrby', KEYS[j], amount) end
  end
end`;

const GIVE = `${GIVE_LUA}
giveCaps(1, #KEYS, ARGV[1])
return 0`;

type Script = RedisScript<number[] | number>;

/**
 * The caps' counters in Redis, with rate-limiter-flexible's keys and values (a count with the
 * window's expiry), so processes of an earlier version count with these. One script per take
 * and per give-back, whatever the number of windows (EVALSHA: the text goes once).
 */
export class RedisCapCounters implements CapCounters {
  private readonly takeScript: Script;
  private readonly giveScript: Script;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    this.takeScript = redisScript(redis, "blockgateCapTake", TAKE);
    this.giveScript = redisScript(redis, "blockgateCapGive", GIVE);
  }

  key(counter: CapCounter): string {
    return `${this.prefix}${counter.key}`;
  }

  async take(counters: readonly CapCounter[], amount: number): Promise<CapTake | null> {
    if (this.redis.status !== "ready") return null;
    try {
      const out = await this.takeScript(
        counters.length,
        ...counters.map((c) => this.key(c)),
        amount,
        ...counters.map((c) => c.cap),
      );
      return capTakeOf(out as number[]);
    } catch {
      return null;
    }
  }

  async start(counter: CapCounter, spent: number): Promise<boolean> {
    if (this.redis.status !== "ready") return false;
    try {
      await this.redis.set(this.key(counter), spent, "EX", counter.seconds, "NX");
      return true;
    } catch {
      return false;
    }
  }

  async give(counters: readonly CapCounter[], amount: number): Promise<void> {
    if (counters.length === 0 || amount <= 0 || this.redis.status !== "ready") return;
    try {
      await this.giveScript(counters.length, ...counters.map((c) => this.key(c)), amount);
    } catch {
      // A lost give-back overstates the spending until the counter expires: never past the cap.
    }
  }
}

/** The take script's reply (`takeCaps`) as a CapTake. */
export function capTakeOf([status, index, counted]: readonly number[]): CapTake {
  if (status === 1) return { kind: "taken" };
  if (status === 0) return { kind: "refused", index: index ?? 0, counted: counted ?? 0 };
  return { kind: "missing", index: index ?? 0 };
}
