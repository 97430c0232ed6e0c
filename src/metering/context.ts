import type { Logger } from "pino";
import type { TokenCache } from "../auth/token-cache.ts";
import type { TokenOwner } from "../auth/tokens.ts";
import type { GatewayAnswers } from "../cache/gateway-answers.ts";
import type { ParsedTxs } from "../cache/parsed-txs.ts";
import type { TxStore } from "../cache/tx-store.ts";
import type { Config, NetworkName } from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import type { ChainEvents } from "../events/chain-events.ts";
import type { AuthThrottle } from "../limits/auth-throttle.ts";
import type { Limits } from "../limits/limits.ts";
import type { Metrics } from "../log/metrics.ts";
import type { BitcoinCorePool } from "../upstreams/bitcoin-core/pool.ts";
import type { ElectrumPool } from "../upstreams/electrum/pool.ts";
import type { ElectrumTxSource } from "../upstreams/electrum/transaction.ts";
import type { IndexerPool } from "../upstreams/indexer/pool.ts";
import type { CachedCheck } from "../util/cached-check.ts";
import type { TargetPolicy } from "../webhooks/targets.ts";
import type { AuthFailures } from "./auth-failures.ts";
import type { Credits } from "./credits.ts";

/** Long-lived parts of a running gateway, built once in app.ts. */
export interface App {
  config: Config;
  db: Database;
  /** Token hash → owner, dropped on revocation (every process is told). */
  tokens: TokenCache;
  /** Failed authentications per client address: growing delays, then a lock-out. */
  authThrottle: AuthThrottle;
  /** Failed authentications, written aggregated per source and minute. */
  authFailures: AuthFailures;
  /** Plans: request rates, calls in flight and credit caps (src/limits/). */
  limits: Limits;
  /** Credit leases, per-call holds and the settle queue: every reserve and settle goes here. */
  credits: Credits;
  log: Logger;
  nodes: Map<NetworkName, BitcoinCorePool>;
  indexers: Map<NetworkName, IndexerPool>;
  metrics: Metrics;
  electrum: Map<NetworkName, ElectrumPool>;
  /** Blocks connected and disconnected, detected by the leading process, heard in every one. */
  events: ChainEvents;
  /**
   * The finality-aware response cache: confirmed transactions in memory and Redis, each network's
   * chain followed for reorganisations (src/cache/).
   */
  txCache: TxStore;
  /** The unified API's whole answers about final blocks (src/cache/gateway-answers.ts). */
  gatewayAnswers: GatewayAnswers;
  /** Transactions of the node's answers, decoded once (src/cache/parsed-txs.ts). */
  parsedTxs: ParsedTxs;
  /** Where webhook endpoints may point: checked at registration and on every connection. */
  webhookTargets: TargetPolicy;
  /** Set while the gateway holds a PGlite store: the CLI's commands come in at /admin/cli. */
  adminSecret?: string;
  /** /readyz's database check (bounded, cached). */
  databaseCheck: CachedCheck;
  /** Set when shutdown begins: /readyz answers 503 and every answer closes its connection. */
  draining: boolean;
}

export type BackendKind = "gateway" | "node" | "electrum" | "graph";

/**
 * Per-request state; travels as an argument, never through module globals. The one request
 * context: every route gets it, the metering pipeline takes it, and the unified API's context
 * extends it (src/graphql/context.ts).
 */
export interface CallContext {
  app: App;
  requestId: string;
  owner: TokenOwner;
  backend: BackendKind;
  /** The literal path segment, as written in the audit log. */
  backendSegment: string;
  network: NetworkName;
  startedAt: number;
  /**
   * The request's Idempotency-Key (src/metering/idempotency.ts). `rerun`: its first attempt was
   * charged but its answer was lost, so this one runs free of charge.
   */
  idempotency?: { key: string; rerun: boolean };
  /**
   * The Electrum socket session (WebSocket or TLS) a call came on: what its calls subscribe to is
   * pushed to it. Absent for an HTTP request, which has nobody to notify.
   */
  electrum?: ElectrumSubscriptions;
  /**
   * Commits the call's charge (`settle`) unless the gateway's drain has cut the call
   * (src/http/in-flight.ts): then it rejects and nothing is charged. Absent: charged as usual.
   */
  charge?<T>(settle: () => Promise<T>): Promise<T>;
}

/** An Electrum socket session's subscriptions, as its calls change them (src/mirror/electrum-push.ts). */
export interface ElectrumSubscriptions {
  /** blockchain.headers.subscribe was answered: the tip is pushed as it moves. */
  subscribeHeaders(): void;
  /** Whether the session may hold this script hash: one it holds, or one more within its limit. */
  canSubscribe(scripthash: string): boolean;
  /**
   * Takes a place for the script hash before its status is read, so the calls of one batch cannot
   * pass the limit together: `held` (already subscribed), `new` (a place taken; give it back with
   * unsubscribeScripthash if the status cannot be read) or `full`.
   */
  claimScripthash(scripthash: string): "held" | "new" | "full";
  /** blockchain.scripthash.subscribe was answered this status: pushed again when it changes. */
  subscribeScripthash(scripthash: string, status: string | null): void;
  /** Whether the session held the script hash (ElectrumX's answer to unsubscribe). */
  unsubscribeScripthash(scripthash: string): boolean;
}

/** What the Electrum transaction service needs of a running gateway, for one network. */
export function electrumTxSource(app: App, network: NetworkName): ElectrumTxSource {
  return {
    network,
    pool: app.electrum.get(network),
    cache: app.txCache,
    minConfirmations: app.config.cache.minConfirmations,
  };
}
