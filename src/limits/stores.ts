import type { Redis } from "ioredis";
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRedis,
} from "rate-limiter-flexible";

export interface LimiterShape {
  /** Distinguishes one limiter's keys from another's (policy and plan). */
  keyPrefix: string;
  points: number;
  /** Window in seconds. */
  duration: number;
  /**
   * With Redis: whether this process counts on its own while Redis cannot answer (default), or
   * the limiter's caller is told (the credit caps then ask the ledger: money is not held per
   * process).
   */
  insurance?: boolean;
}

/** Where counters live: this process's memory, or Redis shared by every gateway process. */
export interface LimiterStore {
  readonly kind: "memory" | "redis";
  limiter(shape: LimiterShape): RateLimiterAbstract;
}

export const memoryStore: LimiterStore = {
  kind: "memory",
  limiter: ({ insurance: _, ...shape }) => new RateLimiterMemory(shape),
};

/**
 * Counters in Redis, so all processes hold one limit together. While Redis cannot answer, each
 * process falls back to its own memory (rate-limiter-flexible's insurance limiter): limits then
 * hold per process rather than failing every call, the same stance as the response cache's
 * Redis tier (Redis may be lost; the gateway keeps serving).
 */
export function redisStore(client: Redis, prefix: string): LimiterStore {
  return {
    kind: "redis",
    limiter: ({ insurance = true, ...shape }) =>
      new RateLimiterRedis({
        ...shape,
        keyPrefix: `${prefix}${shape.keyPrefix}`,
        storeClient: client,
        rejectIfRedisNotReady: true,
        ...(insurance ? { insuranceLimiter: new RateLimiterMemory(shape) } : {}),
      }),
  };
}
