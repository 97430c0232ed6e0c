// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  configSchema
} from "./chunk-M6ZRZKCO.js";

// src/config/load.ts
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
var ConfigError = class extends Error {
  constructor(problems) {
    super(`invalid configuration:
  ${problems.join("\n  ")}`);
    this.problems = problems;
    this.name = "ConfigError";
  }
  problems;
};
function formatPath(path) {
  let out = "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out === "" ? String(part) : `.${String(part)}`;
  }
  return out === "" ? "(root)" : out;
}
function describe(issue, prefix = []) {
  if (issue.code === "invalid_union" && issue.errors.length > 0) {
    const depth = (branch) => Math.max(...branch.map((i) => i.path.length));
    const best = issue.errors.reduce((a, b) => depth(b) > depth(a) ? b : a);
    if (depth(best) > 0)
      return best.map((i) => describe(i, [...prefix, ...issue.path])).join("\n  ");
  }
  const path = formatPath([...prefix, ...issue.path]);
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((k) => `${path === "(root)" ? k : `${path}.${k}`} is not a known key`).join("\n  ");
  }
  if (issue.code === "invalid_type" && issue.input === void 0) return `${path} is required`;
  return `${path}: ${issue.message}`;
}
function parseConfig(input) {
  const result = configSchema.safeParse(input ?? {});
  if (!result.success) {
    throw new ConfigError(result.error.issues.flatMap((i) => describe(i).split("\n  ")));
  }
  const config = result.data;
  const problems = [];
  for (const kind of ["node", "electrum", "graph"]) {
    const given = config.upstreams[kind];
    if (!given) {
      config.upstreams[kind] = Object.fromEntries(
        config.networks.map((n) => [n, ["devnet"]])
      );
      continue;
    }
    for (const network of Object.keys(given)) {
      if (!config.networks.includes(network)) {
        problems.push(`upstreams.${kind}.${network} names a network not in networks`);
      }
    }
  }
  for (const network of config.networks) {
    if (!config.upstreams.node?.[network] && !config.upstreams.electrum?.[network]) {
      problems.push(`upstreams.node.${network} or upstreams.electrum.${network} is required`);
    }
  }
  if (config.graph.listSizeDefault > config.graph.pageSizeMax) {
    problems.push("graph.listSizeDefault must not exceed graph.pageSizeMax");
  }
  if (config.server.headersTimeoutMs > config.server.requestTimeoutMs) {
    problems.push("server.headersTimeoutMs must not exceed server.requestTimeoutMs");
  }
  const longest = longestUpstreamTimeout(config);
  if (config.ledger.holdTimeoutMs < longest.ms) {
    problems.push(
      `ledger.holdTimeoutMs (${config.ledger.holdTimeoutMs}) must be at least the longest upstream timeout, ${longest.where} (${longest.ms})`
    );
  }
  const segments = Object.values(config.backends);
  if (new Set(segments).size !== segments.length) problems.push("backends: segments must differ");
  const fallback = config.limits.defaultPlan;
  if (config.plans.default) {
    problems.push('plans: "default" is reserved (it names the default plan); choose another name');
  }
  if (fallback !== null && !config.plans[fallback]) {
    problems.push(`limits.defaultPlan: no plan named "${fallback}" in plans`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
function longestUpstreamTimeout(config) {
  let longest = { ms: config.graph.queryTimeoutMs, where: "graph.queryTimeoutMs" };
  for (const kind of ["node", "electrum", "graph"]) {
    for (const [network, list] of Object.entries(config.upstreams[kind] ?? {})) {
      list.forEach((u, i) => {
        const ms = typeof u === "object" && u !== null ? u.timeoutMs : 0;
        if (ms !== void 0 && ms > longest.ms) {
          longest = { ms, where: `upstreams.${kind}.${network}[${i}].timeoutMs` };
        }
      });
    }
  }
  return longest;
}
function readConfigFile(path) {
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError([`cannot read ${path}: ${err.message}`]);
  }
  let parsed;
  try {
    parsed = parseYaml(text) ?? {};
  } catch (err) {
    throw new ConfigError([`${path} is not valid YAML: ${err.message}`]);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(["(root): expected a mapping"]);
  }
  return parsed;
}
function loadConfig(path, overrides = {}) {
  const fromFile = path ? readConfigFile(path) : {};
  return parseConfig({ ...fromFile, ...overrides });
}

export {
  ConfigError,
  parseConfig,
  readConfigFile,
  loadConfig
};
