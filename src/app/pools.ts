import type { Logger } from "pino";
import { ChainGuard } from "../cache/chain-guard.ts";
import type {
  BitcoinCoreUpstreamConfig,
  Config,
  ElectrumUpstreamConfig,
  NetworkName,
} from "../config/schema.ts";
import type { Metrics } from "../log/metrics.ts";
import { BitcoinCorePool } from "../upstreams/bitcoin-core/pool.ts";
import { ElectrumPool } from "../upstreams/electrum/pool.ts";
import type { EsploraUpstreamConfig } from "../upstreams/esplora/client.ts";
import { EsploraPool } from "../upstreams/esplora/pool.ts";
import type { FailoverPolicy } from "../upstreams/failover.ts";
import type { IndexerUpstreamConfig } from "../upstreams/indexer/client.ts";
import { IndexerPool } from "../upstreams/indexer/pool.ts";

/** The upstream pools of every network, and the chain guard of each network with a full node. */
export interface Pools {
  nodes: Map<NetworkName, BitcoinCorePool>;
  electrum: Map<NetworkName, ElectrumPool>;
  indexers: Map<NetworkName, IndexerPool>;
  esplora: Map<NetworkName, EsploraPool>;
  guards: Map<NetworkName, ChainGuard>;
}

/** Each network's upstreams, resolved ("devnet" entries already replaced by URLs). */
export interface Upstreams {
  nodeUpstreams: Partial<Record<NetworkName, BitcoinCoreUpstreamConfig[]>>;
  /** None for a network: no graph route there. */
  graphUpstreams?: Partial<Record<NetworkName, IndexerUpstreamConfig[]>>;
  /** None for a network: its Electrum route answers 502. */
  electrumUpstreams?: Partial<Record<NetworkName, ElectrumUpstreamConfig[]>>;
  /** None for a network: its Esplora route answers 503. */
  esploraUpstreams?: Partial<Record<NetworkName, EsploraUpstreamConfig[]>>;
}

/**
 * Builds each network's pools from its resolved upstreams. `onStale` hears of a block the best
 * chain no longer has (a chain guard's finding), for the caches to drop what they hold of it.
 */
export function buildPools(
  config: Config,
  upstreams: Upstreams,
  metrics: Metrics,
  log: Logger,
  onStale: (network: NetworkName, height: number) => void,
): Pools {
  const pools: Pools = {
    nodes: new Map(),
    electrum: new Map(),
    indexers: new Map(),
    esplora: new Map(),
    guards: new Map(),
  };
  // One policy for every pool; only the attempt timeout differs by backend.
  const policy = (backend: "node" | "electrum" | "graph" | "esplora"): FailoverPolicy => ({
    ...config.failover,
    attemptTimeoutMs: config.failover.attemptTimeoutMs[backend],
  });
  for (const network of config.networks) {
    const nodes = upstreams.nodeUpstreams[network];
    if (nodes && nodes.length > 0) {
      const pool = new BitcoinCorePool(nodes, {
        policy: policy("node"),
        observer: metrics.pool("node", network),
        onCombined: (requests, calls) => metrics.coalesced(network, requests, calls),
        onShared: () => metrics.shared("node", network),
        responseBytesMax: config.server.responseBytesMax,
      });
      pools.nodes.set(network, pool);
      const guard = new ChainGuard(pool, config.cache.tipTtlMs, (h) => onStale(network, h));
      pools.guards.set(network, guard);
    }
    const servers = upstreams.electrumUpstreams?.[network];
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
      pools.electrum.set(network, pool);
    }
    const indexers = upstreams.graphUpstreams?.[network];
    if (indexers && indexers.length > 0) {
      const pool = new IndexerPool(indexers, {
        policy: policy("graph"),
        observer: metrics.pool("graph", network),
        onShared: () => metrics.shared("graph", network),
        responseBytesMax: config.server.responseBytesMax,
        sharedAfterTripMs: config.graphql.sharedAfterTripMs,
      });
      pools.indexers.set(network, pool);
    }
    const esplora = upstreams.esploraUpstreams?.[network];
    if (esplora && esplora.length > 0) {
      const pool = new EsploraPool(esplora, {
        policy: policy("esplora"),
        observer: metrics.pool("esplora", network),
        onShared: () => metrics.shared("esplora", network),
        responseBytesMax: config.server.responseBytesMax,
        answersBytesMax: config.cache.esploraBytesMax,
        onLookup: (hit) =>
          metrics.cacheLookups.inc({ network, tier: "memory", result: hit ? "hit" : "miss" }),
      });
      pools.esplora.set(network, pool);
    }
  }
  return pools;
}
