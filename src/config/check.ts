import { accessSync, constants, statSync } from "node:fs";
import { ConfigError, parseConfig, readConfigFile } from "./load.ts";
import type { Config } from "./schema.ts";

/** What `blockgate config check` found: errors make the file unusable, warnings may not. */
export interface ConfigCheck {
  errors: string[];
  warnings: string[];
  /** The validated config, when the schema accepted the file. */
  config: Config | null;
}

/**
 * Per upstream kind, the fields that name something outside the file: an environment variable
 * holding a secret, or a file the gateway reads at start.
 */
const OUTSIDE = {
  node: { env: ["passwordEnv"], files: ["cookieFile"] },
  graph: { env: ["adminSecretEnv"], files: [] },
  electrum: { env: [], files: ["caFile"] },
} as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Validates a config file as the gateway would at start — the same schema and cross-checks — and
 * then what the schema cannot see: secrets named by environment variable (unset is a warning:
 * the check may run where the gateway does not) and files that must exist (missing is an error).
 * Relative file paths are taken from the working directory, as the gateway reads them. Opens no
 * database and connects to nothing.
 */
export function checkConfigFile(path: string, env: NodeJS.ProcessEnv): ConfigCheck {
  const errors: string[] = [];
  const warnings: string[] = [];
  let raw: Record<string, unknown>;
  try {
    raw = readConfigFile(path);
  } catch (err) {
    if (err instanceof ConfigError) return { errors: err.problems, warnings, config: null };
    throw err;
  }
  let config: Config | null = null;
  try {
    config = parseConfig(raw);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    errors.push(...err.problems);
  }
  // Walked on the file as written, so these are reported even when the schema found errors too.
  const upstreams = isRecord(raw.upstreams) ? raw.upstreams : {};
  for (const kind of ["node", "electrum", "graph"] as const) {
    const perNetwork = upstreams[kind];
    if (!isRecord(perNetwork)) continue;
    for (const [network, entries] of Object.entries(perNetwork)) {
      if (!Array.isArray(entries)) continue;
      entries.forEach((entry: unknown, i) => {
        if (!isRecord(entry)) return;
        const at = `upstreams.${kind}.${network}[${i}]`;
        for (const field of OUTSIDE[kind].env) {
          const name = entry[field];
          if (typeof name === "string" && env[name] === undefined) {
            warnings.push(
              `${at}.${field}: ${name} is not set (the gateway will not start without it)`,
            );
          }
        }
        for (const field of OUTSIDE[kind].files) checkFile(entry, field, at, errors, warnings);
      });
    }
  }
  // The Electrum TLS listener's certificate and key.
  const tls = isRecord(raw.electrum) && isRecord(raw.electrum.tls) ? raw.electrum.tls : null;
  if (tls) {
    for (const field of ["certFile", "keyFile"]) {
      checkFile(tls, field, "electrum.tls", errors, warnings);
    }
  }
  return { errors, warnings, config: errors.length === 0 ? config : null };
}

/** A file the config names must exist and be a file; one this user cannot read is a warning. */
function checkFile(
  entry: Record<string, unknown>,
  field: string,
  at: string,
  errors: string[],
  warnings: string[],
): void {
  const file = entry[field];
  if (typeof file !== "string" || file === "") return;
  const problem = fileProblem(file);
  if (problem === "missing") errors.push(`${at}.${field}: ${file} does not exist`);
  else if (problem === "not a file") errors.push(`${at}.${field}: ${file} is not a file`);
  else if (problem === "unreadable") {
    // The gateway may run as another user (bitcoind's cookie is often group-readable only).
    warnings.push(`${at}.${field}: ${file} is not readable by this user`);
  }
}

function fileProblem(file: string): "missing" | "not a file" | "unreadable" | null {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(file, { throwIfNoEntry: false });
  } catch {
    return "unreadable"; // a directory on the way that this user may not search
  }
  if (stat === undefined) return "missing";
  if (!stat.isFile()) return "not a file";
  try {
    accessSync(file, constants.R_OK);
  } catch {
    return "unreadable";
  }
  return null;
}
