import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { DestinationStream, Logger } from "pino";
import type { Registry } from "prom-client";
import { AuthFailures } from "../access/auth-failures.ts";
import { AuthThrottle } from "../access/auth-throttle.ts";
import { TokenCache } from "../access/token-cache.ts";
import { Credits } from "../billing/ledger/credits.ts";
import { voidStaleHolds } from "../billing/ledger/ledger.ts";
import { deriverFor } from "../billing/topups/topups.ts";
import { TopupWatcher } from "../billing/topups/watcher.ts";
import { BlockAnswerCache } from "../cache/block-answers.ts";
import type { ChainGuard } from "../cache/chain-guard.ts";
import { GatewayAnswers } from "../cache/gateway-answers.ts";
import { ParsedTxs } from "../cache/parsed-txs.ts";
import { RedisTier } from "../cache/redis-tier.ts";
import { TxCache } from "../cache/tx-cache.ts";
import { TxStore } from "../cache/tx-store.ts";
import { runDbCommand } from "../cli/commands.ts";
import type { Config, NetworkName } from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import { openDatabase } from "../db/open.ts";
import { databaseBus, type EventBus } from "../events/bus.ts";
import { ChainEvents } from "../events/chain-events.ts";
import { RedisBus } from "../events/redis-bus.ts";
import { RecentLoad } from "../http/recent-load.ts";
import { Limits } from "../limits/limits.ts";
import { createLogger } from "../log/logger.ts";
import { Metrics } from "../log/metrics.ts";
import { writeAdminFile, writesAdminFile } from "../routes/admin/admin-file.ts";
import type { GatewayExecutor } from "../routes/gateway/executor.ts";
import { loadUnifiedApi } from "../routes/gateway/load.ts";
import { databaseCheck } from "../routes/health/readiness.ts";
import type { ElectrumPool } from "../upstreams/electrum/pool.ts";
import { VerifiedChainSet } from "../verify/chain/verified-chain-set.ts";
import { TargetPolicy } from "../webhooks/targets.ts";
import { Webhooks } from "../webhooks/webhooks.ts";
import { buildPools, type Upstreams } from "./pools.ts";
import { type RunningServer, startHttpServer } from "./server.ts";
import type { App } from "./services.ts";
import { type Closables, shutdown } from "./shutdown.ts";

export interface StartOptions extends Upstreams {
  databaseUrl?: string | undefined;
  /** PostgreSQL schema to use (tests); default is the connection's search_path. */
  databaseSchema?: string;
  logDestination?: DestinationStream;
  /** Tests run many gateways on one PGlite-less setup; they need no CLI hand-off file. */
  noAdminFile?: boolean;
  /** The store, already being opened (openStore): `npm start` opens it while devnet loads. */
  store?: Promise<Database>;
  /** A migrated PGlite snapshot (its file, or its bytes) to start a `memory://` store from (tests; see openPglite). */
  pgliteSnapshot?: string | Blob | undefined;
  /** REDIS_URL: the response cache's shared tier and the plans' counters (none: this process's memory only). */
  redisUrl?: string | undefined;
  /** Set in a worker of `blockgate start --workers N` (src/cluster/worker.ts). */
  worker?: WorkerRole;
}

