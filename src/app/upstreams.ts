import { ConfigError } from "../config/load.ts";
import type { BitcoinCoreUpstreamConfig, Config, NetworkName } from "../config/schema.ts";
import type { Devnet } from "../devnet/devnet.ts";
import type { IndexerUpstreamConfig } from "../upstreams/indexer/client.ts";

/** Networks whose configured node or graph upstreams include devnet. */
export function devnetNetworks(config: Config): NetworkName[] {
  return config.networks.filter(
    (n) =>
      config.upstreams.node[n]?.includes("devnet") ||
      config.upstreams.graph?.[n]?.includes("devnet"),
  );
}

/** Replaces "devnet" entries by the started devnet's URLs and reads passwords from the environment. */
export function resolveNodeUpstreams(
  config: Config,
  devnet: Devnet | null,
  env: NodeJS.ProcessEnv = process.env,
): Partial<Record<NetworkName, BitcoinCoreUpstreamConfig[]>> {
  const out: Partial<Record<NetworkName, BitcoinCoreUpstreamConfig[]>> = {};
  const problems: string[] = [];
  for (const network of config.networks) {
    out[network] = (config.upstreams.node[network] ?? []).map((entry, i) => {
      if (entry === "devnet") {
        const core = devnet?.cores.get(network);
        if (!core) throw new Error(`devnet has no node for ${network}`);
        return {
          url: core.url,
          user: core.user,
          password: core.password,
          timeoutMs: 10_000,
          connections: 16,
        };
      }
      if (entry.passwordEnv) {
        const password = env[entry.passwordEnv];
        if (password === undefined) {
          problems.push(
            `upstreams.node.${network}[${i}].passwordEnv: ${entry.passwordEnv} is not set`,
          );
        }
        return { ...entry, password };
      }
      return entry;
    });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}

/** Replaces "devnet" entries by devnet's indexers and reads admin secrets from the environment. */
export function resolveGraphUpstreams(
  config: Config,
  devnet: Devnet | null,
  env: NodeJS.ProcessEnv = process.env,
): Partial<Record<NetworkName, IndexerUpstreamConfig[]>> {
  const out: Partial<Record<NetworkName, IndexerUpstreamConfig[]>> = {};
  const problems: string[] = [];
  for (const network of config.networks) {
    out[network] = (config.upstreams.graph?.[network] ?? []).map((entry, i) => {
      if (entry === "devnet") {
        const indexer = devnet?.indexers.get(network);
        if (!indexer) throw new Error(`devnet has no indexer for ${network}`);
        return {
          url: indexer.url,
          adminSecret: indexer.secret,
          timeoutMs: 10_000,
          connections: 16,
        };
      }
      let adminSecret: string | undefined;
      if (entry.adminSecretEnv) {
        adminSecret = env[entry.adminSecretEnv];
        if (adminSecret === undefined) {
          problems.push(
            `upstreams.graph.${network}[${i}].adminSecretEnv: ${entry.adminSecretEnv} is not set`,
          );
        }
      }
      return {
        url: entry.url,
        adminSecret,
        timeoutMs: entry.timeoutMs,
        connections: entry.connections,
      };
    });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}
