// A gateway serving the node route to devnet's Core for the node-route benches, in this process:
// billing on (an account with credits beyond any run, one token), the response cache off so every
// call goes to Core, and optionally a plan whose every limit is checked and never reached.
import { randomBytes } from "node:crypto";
import { issueToken } from "../src/access/tokens.ts";
import { type RunningGateway, startGateway } from "../src/app/app.ts";
import { createAccount } from "../src/billing/ledger/accounts.ts";
import { grantCredits } from "../src/billing/ledger/ledger.ts";
import { parseConfig } from "../src/config/load.ts";
import type { BitcoinCoreUpstreamConfig } from "../src/config/schema.ts";

export interface NodeGatewayOptions {
  /** Connections to Core. */
  connections: number;
  /** PostgreSQL (a schema of its own, dropped at close); PGlite in memory when unset. */
  databaseUrl?: string | undefined;
  coalesceCallsMax?: number | undefined;
  /**
   * memory or redis: the plan's counters there (REDIS_URL); cache: no plan, only the response
   * cache's Redis tier (every call a miss there). Unset: no plan, no Redis.
   */
  plan?: "memory" | "redis" | "cache" | undefined;
}

/** The gateway, and the node route's URL with the token in it. */
export async function nodeGateway(
  core: { url: string; user: string; password: string },
  opts: NodeGatewayOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const { databaseUrl, plan } = opts;
  const config = parseConfig({
    ...(plan === "memory" || plan === "redis" ? unreachedPlan() : {}),
    server: { port: 0 },
    database: { pgliteDir: "memory://" },
    demo: { enabled: false },
    log: { level: "silent" },
    networks: ["mainnet"],
    cache: { bytesMax: 0 }, // every call goes to Core, as through the proxy
    upstreams: {
      node: {
        mainnet: [
          { ...core, connections: opts.connections, coalesceCallsMax: opts.coalesceCallsMax },
        ],
      },
    },
  });
  const schema = databaseUrl ? `bench_${randomBytes(4).toString("hex")}` : undefined;
  const gateway: RunningGateway = await startGateway(config, {
    databaseUrl,
    ...(schema ? { databaseSchema: schema } : {}),
    nodeUpstreams: {
      mainnet: (config.upstreams.node?.mainnet ?? []).filter(
        (u): u is BitcoinCoreUpstreamConfig => u !== "devnet",
      ),
    },
    noAdminFile: true,
    redisUrl:
      plan === "redis" || plan === "cache"
        ? (process.env.REDIS_URL ?? "redis://127.0.0.1:6379")
        : undefined,
  });
  const account = await createAccount(gateway.app.db, "bench");
  await grantCredits(gateway.app.db, account.id, 1_000_000_000_000);
  const { token } = await issueToken(gateway.app.db, account.id);
  return {
    url: `${gateway.url}/node/mainnet/${token}`,
    close: async () => {
      if (schema) {
        await gateway.app.db.query(`DROP SCHEMA ${schema} CASCADE`);
        // The webhook queue's schema beside ours (src/webhooks/queue.ts).
        await gateway.app.db.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
      }
      await gateway.close();
    },
  };
}

/** A plan for every account whose limits are all checked and none reached, counters apart per run. */
export function unreachedPlan() {
  const huge = { requestsPerSecond: 1_000_000, burst: 1_000_000 };
  return {
    plans: {
      bench: {
        token: huge,
        account: huge,
        concurrentCalls: 100_000,
        creditsPerDay: 1e15,
        creditsPerCycle: 1e15,
      },
    },
    limits: { defaultPlan: "bench", redisKeyPrefix: `bench-${randomBytes(4).toString("hex")}:` },
  };
}
