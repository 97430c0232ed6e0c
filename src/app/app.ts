import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { DestinationStream, Logger } from "pino";
import { AuthFailures } from "../access/auth-failures.ts";
import { AuthThrottle } from "../access/auth-throttle.ts";
import { TokenCache } from "../access/token-cache.ts";
import { Credits } from "../billing/ledger/credits.ts";
import { voidStaleHolds } from "../billing/ledger/ledger.ts";
import { BlockAnswerCache } from "../cache/block-answers.ts";
import { ChainGuard } from "../cache/chain-guard.ts";
import { GatewayAnswers } from "../cache/gateway-answers.ts";
import { ParsedTxs } from "../cache/parsed-txs.ts";
import { RedisTier } from "../cache/redis-tier.ts";
import { TxCache } from "../cache/tx-cache.ts";
import { TxStore } from "../cache/tx-store.ts";
import { runDbCommand } from "../cli/commands.ts";
import type {
  BitcoinCoreUpstreamConfig,
  Config,
  ElectrumUpstreamConfig,
  NetworkName,
} from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import { openDatabase } from "../db/open.ts";
import { databaseBus, type EventBus } from "../events/bus.ts";
import { ChainEvents } from "../events/chain-events.ts";
import { RedisBus } from "../events/redis-bus.ts";
import { Limits } from "../limits/limits.ts";
import { createLogger } from "../log/logger.ts";
import { Metrics } from "../log/metrics.ts";
import { writeAdminFile, writesAdminFile } from "../routes/admin/admin-file.ts";
import { databaseCheck } from "../routes/health/readiness.ts";
import { BitcoinCorePool } from "../upstreams/bitcoin-core/pool.ts";
import { ElectrumPool } from "../upstreams/electrum/pool.ts";
import type { FailoverPolicy } from "../upstreams/failover.ts";
import type { IndexerUpstreamConfig } from "../upstreams/indexer/client.ts";
import { IndexerPool } from "../upstreams/indexer/pool.ts";
import { TargetPolicy } from "../webhooks/targets.ts";
import { Webhooks } from "../webhooks/webhooks.ts";
import { type RunningServer, startHttpServer } from "./server.ts";
import type { App } from "./services.ts";

export interface StartOptions {
  databaseUrl?: string | undefined;
  /** PostgreSQL schema to use (tests); default is the connection's search_path. */
  databaseSchema?: string;
  /** Resolved upstreams per network ("devnet" entries already replaced by URLs). */
  nodeUpstreams: Partial<Record<NetworkName, BitcoinCoreUpstreamConfig[]>>;
  /** Resolved indexers per network, like nodeUpstreams; none for a network: no graph route there. */
  graphUpstreams?: Partial<Record<NetworkName, IndexerUpstreamConfig[]>>;
  /** Resolved Electrum servers per network; a network without any answers 502 on that route. */
  electrumUpstreams?: Partial<Record<NetworkName, ElectrumUpstreamConfig[]>>;
  logDestination?: DestinationStream;
  /** Tests run many gateways on one PGlite-less setup; they need no CLI hand-off file. */
  noAdminFile?: boolean;
  /** The store, already being opened (openStore): `npm start` opens it while devnet loads. */
  store?: Promise<Database>;
  /** A migrated PGlite snapshot to start a `memory://` store from (tests; see openPglite). */
  pgliteSnapshot?: string | undefined;
  /** REDIS_URL: the response cache's shared tier and the plans' counters (none: this process's memory only). */
  redisUrl?: string | undefined;
}

export interface RunningGateway {
  app: App;
  http: RunningServer;
  url: string;
  /** Webhook dispatch and delivery in this process. */
  webhooks: Webhooks;
  /**
   * Graceful shutdown (SIGTERM): drains the HTTP server (server.drainTimeoutMs), then closes the
   * upstream pools and the database. Calling it again returns the same shutdown.
   */
  close(): Promise<void>;
}

/** The store the gateway uses, opened and migrated. */
export function openStore(
  config: Config,
  opts: Pick<StartOptions, "databaseUrl" | "databaseSchema" | "pgliteSnapshot">,
): Promise<Database> {
  return openDatabase({
    databaseUrl: opts.databaseUrl,
    pgliteDir: config.database.pgliteDir,
    pgliteSnapshot: opts.pgliteSnapshot,
    poolSize: config.database.poolSize,
    ...(opts.databaseSchema ? { schema: opts.databaseSchema } : {}),
  });
}

/**
 * This gateway's name among processes sharing the database (src/billing/ledger/leases.ts): the config's,
 * else host and port. PGlite is one process, so any earlier incarnation on it is dead; port 0
 * means no stable identity (tests, benchmarks), so a random one that no restart will claim.
 */
