import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AccountExists } from "../billing/ledger/accounts.ts";
import type { Config } from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import { PROJECT_ROOT } from "../util/paths.ts";
import { ACCOUNT_COMMANDS } from "./account-commands.ts";
import type { CommandOutput, CommandSpec, DbCommand } from "./db-command.ts";
import { UsageError } from "./db-command.ts";
import { LOCAL_COMMANDS } from "./local-commands.ts";
import { MIGRATE_COMMANDS } from "./migrate-command.ts";
import { mistakeOutput, type Parsed, type ParsedLine, parseCommandLine } from "./program.ts";
import { TOKEN_COMMANDS } from "./token-commands.ts";
import { TOPUP_COMMANDS } from "./topup-commands.ts";
import { WEBHOOK_COMMANDS } from "./webhook-commands.ts";

export type { CommandOutput } from "./db-command.ts";

/** The commands that need the store, by their words: `account create`, `usage`, … */
export const DB_COMMANDS: Record<string, DbCommand> = {
  ...ACCOUNT_COMMANDS,
  ...TOKEN_COMMANDS,
  ...WEBHOOK_COMMANDS,
  ...TOPUP_COMMANDS,
  ...MIGRATE_COMMANDS,
};

/** Every command, in the order the overview lists them. */
const SPECS: Record<string, CommandSpec> = { ...DB_COMMANDS, ...LOCAL_COMMANDS };

/** What `blockgate <group> --help` says each group of commands is for. */
const GROUPS: Record<string, string> = {
  account: "accounts: create them, list them, put them on a plan",
  credits: "grant credits to an account",
  ledger: "check the ledger",
  token: "access tokens: issue, list, restrict, rotate, revoke",
  webhook: "webhook endpoints: add, list, see their attempts, remove",
  topup: "credits paid in bitcoin: invoices, and settling them by hand",
  config: "check a configuration file",
  devnet: "devnet's upstreams: serve them alone, or produce blocks on the gateway's",
};

let version: string | undefined;
/** blockgate's version, from package.json (read once). */
function blockgateVersion(): string {
  version ??= (
    JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")) as { version: string }
  ).version;
  return version;
}

/** Parses a command line against every command (see program.ts); `width` wraps help. */
export function parseLine(argv: readonly string[], width?: number): Parsed {
  return parseCommandLine(argv, SPECS, GROUPS, { width, version: blockgateVersion() });
}

/** Whether the parsed command needs the store. */
export const needsStore = (line: ParsedLine): boolean => line.key in DB_COMMANDS;

/**
 * Runs a store command line: in the CLI process or, for PGlite, inside the gateway, which parses
 * it again, as the CLI did. The line is checked before the command runs — options (one it does
 * not take is refused, never ignored), the number of words, each value — and each command checks
 * what only the store can tell before its first write: a usage error (exit 2, with the command's
 * usage) leaves the store untouched.
 */
export async function runDbCommand(
  db: Database,
  argv: string[],
  config: Config,
): Promise<CommandOutput> {
  const parsed = parseLine(argv);
  if ("out" in parsed) return parsed.out;
  if (!needsStore(parsed)) {
    return mistakeOutput(SPECS, parsed.key, "runs in the CLI, not in the gateway");
  }
  return runParsed(db, parsed, config);
}

/** Runs a parsed store command; what only the store can refuse is a usage error too. */
export async function runParsed(
  db: Database,
  line: ParsedLine,
  config: Config,
): Promise<CommandOutput> {
  const command = DB_COMMANDS[line.key]!;
  try {
    return await command.run({ db, config }, line.args, line.values);
  } catch (err) {
    const mistake =
      err instanceof UsageError ||
      err instanceof AccountExists ||
      (err instanceof Error && /^account name/.test(err.message));
    if (!mistake || !(err instanceof Error)) throw err;
    return mistakeOutput(SPECS, line.key, err.message);
  }
}

/** Runs a command that needs no store; null for a server (`start`, `devnet serve`). */
export function runLocal(line: ParsedLine): Promise<CommandOutput | null> {
  return LOCAL_COMMANDS[line.key]!.run(line.args, line.values);
}
