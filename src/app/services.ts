import type { AuthThrottle } from "../access/auth-throttle.ts";
import type { AuthServices } from "../access/authenticate.ts";
import type { TokenCache } from "../access/token-cache.ts";
import type { MeterServices } from "../billing/metering/context.ts";
import type { TopupWatcher } from "../billing/topups/watcher.ts";
import type { GatewayAnswers } from "../cache/gateway-answers.ts";
import type { ParsedTxs } from "../cache/parsed-txs.ts";
import type { TxStore } from "../cache/tx-store.ts";
import type { NetworkName } from "../config/schema.ts";
import type { ChainEvents } from "../events/chain-events.ts";
import type { RecentLoad } from "../http/recent-load.ts";
import type { DevnetProducers } from "../routes/admin/devnet-control.ts";
import type { AdminServices } from "../routes/admin/routes.ts";
import type { ElectrumServices } from "../routes/electrum/services.ts";
import type { EsploraServices } from "../routes/esplora/services.ts";
import type { GatewayExecutor } from "../routes/gateway/executor.ts";
import type { GatewayServices } from "../routes/gateway/services.ts";
import type { GraphServices } from "../routes/graph/services.ts";
import type { HealthServices } from "../routes/health/readiness.ts";
import type { NodeServices } from "../routes/node/services.ts";
import type { BitcoinCorePool } from "../upstreams/bitcoin-core/pool.ts";
import type { ElectrumPool } from "../upstreams/electrum/pool.ts";
import type { EsploraPool } from "../upstreams/esplora/pool.ts";
import type { IndexerPool } from "../upstreams/indexer/pool.ts";
import type { CachedCheck } from "../util/cached-check.ts";
import type { VerifiedChainSet } from "../verify/chain/verified-chain-set.ts";
import type { WebhookServices } from "../webhooks/services.ts";
import type { TargetPolicy } from "../webhooks/targets.ts";

/**
 * Every long-lived part of a running gateway, built once in app.ts. Only the composition root
 * (this folder and main.ts) knows it whole: each route family, the pipeline and the webhooks
 * declare the services they use, and this one object is each of them (the `extends` clauses make
 * the compiler check that it is).
 */
export interface App
  extends MeterServices,
    AuthServices,
    NodeServices,
    ElectrumServices,
    EsploraServices,
    GraphServices,
    GatewayServices,
    WebhookServices,
    HealthServices,
    AdminServices {
  tokens: TokenCache;
  authThrottle: AuthThrottle;
  /** How many authenticated backend requests clients keep in flight, recently (the routes tell it). */
  load: RecentLoad;
  nodes: Map<NetworkName, BitcoinCorePool>;
  indexers: Map<NetworkName, IndexerPool>;
  electrum: Map<NetworkName, ElectrumPool>;
  esplora: Map<NetworkName, EsploraPool>;
  events: ChainEvents;
  /** Each network's verified header chain (`verifiedChains.get(network)`), where verification is on. */
  verifiedChains: VerifiedChainSet;
  txCache: TxStore;
  gatewayAnswers: GatewayAnswers;
  parsedTxs: ParsedTxs;
  webhookTargets: TargetPolicy;
  databaseCheck: CachedCheck;
  devnetProducers: DevnetProducers;
  /** Watches top-up invoices and credits them (null without `billing.topups`). */
  topupWatcher: TopupWatcher | null;
  /** Set when shutdown begins: /readyz answers 503 and every answer closes its connection. */
  draining: boolean;
  unifiedApi(): Promise<GatewayExecutor>;
}
