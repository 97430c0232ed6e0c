import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { type Config, type ConfigInput, configSchema } from "./schema.ts";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
  }
}

/** `upstreams.node.mainnet[0].url` — the form operators search their file for. */
function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "(root)" : out;
}

function describe(issue: z.core.$ZodIssue, prefix: readonly PropertyKey[] = []): string {
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    // Name what the closest alternative lacks (`url is required`), not just "Invalid input":
    // the branch whose complaints reach deepest into the value is the one the author meant.
    const depth = (branch: z.core.$ZodIssue[]) => Math.max(...branch.map((i) => i.path.length));
    const best = issue.errors.reduce((a, b) => (depth(b) > depth(a) ? b : a));
    if (depth(best) > 0)
      return best.map((i) => describe(i, [...prefix, ...issue.path])).join("\n  ");
  }
  const path = formatPath([...prefix, ...issue.path]);
  if (issue.code === "unrecognized_keys") {
    return issue.keys
      .map((k) => `${path === "(root)" ? k : `${path}.${k}`} is not a known key`)
      .join("\n  ");
  }
  if (issue.code === "invalid_type" && issue.input === undefined) return `${path} is required`;
  return `${path}: ${issue.message}`;
}

/** Validates a parsed config object; every error names its path. */
export function parseConfig(input: unknown): Config {
  const result = configSchema.safeParse(input ?? {});
  if (!result.success) {
    throw new ConfigError(result.error.issues.flatMap((i) => describe(i).split("\n  ")));
  }
  const config = result.data;
  const problems: string[] = [];
  // Each upstream kind left out means devnet for every network served; given, it may only name
  // networks that are served. A network must have a node; without an Electrum server or an
  // indexer it simply has no such route.
  for (const kind of ["node", "electrum", "graph", "esplora"] as const) {
    const given = config.upstreams[kind];
    if (!given) {
      config.upstreams[kind] = Object.fromEntries(
        config.networks.map((n) => [n, ["devnet" as const]]),
      );
      continue;
    }
    for (const network of Object.keys(given)) {
      if (!config.networks.includes(network as Config["networks"][number])) {
        problems.push(`upstreams.${kind}.${network} names a network not in networks`);
      }
    }
  }
  for (const network of config.networks) {
    // A network needs a full node or Electrum servers: with Electrum alone, its chain is followed
    // through their headers, and the node route and Core-backed fields answer UPSTREAM_UNAVAILABLE.
    if (!config.upstreams.node?.[network] && !config.upstreams.electrum?.[network]) {
      problems.push(`upstreams.node.${network} or upstreams.electrum.${network} is required`);
    }
  }
  if (config.graph.listSizeDefault > config.graph.pageSizeMax) {
    problems.push("graph.listSizeDefault must not exceed graph.pageSizeMax");
  }
  if (config.server.headersTimeoutMs > config.server.requestTimeoutMs) {
    // node refuses it too: the headers are part of the request.
    problems.push("server.headersTimeoutMs must not exceed server.requestTimeoutMs");
  }
  const longest = longestUpstreamTimeout(config);
  if (config.ledger.holdTimeoutMs < longest.ms) {
    problems.push(
      `ledger.holdTimeoutMs (${config.ledger.holdTimeoutMs}) must be at least the longest upstream timeout, ${longest.where} (${longest.ms})`,
    );
  }
  const segments = Object.values(config.backends);
  if (new Set(segments).size !== segments.length) problems.push("backends: segments must differ");
  const fallback = config.limits.defaultPlan;
  if (config.plans.default) {
    // `blockgate account plan <account> default` means "no plan of its own".
    problems.push('plans: "default" is reserved (it names the default plan); choose another name');
  }
  if (fallback !== null && !config.plans[fallback]) {
    problems.push(`limits.defaultPlan: no plan named "${fallback}" in plans`);
  }
  const topups = config.billing.topups;
  if (topups && topups.satsPer1000Credits === undefined && topups.packages.length === 0) {
    problems.push("billing.topups: satsPer1000Credits or packages is required (the price)");
  }
  if (topups && !config.networks.includes(topups.network)) {
    problems.push(`billing.topups.network: ${topups.network} is not in networks`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** The longest a call may wait on its upstreams, and the setting that says so. */
function longestUpstreamTimeout(config: Config): { ms: number; where: string } {
  let longest = { ms: config.graph.queryTimeoutMs, where: "graph.queryTimeoutMs" };
  for (const kind of ["node", "electrum", "graph", "esplora"] as const) {
    for (const [network, list] of Object.entries(config.upstreams[kind] ?? {})) {
      (list as readonly unknown[]).forEach((u, i) => {
        const ms =
          typeof u === "object" && u !== null ? (u as { timeoutMs?: number }).timeoutMs : 0;
        if (ms !== undefined && ms > longest.ms) {
          longest = { ms, where: `upstreams.${kind}.${network}[${i}].timeoutMs` };
        }
      });
    }
  }
  return longest;
}

/** A config file's content as parsed YAML (JSON is YAML); unreadable or unparsable: ConfigError. */
export function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError([`cannot read ${path}: ${(err as Error).message}`]);
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(text) ?? {};
  } catch (err) {
    throw new ConfigError([`${path} is not valid YAML: ${(err as Error).message}`]);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(["(root): expected a mapping"]);
  }
  return parsed as Record<string, unknown>;
}

/** Reads YAML or JSON (JSON is YAML); no path means every default (devnet upstreams). */
export function loadConfig(path: string | undefined, overrides: ConfigInput = {}): Config {
  const fromFile = path ? readConfigFile(path) : {};
  return parseConfig({ ...fromFile, ...overrides });
}
