import { availableParallelism } from "node:os";
import type { Config } from "../config/schema.ts";

/**
 * How many workers `blockgate start` forks: BLOCKGATE_WORKERS (what `--workers` sets) wins over
 * `server.workers`; `auto` is one per core. 0: none, the gateway serves in the process started.
 */
export function workersWanted(
  config: Config,
  env: NodeJS.ProcessEnv,
): { count: number } | { error: string } {
  const given = env.BLOCKGATE_WORKERS?.trim();
  const value = given === undefined || given === "" ? config.server.workers : given;
  if (value === "auto") return { count: availableParallelism() };
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0 || count > 1_024) {
    return { error: `BLOCKGATE_WORKERS: auto, or a whole number from 0 to 1024 (got "${value}")` };
  }
  return { count };
}

/**
 * Why `count` workers cannot run on this configuration, or null. Workers share one ledger, which
 * PGlite (one process's folder) cannot be; and devnet in the gateway would be one devnet per
 * worker, each with a chain of its own.
 */
export function clusterRefusal(
  count: number,
  databaseUrl: string | undefined,
  devnetNetworks: readonly string[],
): string | null {
  if (count <= 1) return null;
  if (!databaseUrl) {
    return (
      `--workers ${count} needs PostgreSQL: set DATABASE_URL. The embedded PGlite store belongs ` +
      "to one process; without DATABASE_URL, run one worker (--workers 1) or none."
    );
  }
  if (devnetNetworks.length > 0) {
    return (
      `--workers ${count} needs upstreams outside the gateway: devnet would start in each worker ` +
      `(${devnetNetworks.join(", ")}). Run \`blockgate devnet serve\` and point upstreams at it.`
    );
  }
  return null;
}
