import { type RateLimiterAbstract, RateLimiterMemory } from "rate-limiter-flexible";

export interface LimiterShape {
  /** Distinguishes one limiter's keys from another's (policy and plan). */
  keyPrefix: string;
  points: number;
  /** Window in seconds. */
  duration: number;
}

/**
 * Where the rates count when no script does (no Redis, or Redis not answering): this process's
 * memory. With Redis they are counted by the admission script (redis-admission.ts).
 */
export interface LimiterStore {
  readonly kind: "memory" | "redis";
  limiter(shape: LimiterShape): RateLimiterAbstract;
}

export const memoryStore: LimiterStore = {
  kind: "memory",
  limiter: (shape) => new RateLimiterMemory(shape),
};
