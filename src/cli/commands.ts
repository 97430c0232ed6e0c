import { parseArgs } from "node:util";
import {
  AccountExists,
  createAccount,
  findAccount,
  listAccounts,
  setAccountPlan,
} from "../accounts/accounts.ts";
import { issueToken, listTokens, restrictToken, revokeToken, rotateToken } from "../auth/tokens.ts";
import type { Config } from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import { checkLedger, grantCredits } from "../ledger/ledger.ts";
import { auditCsv, usageCsv } from "../usage/csv.ts";
import { cycleAt, cycleContaining } from "../usage/cycles.ts";
import { latestAudit, usageByMethod } from "../usage/usage.ts";
import { durationMs, expiryFrom, SCOPE_OPTIONS, scopeFrom, tokenLine } from "./token-terms.ts";
import { runWebhookCommand, WEBHOOK_OPTIONS } from "./webhook-commands.ts";

/** A command's result: text for the terminal and an exit code. */
export interface CommandOutput {
  text: string;
  code: number;
}

export class UsageError extends Error {}

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

/** The scope the options give, or null; a bad value is the user's mistake (exit 2). */
function scopeOption(values: Parameters<typeof scopeFrom>[0]) {
  const given = scopeFrom(values);
  if ("problem" in given) throw new UsageError(given.problem);
  return given.scope;
}

function tokenId(ref: string | undefined): number {
  if (!ref || !/^\d+$/.test(ref)) throw new UsageError("name a token by its id (token list)");
  return Number(ref);
}

async function account(db: Database, ref: string | undefined) {
  if (!ref) throw new UsageError("name an account");
  const found = await findAccount(db, ref);
  if (!found) throw new UsageError(`no account "${ref}"`);
  return found;
}

function positiveInt(value: string | undefined, what: string): number {
  if (
    !value ||
    !/^\d+$/.test(value) ||
    !Number.isSafeInteger(Number(value)) ||
    Number(value) <= 0
  ) {
    throw new UsageError(`${what}: a positive whole number of CC`);
  }
  return Number(value);
}

/** The first words of the commands `runDbCommand` knows. */
const DB_COMMAND_GROUPS = new Set([
  "account",
  "token",
  "credits",
  "usage",
  "export",
  "ledger",
  "webhook",
]);

/**
 * A word that can start no database command: answered with the usage before any store is opened,
 * so a typo neither waits for PGlite to load nor creates its folder. (Options may come first.)
 */
export function unknownCommand(command: string): CommandOutput | null {
  if (command.startsWith("-") || DB_COMMAND_GROUPS.has(command)) return null;
  return { text: HELP, code: 2 };
}

