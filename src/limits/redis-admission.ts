import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { type CapCounter, GIVE_LUA, TAKE_LUA } from "./cap-counters.ts";
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

/**
 * Counts every scope of a call's admission in one round trip: each scope's rate (and its burst
 * reserve, read or spent); when every rate allows the call, its slot among the account's calls in
 * flight; and when it got its slot too, a guess at its estimate taken from its credit caps (all
 * windows or none: cap-counters.ts's `takeCaps`), which the cap phase then finds taken. The
 * counters are the very keys and arithmetic rate-limiter-flexible's Redis limiter uses (SET NX
 * with the window's expiry, INCRBY, PTTL), so processes of an earlier version count together with
 * this one; the slots are concurrency.ts's sorted sets. One script per admission rather than a
 * command or a MULTI per counter: the commands, and the CPU each costs this process and Redis,
 * were most of what a plan in Redis cost a call. All keys of one call go to one Redis (no cluster).
 */
const ADMIT = `${TAKE_LUA}
local function take(key, seconds)
  redis.call('set', key, 0, 'EX', seconds, 'NX')
  local consumed = redis.call('incrby', key, 1)
  local ttl = redis.call('pttl', key)
  if ttl == -1 then
    redis.call('expire', key, seconds)
    ttl = 1000 * seconds
  end
  return consumed, ttl
end
local n, m = tonumber(ARGV[1]), tonumber(ARGV[3])
local out = {}
local allowed = true
for i = 1, n do
  local a = 4 + (i - 1) * 3
  local points, reserve, seconds = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local consumed, ttl = take(KEYS[2 * i - 1], 1)
  local used, left, taken = -1, -1, 0
  if consumed <= points then
    if reserve > 0 then
      local v = redis.call('get', KEYS[2 * i])
      if v then
        used = tonumber(v)
        left = redis.call('pttl', KEYS[2 * i])
      end
    end
  elseif reserve > 0 then
    used, left = take(KEYS[2 * i], seconds)
    taken = 1
    if used > reserve then allowed = false end
  else
    allowed = false
  end
  for _, v in ipairs({consumed, ttl, used, left, taken}) do table.insert(out, v) end
end
local slot, k, a = -1, 2 * n + 1, 4 + n * 3
if ARGV[2] == '1' then
  if allowed then
    redis.call('zremrangebyscore', KEYS[k], '-inf', ARGV[a])
    local inFlight = redis.call('zcard', KEYS[k])
    if inFlight >= tonumber(ARGV[a + 2]) then
      slot = 0
      allowed = false
    else
      redis.call('zadd', KEYS[k], ARGV[a + 1], ARGV[a + 3])
      redis.call('pexpire', KEYS[k], ARGV[a + 4])
      slot = inFlight + 1
    end
  end
  k, a = k + 1, a + 5
end
table.insert(out, slot)
local caps = 0
if m > 0 and allowed then caps = takeCaps(k, m, a)[1] end
table.insert(out, caps)
return out`;

/** Gives a call's slot back and what it owes its caps, in one round trip. */
const RELEASE = `${GIVE_LUA}
local k = 1
if ARGV[1] == '1' then
  redis.call('zrem', KEYS[1], ARGV[2])
  k = 2
end
giveCaps(k, #KEYS - k + 1, ARGV[3])
return 0`;

type Script = (keys: number, ...args: (string | number)[]) => Promise<number[]>;

/** A slot taken in Redis: its sorted set and this call's member of it. */
export interface RedisSlot {
  key: string;
  member: string;
}

export class RedisAdmission {
  private readonly admitScript: Script;
  private readonly releaseScript: Script;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly burstWindowSeconds: number,
    /** How long a slot outlives a call whose process died without giving it back. */
    private readonly leaseMs: number,
  ) {
    // defineCommand: EVALSHA, the script's text sent only when Redis does not know it yet.
    redis.defineCommand("blockgateAdmit", { lua: ADMIT });
    redis.defineCommand("blockgateRelease", { lua: RELEASE });
    const commands = redis as unknown as Record<"blockgateAdmit" | "blockgateRelease", Script>;
    this.admitScript = commands.blockgateAdmit.bind(redis);
    this.releaseScript = commands.blockgateRelease.bind(redis);
  }

  /**
   * The call's counters; null when Redis could not answer (the caller counts on its own). `caps`:
   * the amount to take from these cap counters once the call is otherwise admitted.
   */
  async count(
    scopes: readonly ScopeCount[],
    slot: { key: string; max: number } | null,
    caps: { counters: readonly CapCounter[]; amount: number } | null,
  ): Promise<Counted | null> {
    if (this.redis.status !== "ready") return null;
    const keys: string[] = [];
    const args: (string | number)[] = [scopes.length, slot ? 1 : 0, caps?.counters.length ?? 0];
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
    if (caps) {
      for (const c of caps.counters) keys.push(`${this.prefix}${c.key}`);
      args.push(caps.amount);
      for (const c of caps.counters) args.push(c.cap);
    }
    let out: number[];
    try {
      out = await this.admitScript(keys.length, ...keys, ...args);
    } catch {
      return null;
    }
    return countedOf(out, scopes.length, slotKey, member);
  }

  /** Gives back a call's slot (if any) and `amount` to these cap counters. */
  release(slot: RedisSlot | null, counters: readonly CapCounter[], amount: number): void {
    const give = amount > 0 && counters.length > 0;
    // A lost release costs the slot until it expires, never a wrong answer; a lost give-back
    // overstates the spending until its counter expires, never past a cap.
    if (!give) {
      if (slot) this.redis.zrem(slot.key, slot.member).catch(() => {});
      return;
    }
    const keys = counters.map((c) => `${this.prefix}${c.key}`);
    if (slot) keys.unshift(slot.key);
    this.releaseScript(keys.length, ...keys, slot ? 1 : 0, slot?.member ?? "", amount).catch(
      () => {},
    );
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
