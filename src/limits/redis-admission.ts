import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Slot } from "./concurrency.ts";
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
  slot: Slot | null;
  asked: boolean;
}

/**
 * Counts every scope of a call's admission in one round trip: each scope's rate (and its burst
 * reserve, read or spent) and, when every rate allows the call, its slot among the account's calls
 * in flight. The counters are the very keys and arithmetic rate-limiter-flexible's Redis limiter
 * uses (SET NX with the window's expiry, INCRBY, PTTL), so processes of an earlier version count
 * together with this one; the slots are concurrency.ts's sorted sets. One script per admission
 * rather than a command or a MULTI per counter: the commands, and the CPU each costs this process,
 * were most of what a plan in Redis cost a call. All keys of one call go to one Redis (no cluster).
 */
const ADMIT = `
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
local n = tonumber(ARGV[1])
local out = {}
local allowed = true
for i = 1, n do
  local a = 3 + (i - 1) * 3
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
local slot = -1
if ARGV[2] == '1' and allowed then
  local s = 3 + n * 3
  local key = KEYS[2 * n + 1]
  redis.call('zremrangebyscore', key, '-inf', ARGV[s])
  local inFlight = redis.call('zcard', key)
  if inFlight >= tonumber(ARGV[s + 2]) then
    slot = 0
  else
    redis.call('zadd', key, ARGV[s + 1], ARGV[s + 3])
    redis.call('pexpire', key, ARGV[s + 4])
    slot = inFlight + 1
  end
end
table.insert(out, slot)
return out`;

type AdmitCommand = (keys: number, ...args: (string | number)[]) => Promise<number[]>;

export class RedisAdmission {
  private readonly admitScript: AdmitCommand;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly burstWindowSeconds: number,
    /** How long a slot outlives a call whose process died without giving it back. */
    private readonly leaseMs: number,
  ) {
    // defineCommand: EVALSHA, the script's text sent only when Redis does not know it yet.
    redis.defineCommand("blockgateAdmit", { lua: ADMIT });
    this.admitScript = (redis as unknown as { blockgateAdmit: AdmitCommand }).blockgateAdmit.bind(
      redis,
    );
  }

  /** The call's counters; null when Redis could not answer (the caller counts on its own). */
  async count(
    scopes: readonly ScopeCount[],
    slot: { key: string; max: number } | null,
  ): Promise<Counted | null> {
    if (this.redis.status !== "ready") return null;
    const keys: string[] = [];
    const args: (string | number)[] = [scopes.length, slot ? 1 : 0];
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
    let out: number[];
    try {
      out = await this.admitScript(keys.length, ...keys, ...args);
    } catch {
      return null;
    }
    const readings = scopes.map((_, i): RateReadings => {
      const [consumed, ttl, used, left, taken] = out.slice(i * 5, i * 5 + 5) as number[];
      return {
        rate: { consumed: consumed ?? 0, msBeforeNext: ttl ?? 0 },
        reserve:
          used === undefined || used < 0 ? null : { consumed: used, msBeforeNext: left ?? 0 },
        reserveTaken: taken === 1,
      };
    });
    const taken = out[scopes.length * 5] ?? -1;
    return {
      readings,
      asked: taken >= 0,
      slot: taken > 0 && slotKey ? this.slotOf(slotKey, member, taken) : null,
    };
  }

  private slotOf(key: string, member: string, inFlight: number): Slot {
    let released = false;
    return {
      inFlight,
      release: () => {
        if (released) return;
        released = true;
        // A lost release costs the slot until it expires, never a wrong answer.
        this.redis.zrem(key, member).catch(() => {});
      },
    };
  }
}
