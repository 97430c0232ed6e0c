import { ConfigError } from "../config/load.ts";
import type { BitcoinCoreUpstreamConfig, Config, NetworkName } from "../config/schema.ts";
import type { Devnet } from "../devnet/devnet.ts";

/** Networks whose configured node upstreams include devnet. */
export function devnetNetworks(config: Config): NetworkName[] {
  return config.networks.filter((n) => config.upstreams.node[n]?.includes("devnet"));
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
