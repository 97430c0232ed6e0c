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
}

/** Where counters live: this process's memory, or Redis shared by every gateway process. */
export interface LimiterStore {
  readonly kind: "memory" | "redis";
  limiter(shape: LimiterShape): RateLimiterAbstract;
}

export const memoryStore: LimiterStore = {
  kind: "memory",
  limiter: (shape) => new RateLimiterMemory(shape),
};

/**
 * Counters in Redis, so all processes hold one limit together: the credit caps'. While Redis
 * cannot answer, the caller is told (the caps then ask the ledger: money is not held per process).
 * Rates and slots are counted by one script per call instead (redis-admission.ts).
 */
export function redisStore(client: Redis, prefix: string): LimiterStore {
  return {
    kind: "redis",
    limiter: (shape) =>
      new RateLimiterRedis({
        ...shape,
        keyPrefix: `${prefix}${shape.keyPrefix}`,
        storeClient: client,
        rejectIfRedisNotReady: true,
      }),
  };
}
