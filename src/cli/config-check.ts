import { checkConfigFile } from "../config/check.ts";
import type { Config } from "../config/schema.ts";
import type { CommandOutput } from "./db-command.ts";

export const CONFIG_USAGE =
  "usage: blockgate config check [FILE]   (FILE defaults to $BLOCKGATE_CONFIG)";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** What the gateway would serve with this config, in a few lines. */
function summary(config: Config, env: NodeJS.ProcessEnv): string[] {
  const lines = [
    `networks: ${config.networks.join(", ")}`,
    env.DATABASE_URL
      ? "store: PostgreSQL via DATABASE_URL"
      : `store: PGlite in ${config.database.pgliteDir} (DATABASE_URL is not set)`,
    "upstreams:",
  ];
  const rows: string[][] = [];
  for (const kind of ["node", "electrum", "graph", "esplora"] as const) {
    for (const network of config.networks) {
      const entries: readonly unknown[] = config.upstreams[kind]?.[network] ?? [];
      const devnet = entries.filter((e) => e === "devnet").length;
      const route = `/${config.backends[kind]}/${network}`;
      const count =
        entries.length === 0
          ? "none (no such route)"
          : `${plural(entries.length, "upstream")}${devnet === 0 ? "" : devnet === entries.length ? " (devnet)" : ` (${devnet} devnet)`}`;
      rows.push([kind, network, count, route]);
    }
  }
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) {
    lines.push(
      `  ${r
        .slice(0, 3)
        .map((cell, c) => cell.padEnd(widths[c]!))
        .join("  ")}  ${r[3]}`,
    );
  }
  return lines;
}

/** `blockgate config check [FILE]`: exit 0 valid (warnings allowed), 1 invalid, 2 usage. */
export function runConfigCommand(args: string[], env: NodeJS.ProcessEnv): CommandOutput {
  const [verb, fileArg, ...extra] = args;
  if (verb !== "check" || extra.length > 0) return { text: CONFIG_USAGE, code: 2 };
  return checkConfig(fileArg, env);
}

/** Checks `fileArg` (default $BLOCKGATE_CONFIG); with `json`, the findings as JSON. */
export function checkConfig(
  fileArg: string | undefined,
  env: NodeJS.ProcessEnv,
  json = false,
): CommandOutput {
  const file = fileArg ?? env.BLOCKGATE_CONFIG;
  if (!file)
    return { text: `config check: name a file, or set BLOCKGATE_CONFIG\n${CONFIG_USAGE}`, code: 2 };
  const { errors, warnings, config } = checkConfigFile(file, env);
  const valid = errors.length === 0 && config !== null;
  if (json) {
    return {
      text: JSON.stringify({ file, valid, errors, warnings }, null, 2),
      code: valid ? 0 : 1,
    };
  }
  const findings = [...errors.map((e) => `error: ${e}`), ...warnings.map((w) => `warning: ${w}`)];
  if (!valid || config === null) {
    const counts = [plural(errors.length, "error")];
    if (warnings.length > 0) counts.push(plural(warnings.length, "warning"));
    return { text: [`${file}: invalid (${counts.join(", ")})`, ...findings].join("\n"), code: 1 };
  }
  return { text: [`${file}: valid`, ...summary(config, env), ...findings].join("\n"), code: 0 };
}
