import type { Config, NetworkName } from "../../config/schema.ts";
import type { Queryable } from "../../db/database.ts";
import type { HttpReply } from "../../http/reply.ts";
import type { HealthOptions, PoolHealth } from "../../upstreams/failover.ts";
import { CachedCheck } from "../../util/cached-check.ts";
import type { VerificationReport } from "../../verify/chain/verified-chain-set.ts";

/**
 * ready: everything answers. degraded: the gateway can serve, but some upstream member (or a
 * whole Electrum, indexer or Esplora pool) does not answer. down: the database does not answer,
 * or some network's main backend does not — its node (the unified API's transactions need it),
 * or, for a network configured with Electrum servers alone, those. draining: shutting down.
 */
export type ReadyStatus = "ready" | "degraded" | "down" | "draining";

type PoolKind = "node" | "electrum" | "graph" | "esplora";

export interface ReadyReport {
  status: ReadyStatus;
  database?: { status: "up" | "down" };
  upstreams?: Record<PoolKind, Partial<Record<NetworkName, PoolHealth>>>;
  verification?: VerificationDetail;
}

type Probed = { health(o: HealthOptions): Promise<PoolHealth> };

/** Each verified network's tip and where each upstream stands against it (src/verify/chain/). */
export type VerificationDetail = Partial<Record<NetworkName, VerificationReport>>;

/** What readiness looks at in a running gateway. */
export interface HealthServices {
  config: Config;
  /** Set when shutdown begins: /readyz answers 503. */
  draining: boolean;
  /** The database check (bounded, cached). */
  databaseCheck: CachedCheck;
  nodes: ReadonlyMap<NetworkName, Probed>;
  electrum: ReadonlyMap<NetworkName, Probed>;
  indexers: ReadonlyMap<NetworkName, Probed>;
  esplora: ReadonlyMap<NetworkName, Probed>;
  verifiedChains: { report(): VerificationDetail };
}

/** `SELECT 1`, bounded and cached like an upstream probe (see CachedCheck). */
export function databaseCheck(db: Queryable): CachedCheck {
  return new CachedCheck(async () => {
    await db.query("SELECT 1");
    return true;
  });
}

/** What /readyz answers: 200 for ready and degraded, 503 for down and draining. */
export async function readiness(app: HealthServices): Promise<HttpReply> {
  const draining: HttpReply = { status: 503, body: { status: "draining" } satisfies ReadyReport };
  if (app.draining) return draining;
  const opts: HealthOptions = app.config.readiness;
  const each = async (
    pools: ReadonlyMap<NetworkName, Probed>,
  ): Promise<Partial<Record<NetworkName, PoolHealth>>> =>
    Object.fromEntries(
      await Promise.all(
        [...pools].map(async ([network, pool]) => [network, await pool.health(opts)]),
      ),
    );
  const [databaseUp, node, electrum, graph, esplora] = await Promise.all([
    app.databaseCheck.get(opts.timeoutMs, opts.cacheMs),
    each(app.nodes),
    each(app.electrum),
    each(app.indexers),
    each(app.esplora),
  ]);
  // Checked after the checks: a drain that began meanwhile must not be answered "ready".
  if (app.draining) return draining;
  const main = (n: NetworkName) => (app.nodes.has(n) ? node[n] : electrum[n]);
  const nodeless = app.config.networks.some((n) => (main(n)?.status ?? "down") === "down");
  const pools = [node, electrum, graph, esplora].flatMap((byNetwork) => Object.values(byNetwork));
  const status: ReadyStatus =
    !databaseUp || nodeless
      ? "down"
      : pools.every((p) => p.status === "healthy")
        ? "ready"
        : "degraded";
  const verification = app.verifiedChains.report();
  const body: ReadyReport = {
    status,
    database: { status: databaseUp ? "up" : "down" },
    upstreams: { node, electrum, graph, esplora },
    // Only where some network's chain is verified.
    ...(Object.keys(verification).length > 0 ? { verification } : {}),
  };
  return { status: status === "down" ? 503 : 200, body };
}
