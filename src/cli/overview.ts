import type { CommandSpec } from "./db-command.ts";

/** The sections of the overview, by the first word of their commands. */
const SECTIONS: [string, readonly string[]][] = [
  ["Accounts and credits", ["account", "credits", "usage", "export", "ledger"]],
  ["Tokens", ["token"]],
  ["Webhooks", ["webhook"]],
  ["Top-ups (credits paid in bitcoin)", ["topup"]],
  ["The gateway, its database and devnet", ["start", "migrate", "devnet"]],
  ["Without a store", ["config", "decode", "operator-token", "electrum-name"]],
];

/** A command's line in the overview: its usage when short, else its operands and [options]. */
export function term(key: string, spec: CommandSpec): string {
  if (spec.usage.length <= 36) return `${key} ${spec.usage}`.trimEnd();
  const operands = spec.operands.map((o) => (o.optional ? `[${o.name}]` : `<${o.name}>`));
  return [key, ...operands, "[options]"].join(" ");
}

/** `blockgate` alone, or with --help: every command on a line, in sections. */
export function overview(specs: Record<string, CommandSpec>, version: string): string {
  const rows = Object.entries(specs).map(([key, spec]) => ({ key, term: term(key, spec), spec }));
  const width = Math.max(...rows.map((r) => r.term.length));
  const lines = [
    `blockgate ${version}: a metered gateway to Bitcoin data`,
    "",
    "usage: blockgate <command> [options]",
  ];
  for (const [title, words] of SECTIONS) {
    lines.push("", `${title}:`);
    for (const r of rows.filter((r) => words.includes(r.key.split(" ")[0]!))) {
      lines.push(`  ${r.term.padEnd(width)}  ${r.spec.summary}`);
    }
  }
  lines.push(
    "",
    "blockgate <command> --help shows a command's options and an example.",
    "-h, --help  this overview      -V, --version  blockgate's version",
    "",
    "Environment:",
    "  DATABASE_URL              PostgreSQL; unset: the embedded PGlite store (config database.pgliteDir)",
    "  BLOCKGATE_CONFIG          the configuration file",
    "  BLOCKGATE_OPERATOR_TOKEN  for devnet's commands when no PGlite hand-off file is there",
    "  NO_COLOR                  no colours, even on a terminal",
  );
  return `${lines.join("\n")}\n`;
}
