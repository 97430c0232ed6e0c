import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { InFlightMap } from "../util/in-flight-map.ts";

/** Calls in flight per key (an account): a slot taken before the call runs, given back after. */
export interface Slots {
  /** The slot (calls in flight with it, and how to give it back), or null at `max`. */
  acquire(key: string, max: number): Promise<Slot | null>;
}

export interface Slot {
  inFlight: number;
  release(): void;
}

/** This process's calls only. */
export class MemorySlots implements Slots {
  private readonly counts = new InFlightMap<string, number>();

  async acquire(key: string, max: number): Promise<Slot | null> {
    const n = this.counts.get(key) ?? 0;
    if (n >= max) return null;
    this.counts.set(key, n + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      // Keys of idle accounts go, so the map holds only accounts with calls in flight.
      if (left <= 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
    return { inFlight: n + 1, release };
  }
}

/**
 * Slots shared by every process through Redis: one sorted set per key whose members are the calls
 * in flight, scored by when they expire. Taking a slot first drops expired members, so a process
 * that died mid-call holds its slots only until `leaseMs` (the longest a request may run), never
 * for good. rate-limiter-flexible counts events in windows and has no notion of a slot released at
 * the end of a call, hence this small script.
 */
const ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return n + 1`;

export class RedisSlots implements Slots {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly leaseMs: number,
    /** Where Redis cannot answer: this process's own slots, as the rate limits fall back. */
    private readonly fallback: Slots = new MemorySlots(),
  ) {}

  async acquire(key: string, max: number): Promise<Slot | null> {
    const redisKey = `${this.prefix}slots:${key}`;
    const member = randomUUID();
    const now = Date.now();
    let taken: unknown;
    try {
      if (this.redis.status !== "ready") throw new Error("redis not ready");
      taken = await this.redis.eval(
        ACQUIRE,
        1,
        redisKey,
        now,
        now + this.leaseMs,
        max,
        member,
        this.leaseMs,
      );
    } catch {
      return this.fallback.acquire(key, max);
    }
    if (typeof taken !== "number" || taken < 1) return null;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      // A lost release costs the slot until it expires, never a wrong answer.
      this.redis.zrem(redisKey, member).catch(() => {});
    };
    return { inFlight: taken, release };
  }
}
