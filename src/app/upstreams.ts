import { ConfigError } from "../config/load.ts";
import {
  type BitcoinCoreUpstreamConfig,
  CORE_COALESCE_CALLS_MAX_DEFAULT,
  type Config,
  type ElectrumUpstreamConfig,
  type NetworkName,
} from "../config/schema.ts";
import type { Devnet } from "../devnet/devnet.ts";
import type { EsploraUpstreamConfig } from "../upstreams/esplora/client.ts";
import type { IndexerUpstreamConfig } from "../upstreams/indexer/client.ts";

/** Networks whose configured node, graph, Electrum or Esplora upstreams include devnet. */
export function devnetNetworks(config: Config): NetworkName[] {
  return config.networks.filter(
    (n) =>
      config.upstreams.node?.[n]?.includes("devnet") ||
      config.upstreams.graph?.[n]?.includes("devnet") ||
      config.upstreams.electrum?.[n]?.includes("devnet") ||
      config.upstreams.esplora?.[n]?.includes("devnet"),
  );
}

/** Reads a secret named in config from the environment; a missing one is a problem at its path. */
type FromEnv = (field: string, name: string | undefined) => string | undefined;

/**
 * Resolves one kind of upstream for every network: "devnet" entries become the started devnet's
 * servers, the others get their secrets from the environment. All missing variables are reported
 * together, each with its path.
 */
function resolveEach<E, R>(
  config: Config,
  kind: "node" | "graph" | "electrum" | "esplora",
  env: NodeJS.ProcessEnv,
  entries: (network: NetworkName) => readonly ("devnet" | E)[],
  devnetEntry: (network: NetworkName) => R,
  realEntry: (entry: E, fromEnv: FromEnv) => R,
): Partial<Record<NetworkName, R[]>> {
  const out: Partial<Record<NetworkName, R[]>> = {};
  const problems: string[] = [];
  for (const network of config.networks) {
    out[network] = entries(network).map((entry, i) => {
      if (entry === "devnet") return devnetEntry(network);
      return realEntry(entry, (field, name) => {
        if (name === undefined) return undefined;
        const value = env[name];
        if (value === undefined) {
          problems.push(`upstreams.${kind}.${network}[${i}].${field}: ${name} is not set`);
        }
        return value;
      });
    });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}

/** Replaces "devnet" Electrum entries by the started devnet's servers. */
export function resolveElectrumUpstreams(
  config: Config,
  devnet: Devnet | null,
  /** Settings for the devnet entries (tests shorten timeouts and intervals). */
  devnetSettings: Partial<Omit<ElectrumUpstreamConfig, "url">> = {},
): Partial<Record<NetworkName, ElectrumUpstreamConfig[]>> {
  return resolveEach<ElectrumUpstreamConfig, ElectrumUpstreamConfig>(
    config,
    "electrum",
    process.env,
    (network) => config.upstreams.electrum?.[network] ?? [],
    (network) => {
      const server = devnet?.electrum.get(network);
      if (!server) throw new Error(`devnet has no Electrum server for ${network}`);
      return {
        url: server.url,
        timeoutMs: 10_000,
        connectTimeoutMs: 5_000,
        connections: 2,
        inFlightMax: 100,
        lineBytesMax: 16 * 1024 * 1024,
        pingIntervalMs: 60_000,
        reconnectMaxMs: 2_000,
        tlsVerify: true,
        ...devnetSettings,
      };
    },
    (entry) => entry,
  );
}

/** Replaces "devnet" entries by the started devnet's URLs and reads passwords from the environment. */
export function resolveNodeUpstreams(
  config: Config,
  devnet: Devnet | null,
  env: NodeJS.ProcessEnv = process.env,
  /** Settings for the devnet entries (tests turn combining off or shorten the timeout). */
  devnetSettings: Partial<Omit<BitcoinCoreUpstreamConfig, "url" | "user" | "password">> = {},
): Partial<Record<NetworkName, BitcoinCoreUpstreamConfig[]>> {
  return resolveEach<BitcoinCoreUpstreamConfig, BitcoinCoreUpstreamConfig>(
    config,
    "node",
    env,
    (network) => config.upstreams.node?.[network] ?? [],
    (network) => {
      const core = devnet?.cores.get(network);
      if (!core) throw new Error(`devnet has no node for ${network}`);
      return {
        url: core.url,
        user: core.user,
        password: core.password,
        timeoutMs: 10_000,
        connections: 16,
        coalesceCallsMax: CORE_COALESCE_CALLS_MAX_DEFAULT,
        ...devnetSettings,
      };
    },
    (entry, fromEnv) =>
      entry.passwordEnv ? { ...entry, password: fromEnv("passwordEnv", entry.passwordEnv) } : entry,
  );
}

/** Replaces "devnet" entries by devnet's indexers and reads admin secrets from the environment. */
export function resolveGraphUpstreams(
  config: Config,
  devnet: Devnet | null,
  env: NodeJS.ProcessEnv = process.env,
): Partial<Record<NetworkName, IndexerUpstreamConfig[]>> {
  return resolveEach(
    config,
    "graph",
    env,
    (network) => config.upstreams.graph?.[network] ?? [],
    (network) => {
      const indexer = devnet?.indexers.get(network);
      if (!indexer) throw new Error(`devnet has no indexer for ${network}`);
      return { url: indexer.url, adminSecret: indexer.secret, timeoutMs: 10_000, connections: 16 };
    },
    (entry, fromEnv) => ({
      url: entry.url,
      adminSecret: fromEnv("adminSecretEnv", entry.adminSecretEnv),
      timeoutMs: entry.timeoutMs,
      connections: entry.connections,
    }),
  );
}

/** Replaces "devnet" Esplora entries by devnet's Esplora servers. */
export function resolveEsploraUpstreams(
  config: Config,
  devnet: Devnet | null,
): Partial<Record<NetworkName, EsploraUpstreamConfig[]>> {
  return resolveEach<EsploraUpstreamConfig, EsploraUpstreamConfig>(
    config,
    "esplora",
    process.env,
    (network) => config.upstreams.esplora?.[network] ?? [],
    (network) => {
      const server = devnet?.esplora.get(network);
      if (!server) throw new Error(`devnet has no Esplora server for ${network}`);
      return { url: server.url, timeoutMs: 10_000, connections: 16 };
    },
    (entry) => entry,
  );
}
