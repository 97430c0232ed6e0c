import type { Redis } from "ioredis";

/** A Lua script's call: the number of KEYS, then KEYS and ARGV; its reply as Redis gives it. */
export type RedisScript<R> = (keys: number, ...args: (string | number)[]) => Promise<R>;

/**
 * `lua` as a command of `redis` (ioredis's defineCommand: EVALSHA, the text sent only when Redis
 * does not know it yet), to call with the number of KEYS first.
 */
export function redisScript<R>(redis: Redis, name: string, lua: string): RedisScript<R> {
  redis.defineCommand(name, { lua });
  const command = (redis as unknown as Record<string, RedisScript<R>>)[name];
  if (!command) throw new Error(`ioredis did not define the command ${name}`);
  return command.bind(redis);
}
