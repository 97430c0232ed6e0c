// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  AccountExists,
  auditInRange,
  checkLedger,
  createAccount,
  cycleAt,
  cycleContaining,
  findAccount,
  grantCredits,
  latestAudit,
  listAccounts,
  projectPath,
  usageByMethod
} from "./chunk-FAGMJ5ZN.js";

// src/admin/admin-file.ts
import { randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
function adminFilePath(config) {
  return `${config.database.pgliteDir.replace(/\/+$/, "")}.admin.json`;
}
function writeAdminFile(config, url) {
  const secret = randomBytes(32).toString("hex");
  const path = adminFilePath(config);
  writeFileSync(path, JSON.stringify({ url, secret, pid: process.pid }), { mode: 384 });
  return { url, secret, remove: () => rmSync(path, { force: true }) };
}
function readAdminFile(config) {
  try {
    const parsed = JSON.parse(readFileSync(adminFilePath(config), "utf8"));
    if (typeof parsed.url !== "string" || typeof parsed.secret !== "string") return null;
    return {
      url: parsed.url,
      secret: parsed.secret,
      ...Number.isSafeInteger(parsed.pid) ? { pid: parsed.pid } : {}
    };
  } catch {
    return null;
  }
}
function adminAuthorized(header, secret) {
  const expected = Buffer.from(`Bearer ${secret}`);
  const given = Buffer.from(header ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// src/db/migrate.ts
import { readdirSync, readFileSync as readFileSync2 } from "node:fs";
var MIGRATIONS_DIR = `${projectPath("src", "db", "migrations")}/`;
async function migrate(db) {
  await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith(".sql")).sort();
  const applied = [];
  for (const name of files) {
    const sql = readFileSync2(MIGRATIONS_DIR + name, "utf8");
    const done = await db.transaction(async (tx) => {
      if (db.kind === "postgres") await tx.query("SELECT pg_advisory_xact_lock(7001001)");
      const seen = await tx.query("SELECT 1 FROM schema_migrations WHERE name = $1", [name]);
      if (seen.rows.length > 0) return false;
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query("INSERT INTO schema_migrations(name) VALUES ($1)", [name]);
      return true;
    });
    if (done) applied.push(name);
  }
  return applied;
}
function splitStatements(sql) {
  const out = [];
  let current = "";
  let inDollar = false;
  for (const line2 of sql.split("\n")) {
    if (line2.trimStart().startsWith("--") && !inDollar) continue;
    current += `${line2}
`;
    if ((line2.match(/\$\$/g) ?? []).length % 2 === 1) inDollar = !inDollar;
    if (!inDollar && line2.trimEnd().endsWith(";")) {
      out.push(current.trim());
      current = "";
    }
  }
  if (current.trim() !== "") out.push(current.trim());
  return out;
}

// src/db/open.ts
async function openDatabase(opts) {
  const db = opts.databaseUrl ? await (await import("./postgres-QITOQMVP.js")).openPostgres({
    connectionString: opts.databaseUrl,
    poolSize: opts.poolSize,
    ...opts.schema ? { schema: opts.schema } : {}
  }) : await (await import("./pglite-HVSAWIJV.js")).openPglite(opts.pgliteDir, {
    fromSnapshot: opts.pgliteSnapshot
  });
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

// src/cli/commands.ts
import { parseArgs } from "node:util";

// src/auth/tokens.ts
import { createHash, randomBytes as randomBytes2 } from "node:crypto";
var TOKEN_PREFIX = "bgt_";
var TOKEN_RE = /^bgt_[A-Za-z0-9_-]{43}$/;
var TOKEN_BYTES = 32;
function isTokenShaped(value) {
  return TOKEN_RE.test(value);
}
function hashToken(token) {
  return createHash("sha256").update(token, "utf8").digest();
}
function tokenHint(token) {
  return `${TOKEN_PREFIX}\u2026${token.slice(-4)}`;
}
async function issueToken(db, accountId, label) {
  const token = TOKEN_PREFIX + randomBytes2(TOKEN_BYTES).toString("base64url");
  const hint = tokenHint(token);
  const { rows } = await db.query(
    "INSERT INTO tokens(account_id, hash, hint, label) VALUES ($1, $2, $3, $4) RETURNING id",
    [accountId, hashToken(token), hint, label ?? null]
  );
  return { id: rows[0].id, accountId, token, hint };
}
async function authenticate(db, token) {
  if (!isTokenShaped(token)) return null;
  const { rows } = await db.query(
    "SELECT id, account_id, hint FROM tokens WHERE hash = $1 AND revoked_at IS NULL",
    [hashToken(token)]
  );
  const row = rows[0];
  return row ? { tokenId: row.id, accountId: row.account_id, hint: row.hint } : null;
}
async function revokeToken(db, ref) {
  const { rows } = await db.query(
    "id" in ref ? "UPDATE tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id" : "UPDATE tokens SET revoked_at = now() WHERE hash = $1 AND revoked_at IS NULL RETURNING id",
    ["id" in ref ? ref.id : hashToken(ref.token)]
  );
  return rows.length > 0;
}
async function listTokens(db, accountId) {
  const { rows } = await db.query(
    "SELECT id, hint, label, created_at, revoked_at FROM tokens WHERE account_id = $1 ORDER BY id",
    [accountId]
  );
  return rows.map((r) => ({
    id: r.id,
    hint: r.hint,
    label: r.label,
    createdAt: r.created_at,
    revokedAt: r.revoked_at
  }));
}

// src/usage/csv.ts
function field(value) {
  const text = value === null || value === void 0 ? "" : value instanceof Date ? value.toISOString() : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
var line = (values) => `${values.map(field).join(",")}\r
`;
async function auditCsv(db, accountId, range) {
  const rows = (await auditInRange(db, accountId, range, 1e6)).reverse();
  const header = [
    "id",
    "at",
    "request_id",
    "backend",
    "network",
    "method",
    "outcome",
    "error_code",
    "http_status",
    "estimated_cc",
    "charged_cc",
    "complexity",
    "duration_ms"
  ];
  return line(header) + rows.map(
    (r) => line([
      r.id,
      r.at,
      r.request_id,
      r.backend,
      r.network,
      r.method,
      r.outcome,
      r.error_code,
      r.http_status,
      r.estimated_cc,
      r.charged_cc,
      r.complexity,
      r.duration_ms
    ])
  ).join("");
}
async function usageCsv(db, accountId, range) {
  const rows = await usageByMethod(db, accountId, range);
  return line(["backend", "network", "method", "calls", "charged_cc"]) + rows.map((r) => line([r.backend, r.network, r.method, r.calls, r.charged])).join("");
}

// src/cli/commands.ts
var UsageError = class extends Error {
};
var HELP = `usage: blockgate <command>

  serve                                  start the gateway (same as npm start)
  account create <name> [--credits N]    create an account, optionally with credits
  account list                           accounts with their balances
  token issue <account> [--label L]      issue an access token (printed once, stored hashed)
  token list <account>                   an account's tokens (hints only)
  token revoke <token-id | token>        revoke a token; its next request gets 401
  credits grant <account> <CC> [--memo M]  add credits to an account
  usage <account> [--limit N]            balance, usage by method and network, latest calls
  export <account> [--cycle N] [--kind audit|usage]  a billing cycle as CSV (current cycle, audit records by default)
  ledger check                           recompute every balance from the ledger and audit log
  config check [FILE]                    validate a config file (default $BLOCKGATE_CONFIG) as the
                                         gateway would, plus its secrets' variables and files;
                                         opens no database, connects to nothing
  decode <hex | -> [--network NAME] [--verbosity 1|2]
                                         decode a raw transaction (Core's decoderawtransaction)
                                         or block (getblock's fields the bytes determine);
                                         - reads the hex from standard input
  operator-token                         a new operator token for /metrics and /admin/* and its config line

Environment: DATABASE_URL (PostgreSQL; default is the embedded PGlite store),
BLOCKGATE_CONFIG (config file).`;
function helpText() {
  return HELP;
}
async function account(db, ref) {
  if (!ref) throw new UsageError("name an account");
  const found = await findAccount(db, ref);
  if (!found) throw new UsageError(`no account "${ref}"`);
  return found;
}
function positiveInt(value, what) {
  if (!value || !/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)) || Number(value) <= 0) {
    throw new UsageError(`${what}: a positive whole number of CC`);
  }
  return Number(value);
}
async function runDbCommand(db, argv, config) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      credits: { type: "string" },
      label: { type: "string" },
      memo: { type: "string" },
      limit: { type: "string" },
      cycle: { type: "string" },
      kind: { type: "string" }
    }
  });
  const [group, verb, ...rest] = positionals;
  const out = (text) => ({ text, code: 0 });
  try {
    switch (`${group} ${group === "usage" || group === "export" ? "" : verb ?? ""}`.trim()) {
      case "account create": {
        const created = await createAccount(db, verb === "create" ? rest[0] ?? "" : "");
        let balance = 0;
        if (values.credits !== void 0) {
          balance = await grantCredits(
            db,
            created.id,
            positiveInt(values.credits, "--credits"),
            "initial grant"
          );
        }
        return out(`account ${created.name} (id ${created.id}) created, balance ${balance} CC`);
      }
      case "account list": {
        const rows = await listAccounts(db);
        return out(
          rows.map((a) => `${a.id}	${a.name}	balance ${a.balance} CC	held ${a.held} CC`).join("\n") || "no accounts"
        );
      }
      case "token issue": {
        const owner = await account(db, rest[0]);
        const issued = await issueToken(db, owner.id, values.label);
        return out(
          `token ${issued.id} for ${owner.name} (shown once, store it now):
${issued.token}`
        );
      }
      case "token list": {
        const owner = await account(db, rest[0]);
        const rows = await listTokens(db, owner.id);
        return out(
          rows.map(
            (t) => `${t.id}	${t.hint}	${t.label ?? ""}	issued ${t.createdAt.toISOString()}	${t.revokedAt ? `revoked ${t.revokedAt.toISOString()}` : "live"}`
          ).join("\n") || "no tokens"
        );
      }
      case "token revoke": {
        const ref = rest[0];
        if (!ref) throw new UsageError("name a token id or the token");
        const done = await revokeToken(
          db,
          /^\d+$/.test(ref) ? { id: Number(ref) } : { token: ref }
        );
        return done ? out("revoked") : { text: "no live token matched", code: 1 };
      }
      case "credits grant": {
        const owner = await account(db, rest[0]);
        const balance = await grantCredits(
          db,
          owner.id,
          positiveInt(rest[1], "amount"),
          values.memo
        );
        return out(`granted ${rest[1]} CC to ${owner.name}; balance ${balance} CC`);
      }
      case "usage":
        return out(await usage(db, verb, values.limit));
      case "export": {
        const owner = await account(db, verb);
        const rule = config.billing.cycle;
        const current = cycleContaining(owner.createdAt, /* @__PURE__ */ new Date(), rule);
        const index = values.cycle === void 0 ? current.index : Number(values.cycle);
        if (!Number.isInteger(index) || index < 0 || index > current.index) {
          throw new UsageError(`--cycle: 0 to ${current.index}`);
        }
        if (values.kind !== void 0 && values.kind !== "audit" && values.kind !== "usage") {
          throw new UsageError("--kind: audit or usage");
        }
        const cycle = cycleAt(owner.createdAt, index, rule);
        const csv = values.kind === "usage" ? await usageCsv(db, owner.id, cycle) : await auditCsv(db, owner.id, cycle);
        return { text: csv.trimEnd(), code: 0 };
      }
      case "ledger check": {
        const rows = await checkLedger(db);
        const bad = rows.filter((r) => !r.ok);
        const lines = rows.map(
          (r) => `${r.ok ? "ok " : "BAD"} account ${r.accountId}: granted ${r.granted} \u2212 charged ${r.charged} = balance ${r.balance}; held ${r.held}; audit charged ${r.auditCharged}`
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
async function usage(db, ref, limitText) {
  const owner = await account(db, ref);
  const limit = limitText ? positiveInt(limitText, "--limit") : 10;
  const totals = await usageByMethod(db, owner.id);
  const latest = await latestAudit(db, owner.id, limit);
  const lines = [
    `account ${owner.name} (id ${owner.id}): balance ${owner.balance} CC, held ${owner.held} CC, available ${owner.balance - owner.held} CC`,
    "",
    "backend	network	method	calls	charged CC",
    ...totals.map((t) => `${t.backend}	${t.network}	${t.method}	${t.calls}	${t.charged}`),
    "",
    `latest ${latest.length} calls:`,
    ...latest.map(
      (r) => `${r.at.toISOString()}	${r.backend}/${r.network}	${r.method}	${r.outcome}${r.error_code ? ` (${r.error_code})` : ""}	${r.charged_cc} CC`
    )
  ];
  return lines.join("\n");
}

export {
  adminFilePath,
  writeAdminFile,
  readAdminFile,
  adminAuthorized,
  openDatabase,
  tokenHint,
  issueToken,
  authenticate,
  auditCsv,
  usageCsv,
  helpText,
  runDbCommand
};
