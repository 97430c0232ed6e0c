// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  ConfigError,
  parseConfig,
  readConfigFile
} from "./chunk-PCU6IYAE.js";
import "./chunk-M6ZRZKCO.js";

// src/config/check.ts
import { accessSync, constants, statSync } from "node:fs";
var OUTSIDE = {
  node: { env: ["passwordEnv"], files: ["cookieFile"] },
  graph: { env: ["adminSecretEnv"], files: [] },
  electrum: { env: [], files: ["caFile"] }
};
function isRecord(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
function checkConfigFile(path, env) {
  const errors = [];
  const warnings = [];
  let raw;
  try {
    raw = readConfigFile(path);
  } catch (err) {
    if (err instanceof ConfigError) return { errors: err.problems, warnings, config: null };
    throw err;
  }
  let config = null;
  try {
    config = parseConfig(raw);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    errors.push(...err.problems);
  }
  const upstreams = isRecord(raw.upstreams) ? raw.upstreams : {};
  for (const kind of ["node", "electrum", "graph"]) {
    const perNetwork = upstreams[kind];
    if (!isRecord(perNetwork)) continue;
    for (const [network, entries] of Object.entries(perNetwork)) {
      if (!Array.isArray(entries)) continue;
      entries.forEach((entry, i) => {
        if (!isRecord(entry)) return;
        const at = `upstreams.${kind}.${network}[${i}]`;
        for (const field of OUTSIDE[kind].env) {
          const name = entry[field];
          if (typeof name === "string" && env[name] === void 0) {
            warnings.push(
              `${at}.${field}: ${name} is not set (the gateway will not start without it)`
            );
          }
        }
        for (const field of OUTSIDE[kind].files) checkFile(entry, field, at, errors, warnings);
      });
    }
  }
  const tls = isRecord(raw.electrum) && isRecord(raw.electrum.tls) ? raw.electrum.tls : null;
  if (tls) {
    for (const field of ["certFile", "keyFile"]) {
      checkFile(tls, field, "electrum.tls", errors, warnings);
    }
  }
  return { errors, warnings, config: errors.length === 0 ? config : null };
}
function checkFile(entry, field, at, errors, warnings) {
  const file = entry[field];
  if (typeof file !== "string" || file === "") return;
  const problem = fileProblem(file);
  if (problem === "missing") errors.push(`${at}.${field}: ${file} does not exist`);
  else if (problem === "not a file") errors.push(`${at}.${field}: ${file} is not a file`);
  else if (problem === "unreadable") {
    warnings.push(`${at}.${field}: ${file} is not readable by this user`);
  }
}
function fileProblem(file) {
  let stat;
  try {
    stat = statSync(file, { throwIfNoEntry: false });
  } catch {
    return "unreadable";
  }
  if (stat === void 0) return "missing";
  if (!stat.isFile()) return "not a file";
  try {
    accessSync(file, constants.R_OK);
  } catch {
    return "unreadable";
  }
  return null;
}

// src/cli/config-check.ts
var CONFIG_USAGE = "usage: blockgate config check [FILE]   (FILE defaults to $BLOCKGATE_CONFIG)";
var plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
function summary(config, env) {
  const lines = [
    `networks: ${config.networks.join(", ")}`,
    env.DATABASE_URL ? "store: PostgreSQL via DATABASE_URL" : `store: PGlite in ${config.database.pgliteDir} (DATABASE_URL is not set)`,
    "upstreams:"
  ];
  const rows = [];
  for (const kind of ["node", "electrum", "graph"]) {
    for (const network of config.networks) {
      const entries = config.upstreams[kind]?.[network] ?? [];
      const devnet = entries.filter((e) => e === "devnet").length;
      const route = `/${config.backends[kind]}/${network}`;
      const count = entries.length === 0 ? "none (no such route)" : `${plural(entries.length, "upstream")}${devnet === 0 ? "" : devnet === entries.length ? " (devnet)" : ` (${devnet} devnet)`}`;
      rows.push([kind, network, count, route]);
    }
  }
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c].length)));
  for (const r of rows) {
    lines.push(
      `  ${r.slice(0, 3).map((cell, c) => cell.padEnd(widths[c])).join("  ")}  ${r[3]}`
    );
  }
  return lines;
}
function runConfigCommand(args, env) {
  const [verb, fileArg, ...extra] = args;
  const file = fileArg ?? env.BLOCKGATE_CONFIG;
  if (verb !== "check" || !file || extra.length > 0) return { text: CONFIG_USAGE, code: 2 };
  const { errors, warnings, config } = checkConfigFile(file, env);
  const findings = [...errors.map((e) => `error: ${e}`), ...warnings.map((w) => `warning: ${w}`)];
  if (errors.length > 0 || config === null) {
    const counts = [plural(errors.length, "error")];
    if (warnings.length > 0) counts.push(plural(warnings.length, "warning"));
    return { text: [`${file}: invalid (${counts.join(", ")})`, ...findings].join("\n"), code: 1 };
  }
  return { text: [`${file}: valid`, ...summary(config, env), ...findings].join("\n"), code: 0 };
}
export {
  CONFIG_USAGE,
  runConfigCommand
};
