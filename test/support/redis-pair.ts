import { randomBytes } from "node:crypto";
import { Redis } from "ioredis";
import type { ConfigInput } from "../../src/config/schema.ts";
import { startTestGateway, type TestGateway } from "./harness.ts";

/** The real Redis the limits' tests share (TEST_REDIS_URL, else REDIS_URL, else the local one). */
export const REDIS_URL =
  process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** Two gateway processes on one PostgreSQL ledger, one devnet and one Redis. */
export interface RedisPair {
  a: TestGateway;
  b: TestGateway;
  /** A client of that Redis, for reading the counters. */
  redis: Redis;
  /** This pair's keys: every key it writes starts with it, apart from other runs'. */
  redisKeyPrefix: string;
  /** Closes both processes and the client, and deletes the pair's keys. */
  close(): Promise<void>;
}

/**
 * Starts the pair with `config` (its `limits` given this pair's key prefix and a timeout a loaded
 * machine keeps), the second joining the first's schema and devnet.
 */
export async function redisPair(config: ConfigInput): Promise<RedisPair> {
  const redisKeyPrefix = `blockgate-test-${randomBytes(6).toString("hex")}:`;
  const redis = new Redis(REDIS_URL);
  const shared = {
    ...config,
    limits: { ...config.limits, redisKeyPrefix, redisTimeoutMs: 2_000 },
  };
  const a = await startTestGateway("postgres", shared, undefined, { redisUrl: REDIS_URL });
  const b = await startTestGateway("postgres", shared, a.schema ?? undefined, {
    redisUrl: REDIS_URL,
    devnet: a.devnet,
  });
  return {
    a,
    b,
    redis,
    redisKeyPrefix,
    close: async () => {
      await b.close();
      await a.close();
      const keys = await redis.keys(`${redisKeyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}