/** What a gateway serving as one worker of several needs of its cluster. */
export interface WorkerRole {
  /** Its place among the workers, kept by its replacement: part of its ledger instance name. */
  slot: number;
  /** Lends its metrics to the cluster; returns what /metrics answers (every worker's). */
  shareMetrics(registry: Registry): () => Promise<string>;
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

/** The store the gateway uses, opened and migrated (or checked: `database.migrate`). */
export function openStore(
  config: Config,
  opts: Pick<StartOptions, "databaseUrl" | "databaseSchema" | "pgliteSnapshot">,
): Promise<Database> {
  return openDatabase({
    databaseUrl: opts.databaseUrl,
    pgliteDir: config.database.pgliteDir,
    pgliteSnapshot: opts.pgliteSnapshot,
    poolSize: config.database.poolSize,
    migrations: config.database.migrate ? "apply" : "check",
    ...(opts.databaseSchema ? { schema: opts.databaseSchema } : {}),
  });
}

/**
 * This gateway's name among processes sharing the database (src/billing/ledger/leases.ts): the config's,
 * else host and port. PGlite is one process, so any earlier incarnation on it is dead; port 0
 * means no stable identity (tests, benchmarks), so a random one that no restart will claim.
 */
function instanceName(config: Config, db: Database, opts: StartOptions): string {
  // Workers share host and port: each is its slot's, so a replaced worker voids its predecessor's
  // leases, never a sibling's.
  const slot = opts.worker ? `/worker-${opts.worker.slot}` : "";
  if (config.ledger.instance) return `${config.ledger.instance}${slot}`;
  const storeGiven = opts.store !== undefined;
  const dir = config.database.pgliteDir;
  if (db.kind === "pglite" && !storeGiven && !dir.startsWith("memory://")) return `pglite:${dir}`;
  if (db.kind === "pglite" || config.server.port === 0) return `ephemeral-${randomUUID()}`;
  return `${hostname()}:${config.server.port}${slot}`;
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
  const app = buildApp(config, opts, db, log);
  const sweeper = await startLedger(app);
  app.verifiedChains.start();
  app.events.start();
  await app.events.hearing(1_000);
  app.topupWatcher?.start();
  const webhooks = new Webhooks(config.webhooks, log);
  await webhooks.start(app);
  const http = await startHttpServer(app, config.server.host, config.server.port);
  const admin =
    db.kind === "pglite" && !opts.noAdminFile && writesAdminFile(config)
      ? writeAdminFile(config, http.url)
      : null;
  if (admin) app.adminSecret = admin.secret;
  const parts: Closables = {
    ...{ app, http, webhooks, events: app.events, credits: app.credits, db, sweeper, admin },
    topups: app.topupWatcher,
    ...{ authFailures: app.authFailures, txCache: app.txCache, limits: app.limits },
    pools: [
      ...app.nodes.values(),
      ...app.indexers.values(),
      ...app.electrum.values(),
      ...app.esplora.values(),
    ],
  };
  let closing: Promise<void> | undefined;
  return {
    app,
    http,
    url: http.url,
    webhooks,
    close: () => {
      closing ??= shutdown(parts);
      return closing;
    },
  };
}

/** The caches of upstream answers: in memory, with Redis as a shared tier when configured. */
interface Caches {
  txCache: TxStore;
  gatewayAnswers: GatewayAnswers;
  /** Drops what the caches hold of a block the best chain no longer has. */
  dropHeight(network: NetworkName, height: number): number;
}

function buildCaches(
  config: Config,
  guards: Map<NetworkName, ChainGuard>,
  metrics: Metrics,
  log: Logger,
  redisUrl: string | undefined,
): Caches {
  const txMemory = new TxCache(config.cache.bytesMax);
  const blockAnswers = new BlockAnswerCache(config.cache.blockBytesMax);
  const redis = redisUrl ? new RedisTier({ url: redisUrl, ...config.cache.redis }, log) : null;
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
  const dropHeight = (network: NetworkName, height: number) =>
    txMemory.dropHeight(network, height) +
    blockAnswers.dropHeight(network, height) +
    gatewayAnswers.dropHeight(network, height);
  return { txCache, gatewayAnswers, dropHeight };
}

function buildCredits(
  config: Config,
  db: Database,
  log: Logger,
  opts: StartOptions,
  callsInFlight: () => number,
): Credits {
  const { ledger } = config;
  return new Credits(db, log, {
    processId: randomUUID(),
    instance: instanceName(config, db, opts),
    ttlMs: ledger.holdTimeoutMs,
    leaseWindowMs: ledger.leaseWindowMs,
    leaseMinCalls: ledger.leaseMinCalls,
    leaseKeepFactor: ledger.leaseKeepFactor,
    leaseIdleMs: ledger.leaseIdleMs,
    batchRowsMax: ledger.batchRowsMax,
    pendingRowsMax: ledger.pendingRowsMax,
    settleGatherUs: ledger.settleGatherUs,
    callsInFlight,
  });
}

/** The unified API, loaded on first use and kept; a failed load is tried again next time. */
function lazyUnifiedApi(app: () => App): () => Promise<GatewayExecutor> {
  let loading: Promise<GatewayExecutor> | undefined;
  return () => {
    loading ??= loadUnifiedApi(app()).catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
}

/** Every service of one gateway, built: the composition root's one place that knows them all. */
function buildApp(config: Config, opts: StartOptions, db: Database, log: Logger): App {
  const metrics = new Metrics();
  let caches: Caches | undefined;
  // A block the best chain no longer has: what the caches hold of it goes. (The caches are built
  // just below, with the guards they ask; a reorganisation comes long after.)
  const pools = buildPools(config, opts, metrics, log, (network, height) => {
    const dropped = caches?.dropHeight(network, height) ?? 0;
    log.info({ network, height, dropped }, "reorganisation: cached block evicted");
  });
  caches = buildCaches(config, pools.guards, metrics, log, opts.redisUrl);
  const authFailures = new AuthFailures(db, (err) => log.warn({ err }, "writing failed logins"));
  const verifiedChains = new VerifiedChainSet(
    config.verification,
    config.networks,
    pools,
    metrics,
    log,
  );
  const events = new ChainEvents(
    db,
    eventBus(config, db, log, opts.redisUrl),
    pools.nodes,
    pools.electrum,
    config.events,
    log,
    (e) => metrics.chainEvents.inc({ network: e.network, kind: e.kind }),
    verifiedChains,
  );
  authFailures.start();
  const app: App = {
    config,
    db,
    log,
    load: new RecentLoad(),
    metrics,
    metricsText: opts.worker
      ? opts.worker.shareMetrics(metrics.registry)
      : () => metrics.registry.metrics(),
    events,
    verifiedChains,
    authFailures,
    credits: buildCredits(config, db, log, opts, () => app.load.inFlight()),
    limits: Limits.create(config, db, log, opts.redisUrl, () => metrics.capsFromLedger.inc()),
    authThrottle: new AuthThrottle({
      free: config.server.authFailuresFree,
      baseMs: config.server.authDelayBaseMs,
      maxMs: config.server.authDelayMaxMs,
      windowMs: config.server.authFailureWindowMs,
    }),
    tokens: new TokenCache(db, {
      onRevoked: (tokenId, dropped) => log.info({ tokenId, dropped }, "token revocation received"),
    }),
    nodes: pools.nodes,
    indexers: pools.indexers,
    electrum: pools.electrum,
    esplora: pools.esplora,
    txCache: caches.txCache,
    gatewayAnswers: caches.gatewayAnswers,
    parsedTxs: new ParsedTxs(config.cache.decodedBytesMax),
    webhookTargets: new TargetPolicy(config.webhooks.allowTargets),
    databaseCheck: databaseCheck(db),
    devnetProducers: new Map(),
    runCommand: (argv) => runDbCommand(db, argv, config),
    draining: false,
    electrumTlsPort: null,
    unifiedApi: lazyUnifiedApi(() => app),
    topupWatcher: topupWatcher(config, {
      db,
      electrum: pools.electrum,
      events,
      log,
      verified: config.billing.topups && verifiedChains.get(config.billing.topups.network),
    }),
  };
  endSharingAtNewTips(app);
  // The nodes' block claims are checked against each network's verified chain, where there is one.
  for (const [network, pool] of pools.nodes) pool.claims.against(app.verifiedChains.get(network));
  for (const [network, pool] of pools.electrum) pool.chain = app.verifiedChains.get(network);
  return app;
}

/** A new tip, announced or verified, ends the sharing of indexer trips that ended (decision 0058). */
function endSharingAtNewTips(app: App): void {
  app.events.observe((e) => app.indexers.get(e.network)?.newTip());
  for (const [network, pool] of app.indexers) {
    app.verifiedChains.onTip(network, () => pool.newTip());
  }
}

/**
 * The watcher of top-up invoices, when `billing.topups` is set: its descriptor is checked here, at
 * boot, and its network must have Electrum servers (addresses are watched through them).
 */
function topupWatcher(
  config: Config,
  s: Omit<ConstructorParameters<typeof TopupWatcher>[0], "electrum"> & {
    electrum: Map<NetworkName, ElectrumPool>;
  },
): TopupWatcher | null {
  const topups = config.billing.topups;
  if (!topups) return null;
  deriverFor(topups);
  const electrum = s.electrum.get(topups.network);
  if (!electrum) {
    throw new Error(
      `billing.topups.network: ${topups.network} has no Electrum servers (upstreams.electrum.${topups.network}), through which invoices are watched`,
    );
  }
  return new TopupWatcher({ ...s, electrum }, topups, config.events.leaderRetryMs);
}

/**
 * Leases and holds of this instance's dead predecessor come back at once; holds left by a process
 * that died between reserve and settle are voided, not charged, now and by a sweeper from then on.
 */
async function startLedger(app: App): Promise<NodeJS.Timeout> {
  const { credits, db, log, config } = app;
  const restarted = await credits.start();
  const voided = restarted.voided + (await voidStaleHolds(db, config.ledger.holdTimeoutMs));
  if (voided > 0) log.warn({ voided }, "voided reservations orphaned by an earlier crash");
  const sweeper = setInterval(() => {
    voidStaleHolds(db, config.ledger.holdTimeoutMs).catch((err: unknown) =>
      log.error({ err }, "hold sweeper failed"),
    );
  }, config.ledger.holdTimeoutMs);
  sweeper.unref();
  return sweeper;
}