function instanceName(config: Config, db: Database, storeGiven: boolean): string {
  if (config.ledger.instance) return config.ledger.instance;
  const dir = config.database.pgliteDir;
  if (db.kind === "pglite" && !storeGiven && !dir.startsWith("memory://")) return `pglite:${dir}`;
  if (db.kind === "pglite" || config.server.port === 0) return `ephemeral-${randomUUID()}`;
  return `${hostname()}:${config.server.port}`;
}

/**
 * How chain events reach every process: Redis pub/sub when REDIS_URL is set and processes share a
 * PostgreSQL ledger (NOTIFY stays beside it as the fallback), else the database's signals. A
 * PGlite store is one process: nothing need leave it.
 */
function eventBus(config: Config, db: Database, log: Logger, redisUrl?: string): EventBus {
  const own = databaseBus(db);
  if (!redisUrl || db.kind !== "postgres") return own;
  const channel = `${config.events.redisChannelPrefix}${db.namespace}`;
  return new RedisBus(
    { url: redisUrl, channel, timeoutMs: config.events.redisTimeoutMs },
    own,
    log,
  );
}

/** Opens the store (unless given one being opened), builds the upstream pools and listens. */
export async function startGateway(config: Config, opts: StartOptions): Promise<RunningGateway> {
  const log = createLogger(config.log.level, opts.logDestination);
  const db = await (opts.store ?? openStore(config, opts));
  const metrics = new Metrics();
  // One policy for every pool; only the attempt timeout differs by backend.
  const policy = (backend: "node" | "electrum" | "graph"): FailoverPolicy => ({
    ...config.failover,
    attemptTimeoutMs: config.failover.attemptTimeoutMs[backend],
  });
  const nodes = new Map<NetworkName, BitcoinCorePool>();
  const txMemory = new TxCache(config.cache.bytesMax);
  const blockAnswers = new BlockAnswerCache(config.cache.blockBytesMax);
  const guards = new Map<NetworkName, ChainGuard>();
  const electrum = new Map<NetworkName, ElectrumPool>();
  for (const network of config.networks) {
    const upstreams = opts.nodeUpstreams[network];
    if (upstreams && upstreams.length > 0) {
      const pool = new BitcoinCorePool(upstreams, {
        policy: policy("node"),
        observer: metrics.pool("node", network),
        onCombined: (requests, calls) => metrics.coalesced(network, requests, calls),
        onShared: () => metrics.shared("node", network),
        responseBytesMax: config.server.responseBytesMax,
      });
      nodes.set(network, pool);
      guards.set(
        network,
        // A block the best chain no longer has: what the cache holds of it goes.
        new ChainGuard(pool, config.cache.tipTtlMs, (height) => {
          const dropped =
            txMemory.dropHeight(network, height) +
            blockAnswers.dropHeight(network, height) +
            // Built below, with the store it asks; a reorganisation comes long after.
            gatewayAnswers.dropHeight(network, height);
          log.info({ network, height, dropped }, "reorganisation: cached block evicted");
        }),
      );
    }
    const servers = opts.electrumUpstreams?.[network];
    if (servers && servers.length > 0) {
      const pool = new ElectrumPool(servers, {
        policy: policy("electrum"),
        observer: metrics.pool("electrum", network),
        onShared: () => metrics.shared("electrum", network),
        upstreamSubscriptionsMax: config.electrum.upstreamSubscriptionsMax,
        warn: (what, detail) => log.warn({ network, ...detail }, what),
      });
      // Connections open now, so the first request does not pay for the handshake.
      pool.start();
      electrum.set(network, pool);
    }
  }
  const indexers = new Map<NetworkName, IndexerPool>();
  for (const network of config.networks) {
    const upstreams = opts.graphUpstreams?.[network];
    if (upstreams && upstreams.length > 0) {
      indexers.set(
        network,
        new IndexerPool(upstreams, {
          policy: policy("graph"),
          observer: metrics.pool("graph", network),
          onShared: () => metrics.shared("graph", network),
          responseBytesMax: config.server.responseBytesMax,
        }),
      );
    }
  }
  const redis = opts.redisUrl
    ? new RedisTier({ url: opts.redisUrl, ...config.cache.redis }, log)
    : null;
  const txCache = new TxStore(
    txMemory,
    redis,
    guards,
    config.cache.minConfirmations,
    (network, tier, result, count) => {
      if (count > 0) metrics.cacheLookups.inc({ network, tier, result }, count);
    },
    blockAnswers,
  );
  const gatewayAnswers = new GatewayAnswers(config.cache.gatewayBytesMax, txCache);
  const credits = new Credits(db, log, {
    processId: randomUUID(),
    instance: instanceName(config, db, opts.store !== undefined),
    ttlMs: config.ledger.holdTimeoutMs,
    leaseWindowMs: config.ledger.leaseWindowMs,
    leaseMinCalls: config.ledger.leaseMinCalls,
    leaseKeepFactor: config.ledger.leaseKeepFactor,
    leaseIdleMs: config.ledger.leaseIdleMs,
    batchRowsMax: config.ledger.batchRowsMax,
    pendingRowsMax: config.ledger.pendingRowsMax,
    settleGatherUs: config.ledger.settleGatherUs,
  });
  const authFailures = new AuthFailures(db, (err) => log.warn({ err }, "writing failed logins"));
  const limits = Limits.create(config, db, log, opts.redisUrl);
  const events = new ChainEvents(
    db,
    eventBus(config, db, log, opts.redisUrl),
    nodes,
    electrum,
    config.events,
    log,
    (e) => metrics.chainEvents.inc({ network: e.network, kind: e.kind }),
  );
  authFailures.start();
  const app: App = {
    config,
    db,
    credits,
    limits,
    authThrottle: new AuthThrottle({
      free: config.server.authFailuresFree,
      baseMs: config.server.authDelayBaseMs,
      maxMs: config.server.authDelayMaxMs,
      windowMs: config.server.authFailureWindowMs,
    }),
    tokens: new TokenCache(db, {
      onRevoked: (tokenId, dropped) => log.info({ tokenId, dropped }, "token revocation received"),
    }),
    authFailures,
    log,
    nodes,
    indexers,
    electrum,
    events,
    txCache,
    gatewayAnswers,
    parsedTxs: new ParsedTxs(config.cache.decodedBytesMax),
    webhookTargets: new TargetPolicy(config.webhooks.allowTargets),
    metrics,
    databaseCheck: databaseCheck(db),
    devnetProducers: new Map(),
    runCommand: (argv) => runDbCommand(db, argv, config),
    draining: false,
  };
  // Leases and holds of this instance's dead predecessor come back at once; holds left by a
  // process that died between reserve and settle are voided, not charged.
  const restarted = await credits.start();
  const voided = restarted.voided + (await voidStaleHolds(db, config.ledger.holdTimeoutMs));
  if (voided > 0) log.warn({ voided }, "voided reservations orphaned by an earlier crash");
  const sweeper = setInterval(() => {
    voidStaleHolds(db, config.ledger.holdTimeoutMs).catch((err: unknown) =>
      log.error({ err }, "hold sweeper failed"),
    );
  }, config.ledger.holdTimeoutMs);
  sweeper.unref();
  events.start();
  await events.hearing(1_000);
  const webhooks = new Webhooks(config.webhooks, log);
  await webhooks.start(app);
  const http = await startHttpServer(app, config.server.host, config.server.port);
  const admin =
    db.kind === "pglite" && !opts.noAdminFile && writesAdminFile(config)
      ? writeAdminFile(config, http.url)
      : null;
  if (admin) app.adminSecret = admin.secret;
  const pools = [...nodes.values(), ...indexers.values(), ...electrum.values()];
  const shutdown = async (): Promise<void> => {
    app.draining = true;
    clearInterval(sweeper);
    // No more announcements: the lead passes to another process at once.
    await events.close();
    // Logged once the listening socket is closed (from here a new connection is refused) and the
    // requests that had arrived are counted in flight.
    const { cut, ms } = await http.drain(config.server.drainTimeoutMs, () =>
      log.info({ inFlight: http.inFlight(), timeoutMs: config.server.drainTimeoutMs }, "draining"),
    );
    // Deliveries under way finish within what is left of the drain (their job is redone if not).
    await webhooks.close(cut === 0 ? config.server.drainTimeoutMs : 1);
    if (cut === 0) {
      // Every call has settled: the leases go back, and the process leaves the table.
      await credits.stop().catch((err: unknown) => log.warn({ err }, "returning credit leases"));
      await authFailures.stop();
      await Promise.all(pools.map((p) => p.close()));
      await txCache.close();
      await limits.close();
      await db.close();
    } else {
      // The database closes first: a cut call still waiting on its upstream can then never
      // settle, so it is never charged; its hold stays open until the hold sweeper voids it.
      log.warn({ cut }, "drain timed out: calls cut, their holds are left to the hold sweeper");
      credits.abandon();
      await authFailures.stop();
      await db.close();
      await Promise.all(pools.map((p) => p.close(true)));
      await txCache.close();
      await limits.close();
      // The cut calls fail as their upstreams close; each settle is refused before the closed
      // store. One line for all of them.
      if (credits.unsettled > 0) {
        log.warn({ settles: credits.unsettled }, "cut calls ended unsettled, not charged");
      }
    }
    // Only now: while the store was open, the CLI had to hand its commands to this process.
    admin?.remove();
    log.info({ ms, cut }, "drained");
  };
  let closing: Promise<void> | undefined;
  return {
    app,
    http,
    url: http.url,
    webhooks,
    close: () => {
      closing ??= shutdown();
      return closing;
    },
  };
}
