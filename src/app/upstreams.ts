import { ConfigError } from "../config/load.ts";
import type {
  BitcoinCoreUpstreamConfig,
  Config,
  ElectrumUpstreamConfig,
  NetworkName,
} from "../config/schema.ts";
import type { Devnet } from "../devnet/devnet.ts";

/** Networks whose configured node or Electrum upstreams include devnet. */
export function devnetNetworks(config: Config): NetworkName[] {
  return config.networks.filter(
    (n) =>
      config.upstreams.node[n]?.includes("devnet") ||
      config.upstreams.electrum?.[n]?.includes("devnet"),
  );
}

/** Replaces "devnet" Electrum entries by the started devnet's servers. */
export function resolveElectrumUpstreams(
  config: Config,
  devnet: Devnet | null,
  /** Settings for the devnet entries (tests shorten timeouts and intervals). */
  devnetSettings: Partial<Omit<ElectrumUpstreamConfig, "url">> = {},
): Partial<Record<NetworkName, ElectrumUpstreamConfig[]>> {
  const out: Partial<Record<NetworkName, ElectrumUpstreamConfig[]>> = {};
  for (const network of config.networks) {
    out[network] = (config.upstreams.electrum?.[network] ?? []).map((entry) => {
      if (entry !== "devnet") return entry;
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
    });
  }
  return out;
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