/** Commands that need the database; run in the CLI process or, for PGlite, inside the gateway. */
export async function runDbCommand(
  db: Database,
  argv: string[],
  config: Config,
): Promise<CommandOutput> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      credits: { type: "string" },
      label: { type: "string" },
      memo: { type: "string" },
      limit: { type: "string" },
      cycle: { type: "string" },
      kind: { type: "string" },
      ...SCOPE_OPTIONS,
      ...WEBHOOK_OPTIONS,
    },
  });
  const [group, verb, ...rest] = positionals;
  const out = (text: string): CommandOutput => ({ text, code: 0 });
  try {
    switch (`${group} ${group === "usage" || group === "export" ? "" : (verb ?? "")}`.trim()) {
      case "account create": {
        const created = await createAccount(db, verb === "create" ? (rest[0] ?? "") : "");
        let balance = 0;
        if (values.credits !== undefined) {
          balance = await grantCredits(
            db,
            created.id,
            positiveInt(values.credits, "--credits"),
            "initial grant",
          );
        }
        return out(`account ${created.name} (id ${created.id}) created, balance ${balance} CC`);
      }
      case "account list": {
        const rows = await listAccounts(db);
        return out(
          rows
            .map(
              (a) =>
                `${a.id}\t${a.name}\tbalance ${a.balance} CC\theld ${a.held} CC\tplan ${a.plan ?? "default"}`,
            )
            .join("\n") || "no accounts",
        );
      }
      case "account plan": {
        const owner = await account(db, rest[0]);
        const name = rest[1];
        if (!name) throw new UsageError("name a plan, or `default`");
        if (name !== "default" && !config.plans[name]) {
          const known = Object.keys(config.plans);
          throw new UsageError(
            `no plan "${name}" in the config (${known.length > 0 ? `plans: ${known.join(", ")}` : "it has no plans"})`,
          );
        }
        await setAccountPlan(db, owner.id, name === "default" ? null : name);
        return out(`account ${owner.name} (id ${owner.id}) is on plan ${name}`);
      }
      case "token issue": {
        const owner = await account(db, rest[0]);
        const scope = scopeOption(values);
        let expiresAt: Date | null = null;
        if (values.expires !== undefined) {
          expiresAt = expiryFrom(values.expires);
          if (!expiresAt) {
            throw new UsageError("--expires: a duration (30d, 12h) or a future ISO 8601 instant");
          }
        }
        const issued = await issueToken(db, owner.id, { label: values.label, scope, expiresAt });
        return out(
          `token ${issued.id} for ${owner.name} (shown once, store it now):\n${issued.token}`,
        );
      }
      case "token restrict": {
        const id = tokenId(rest[0]);
        const scope = values.unrestricted ? null : scopeOption(values);
        if (!scope && !values.unrestricted) {
          throw new UsageError("give the new scope (--backends … --ips), or --unrestricted");
        }
        const row = await restrictToken(db, id, scope);
        return row ? out(tokenLine(row)) : { text: "no live token matched", code: 1 };
      }
      case "token rotate": {
        const id = tokenId(rest[0]);
        const graceMs = durationMs(values.grace ?? "24h");
        if (graceMs === null) throw new UsageError("--grace: a duration such as 90s, 30m, 24h, 7d");
        const rotated = await rotateToken(db, id, graceMs);
        if (!rotated) return { text: "no live token matched", code: 1 };
        return out(
          `token ${rotated.issued.id} replaces token ${id}, which works until ${rotated.oldExpiresAt.toISOString()} (shown once, store it now):\n${rotated.issued.token}`,
        );
      }
      case "token list": {
        const owner = await account(db, rest[0]);
        const rows = await listTokens(db, owner.id);
        return out(rows.map((t) => tokenLine(t)).join("\n") || "no tokens");
      }
      case "token revoke": {
        const ref = rest[0];
        if (!ref) throw new UsageError("name a token id or the token");
        const done = await revokeToken(
          db,
          /^\d+$/.test(ref) ? { id: Number(ref) } : { token: ref },
        );
        return done ? out("revoked") : { text: "no live token matched", code: 1 };
      }
      case "credits grant": {
        const owner = await account(db, rest[0]);
        const balance = await grantCredits(
          db,
          owner.id,
          positiveInt(rest[1], "amount"),
          values.memo,
        );
        return out(`granted ${rest[1]} CC to ${owner.name}; balance ${balance} CC`);
      }
      case "usage":
        return out(await usage(db, verb, values.limit));
      case "export": {
        const owner = await account(db, verb);
        const rule = config.billing.cycle;
        const current = cycleContaining(owner.createdAt, new Date(), rule);
        const index = values.cycle === undefined ? current.index : Number(values.cycle);
        if (!Number.isInteger(index) || index < 0 || index > current.index) {
          throw new UsageError(`--cycle: 0 to ${current.index}`);
        }
        if (values.kind !== undefined && values.kind !== "audit" && values.kind !== "usage") {
          throw new UsageError("--kind: audit or usage");
        }
        const cycle = cycleAt(owner.createdAt, index, rule);
        const csv =
          values.kind === "usage"
            ? await usageCsv(db, owner.id, cycle)
            : await auditCsv(db, owner.id, cycle);
        return { text: csv.trimEnd(), code: 0 };
      }
      case "webhook add":
      case "webhook list":
      case "webhook attempts":
      case "webhook rm":
        return await runWebhookCommand(
          db,
          config,
          verb,
          rest,
          values,
          (m) => new UsageError(m),
          (ref) => account(db, ref),
        );
      case "ledger check": {
        const rows = await checkLedger(db);
        const bad = rows.filter((r) => !r.ok);
        const lines = rows.map(
          (r) =>
            `${r.ok ? "ok " : "BAD"} account ${r.accountId}: granted ${r.granted} − charged ${r.charged} = balance ${r.balance}; held ${r.held}; audit charged ${r.auditCharged}`,
        );
        return { text: lines.join("\n") || "no accounts", code: bad.length > 0 ? 1 : 0 };
      }
      default:
        throw new UsageError(HELP);
    }
  } catch (err) {
    if (err instanceof UsageError || err instanceof AccountExists)
      return { text: err.message, code: 2 };
    if (err instanceof Error && /account name/.test(err.message))
      return { text: err.message, code: 2 };
    throw err;
  }
}

async function usage(
  db: Database,
  ref: string | undefined,
  limitText: string | undefined,
): Promise<string> {
  const owner = await account(db, ref);
  const limit = limitText ? positiveInt(limitText, "--limit") : 10;
  const totals = await usageByMethod(db, owner.id);
  const latest = await latestAudit(db, owner.id, limit);
  const lines = [
    `account ${owner.name} (id ${owner.id}): balance ${owner.balance} CC, held ${owner.held} CC, available ${owner.balance - owner.held} CC`,
    "",
    "backend\tnetwork\tmethod\tcalls\tcharged CC",
    ...totals.map((t) => `${t.backend}\t${t.network}\t${t.method}\t${t.calls}\t${t.charged}`),
    "",
    `latest ${latest.length} calls:`,
    ...latest.map(
      (r) =>
        `${r.at.toISOString()}\t${r.backend}/${r.network}\t${r.method}\t${r.outcome}${r.error_code ? ` (${r.error_code})` : ""}\t${r.charged_cc} CC`,
    ),
  ];
  return lines.join("\n");
}
