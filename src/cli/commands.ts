import { parseArgs } from "node:util";
import { AccountExists } from "../billing/ledger/accounts.ts";
import type { Config } from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import { ACCOUNT_COMMANDS } from "./account-commands.ts";
import {
  type CommandOutput,
  type DbCommand,
  STRING_OPTIONS,
  UsageError,
  type Values,
} from "./db-command.ts";
import { TOKEN_COMMANDS } from "./token-commands.ts";
import { WEBHOOK_COMMANDS } from "./webhook-commands.ts";

export type { CommandOutput } from "./db-command.ts";

const HELP = `usage: blockgate <command>

  serve                                  start the gateway (same as npm start)
  account create <name> [--credits N]    create an account, optionally with credits
  account list                           accounts with their balances and plans
  account plan <account> <plan|default>  put an account on a plan of the config (limits apply within 1 s)
  token issue <account> [--label L]      issue an access token (printed once, stored hashed)
  token list <account>                   an account's tokens (hints only)
  token revoke <token-id | token>        revoke a token; its next request gets 401
  token restrict <token-id> [scope] | --unrestricted   replace a token's scope
  token rotate <token-id> [--grace 24h]  a new token; the old one works until the grace ends
    scope, for token issue and restrict (comma-separated lists; absent: unrestricted):
    --backends node,electrum,graph,gateway  --networks mainnet,…  --methods getrawtransaction,…
    --origins https://app.example (or *: any; lets browsers on them call, CORS)
    --ips 203.0.113.0/24,2001:db8::/32  and, for issue, --expires 30d | 2027-01-01T00:00:00Z
  credits grant <account> <CC> [--memo M]  add credits to an account
  usage <account> [--limit N]            balance, usage by method and network, latest calls
  export <account> [--cycle N] [--kind audit|usage]  a billing cycle as CSV (current cycle, audit records by default)
  ledger check                           recompute every balance from the ledger and audit log
  webhook add <token-id> <url> [--event newBlock|transactionConfirmations|addressActivity|mempoolFees]
        [--network regtest] [--txid T] [--until N] [--address A] [--targets 1,6,144] [--description D]
                                         an endpoint told of events, acting for the token (secret printed once)
  webhook list <account>                 an account's endpoints
  webhook attempts <webhook-id> [--limit N]  its latest delivery attempts: status, latency, result
  webhook rm <webhook-id>                end an endpoint: nothing more is sent to it
  config check [FILE]                    validate a config file (default $BLOCKGATE_CONFIG) as the
                                         gateway would, plus its secrets' variables and files;
                                         opens no database, connects to nothing
  decode <hex | -> [--network NAME] [--verbosity 1|2]
                                         decode a raw transaction (Core's decoderawtransaction)
                                         or block (getblock's fields the bytes determine);
                                         - reads the hex from standard input
  operator-token                         a new operator token for /metrics and /admin/* and its config line
  electrum-name <token> [network]        the TLS server name a stock Electrum wallet dials with this token
  devnet mine [--network N] [--blocks K] K blocks on the running gateway's devnet tip (regtest, 1)
  devnet reorg [--network N] [--depth D] D blocks off devnet's best chain, D + 1 new ones on the fork point

Environment: DATABASE_URL (PostgreSQL; default is the embedded PGlite store),
BLOCKGATE_CONFIG (config file), BLOCKGATE_OPERATOR_TOKEN (devnet's commands without a PGlite store).`;

export function helpText(): string {
  return HELP;
}

/** The commands `runDbCommand` runs, by their words: `account create`, `usage`, … */
const DB_COMMANDS: Record<string, DbCommand> = {
  ...ACCOUNT_COMMANDS,
  ...TOKEN_COMMANDS,
  ...WEBHOOK_COMMANDS,
};

/** The first words of the commands `runDbCommand` knows. */
const DB_COMMAND_GROUPS = new Set(Object.keys(DB_COMMANDS).map((key) => key.split(" ")[0]!));

/**
 * A word that can start no database command: answered with the usage before any store is opened,
 * so a typo neither waits for PGlite to load nor creates its folder. (Options may come first.)
 */
export function unknownCommand(command: string): CommandOutput | null {
  if (command.startsWith("-") || DB_COMMAND_GROUPS.has(command)) return null;
  return { text: HELP, code: 2 };
}

const PARSE_OPTIONS = {
  ...Object.fromEntries(STRING_OPTIONS.map((name) => [name, { type: "string" as const }])),
  unrestricted: { type: "boolean" as const },
};

/**
 * Commands that need the database; run in the CLI process or, for PGlite, inside the gateway.
 * The whole command line is checked before the command runs — its options (one it does not read
 * is refused, never ignored), the number of its words — and each command checks its values before
 * its first write: a usage error (exit 2, with the command's usage) leaves the store untouched.
 */
export async function runDbCommand(
  db: Database,
  argv: string[],
  config: Config,
): Promise<CommandOutput> {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: PARSE_OPTIONS });
  } catch (err) {
    // parseArgs' own words: an unknown option, or one without its value.
    return { text: `${(err as Error).message}\n\n${HELP}`, code: 2 };
  }
  const { values, positionals } = parsed;
  const [group = "", verb] = positionals;
  const key = DB_COMMANDS[group] ? group : `${group} ${verb ?? ""}`;
  const command = DB_COMMANDS[key];
  if (!command) return { text: HELP, code: 2 };
  const args = positionals.slice(key.split(" ").length);
  try {
    checkShape(command, args, values);
    return await command.run({ db, config }, args, values);
  } catch (err) {
    const mistake =
      err instanceof UsageError ||
      err instanceof AccountExists ||
      (err instanceof Error && /^account name/.test(err.message));
    if (!mistake || !(err instanceof Error)) throw err;
    return { text: `${key}: ${err.message}\nusage: blockgate ${command.usage}`, code: 2 };
  }
}

/** Options the command does not read, and too few or too many words, are usage errors. */
function checkShape(command: DbCommand, args: readonly string[], values: Values): void {
  const foreign = Object.keys(values).filter(
    (name) => !(command.options as readonly string[]).includes(name),
  );
  if (foreign.length > 0) throw new UsageError(`--${foreign[0]} is not one of its options`);
  const [least, most] = command.arity;
  if (args.length < least) throw new UsageError("missing arguments");
  if (args.length > most) throw new UsageError(`unexpected argument "${args[most]}"`);
}
