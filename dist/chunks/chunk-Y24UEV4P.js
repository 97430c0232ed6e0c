// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  NETWORK_NAMES
} from "./chunk-5IEXRME2.js";

// src/auth/tokens.ts
import { createHash, randomBytes } from "node:crypto";

// src/auth/scope.ts
import { BlockList, isIP } from "node:net";
import { z } from "zod";
var BACKEND_KINDS = ["node", "electrum", "graph", "gateway"];
var list = (item) => z.array(item).min(1).max(100).optional();
var origin = z.string().refine((value) => {
  if (value === "*") return true;
  try {
    const url = new URL(value);
    return url.origin === value && (url.protocol === "https:" || url.protocol === "http:");
  } catch {
    return false;
  }
}, "an origin is scheme://host[:port], without path or trailing slash (or *)");
var addressRange = z.string().refine((value) => parseRange(value) !== null, {
  message: "an address range is an IPv4 or IPv6 address, or a CIDR range such as 10.0.0.0/8"
});
var tokenScopeSchema = z.strictObject({
  backends: list(z.enum(BACKEND_KINDS)),
  networks: list(z.enum(NETWORK_NAMES)),
  /** JSON-RPC methods, Hasura root fields (graph route); the unified API is one method, `graphql`. */
  methods: list(z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/)),
  origins: list(origin),
  ips: list(addressRange)
});
function compileScope(raw) {
  if (!raw) return null;
  let addresses = null;
  if (raw.ips) {
    addresses = new BlockList();
    for (const r of raw.ips) {
      const range = parseRange(r);
      addresses.addSubnet(range.address, range.prefix, range.family);
    }
  }
  return {
    raw,
    backends: raw.backends ? new Set(raw.backends) : null,
    networks: raw.networks ? new Set(raw.networks) : null,
    methods: raw.methods ? new Set(raw.methods) : null,
    origins: raw.origins ? raw.origins.includes("*") ? "*" : new Set(raw.origins) : null,
    addresses
  };
}
function requestOutOfScope(scope, request) {
  if (!scope) return null;
  if (scope.backends && !scope.backends.has(request.backend)) return "backend";
  if (scope.networks && !scope.networks.has(request.network)) return "network";
  if (scope.addresses && !inRanges(scope.addresses, request.address)) return "address";
  if (scope.origins && request.origin !== null && !originAllowed(scope, request.origin)) {
    return "origin";
  }
  return null;
}
function methodOutOfScope(scope, methods) {
  if (!scope?.methods) return null;
  for (const m of methods) {
    for (const part of m.split(",")) if (!scope.methods.has(part)) return part;
  }
  return null;
}
function originAllowed(scope, origin2) {
  if (!scope?.origins) return false;
  return scope.origins === "*" || scope.origins.has(origin2);
}
function inRanges(list2, address) {
  const v4 = address.startsWith("::ffff:") ? address.slice(7) : address;
  const family = isIP(v4);
  if (family === 0) return false;
  return list2.check(v4, family === 4 ? "ipv4" : "ipv6");
}
function parseRange(value) {
  const [address = "", prefixText, ...rest] = value.split("/");
  if (rest.length > 0) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== void 0 && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === void 0 ? max : Number(prefixText);
  if (prefix > max) return null;
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

// src/auth/tokens.ts
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
async function issueToken(db, accountId, terms = {}) {
  const { label, scope, expiresAt } = typeof terms === "string" ? { label: terms } : terms;
  const token = TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString("base64url");
  const hint = tokenHint(token);
  const { rows } = await db.query(
    `INSERT INTO tokens(account_id, hash, hint, label, scope, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [
      accountId,
      hashToken(token),
      hint,
      label ?? null,
      scope ? JSON.stringify(tokenScopeSchema.parse(scope)) : null,
      expiresAt ?? null
    ]
  );
  return { id: rows[0].id, accountId, token, hint };
}
async function authenticate(db, token) {
  if (!isTokenShaped(token)) return null;
  const { rows } = await db.query(
    `SELECT id, account_id, hint, scope, expires_at FROM tokens
     WHERE hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [hashToken(token)]
  );
  const row = rows[0];
  return row ? {
    tokenId: row.id,
    accountId: row.account_id,
    hint: row.hint,
    scope: compileScope(row.scope),
    expiresAt: row.expires_at
  } : null;
}
async function revokeToken(db, ref, accountId) {
  const { rows } = await db.query(
    `UPDATE tokens SET revoked_at = now()
     WHERE ${"id" in ref ? "id" : "hash"} = $1 AND revoked_at IS NULL
       AND ($2::bigint IS NULL OR account_id = $2)
     RETURNING id`,
    ["id" in ref ? ref.id : hashToken(ref.token), accountId ?? null]
  );
  for (const row of rows) await db.notify("token_revoked", String(row.id));
  return rows.length > 0;
}
var TOKEN_COLUMNS = "id, hint, label, created_at, revoked_at, scope, expires_at";
var toRow = (r) => ({
  id: r.id,
  hint: r.hint,
  label: r.label,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  scope: r.scope,
  expiresAt: r.expires_at
});
async function findToken(db, accountId, tokenId) {
  const { rows } = await db.query(
    `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE id = $1 AND account_id = $2`,
    [tokenId, accountId]
  );
  return rows[0] ? toRow(rows[0]) : null;
}
async function listTokens(db, accountId) {
  const { rows } = await db.query(
    `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE account_id = $1 ORDER BY id`,
    [accountId]
  );
  return rows.map(toRow);
}
async function restrictToken(db, tokenId, scope, accountId) {
  const { rows } = await db.query(
    `UPDATE tokens SET scope = $2 WHERE id = $1 AND revoked_at IS NULL
       AND (expires_at IS NULL OR expires_at > now()) AND ($3::bigint IS NULL OR account_id = $3)
     RETURNING ${TOKEN_COLUMNS}`,
    [tokenId, scope ? JSON.stringify(tokenScopeSchema.parse(scope)) : null, accountId ?? null]
  );
  if (!rows[0]) return null;
  await db.notify("token_revoked", String(tokenId));
  return toRow(rows[0]);
}
async function rotateToken(db, tokenId, graceMs, accountId) {
  const rotated = await db.transaction(async (tx) => {
    const { rows } = await tx.query(
      `UPDATE tokens SET expires_at = LEAST(coalesce(expires_at, 'infinity'),
                                             now() + make_interval(secs => $2::double precision / 1000))
       WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
         AND ($3::bigint IS NULL OR account_id = $3)
       RETURNING ${TOKEN_COLUMNS}, account_id`,
      [tokenId, graceMs, accountId ?? null]
    );
    const old = rows[0];
    if (!old) return null;
    const issued = await issueToken(tx, old.account_id, {
      label: old.label,
      scope: old.scope,
      expiresAt: null
    });
    return { issued, oldExpiresAt: old.expires_at };
  });
  if (rotated) await db.notify("token_revoked", String(tokenId));
  return rotated;
}

// src/usage/cycles.ts
var MONTHLY = { unit: "month", length: 1 };
var DAY_MS = 864e5;
function monthsAfter(anchor, months) {
  const total = anchor.getUTCMonth() + months;
  const year = anchor.getUTCFullYear() + Math.floor(total / 12);
  const month = (total % 12 + 12) % 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return new Date(
    Date.UTC(
      year,
      month,
      Math.min(anchor.getUTCDate(), lastDay),
      anchor.getUTCHours(),
      anchor.getUTCMinutes(),
      anchor.getUTCSeconds(),
      anchor.getUTCMilliseconds()
    )
  );
}
function boundary(anchor, rule, index) {
  return rule.unit === "day" ? new Date(anchor.getTime() + index * rule.length * DAY_MS) : monthsAfter(anchor, index * rule.length);
}
function cycleAt(anchor, index, rule = MONTHLY) {
  return { index, start: boundary(anchor, rule, index), end: boundary(anchor, rule, index + 1) };
}
function cycleContaining(anchor, at, rule = MONTHLY) {
  const elapsed = at.getTime() - anchor.getTime();
  const approx = rule.unit === "day" ? Math.floor(elapsed / (rule.length * DAY_MS)) : Math.floor(
    ((at.getUTCFullYear() - anchor.getUTCFullYear()) * 12 + at.getUTCMonth() - anchor.getUTCMonth()) / rule.length
  ) - 1;
  let index = Math.max(0, approx);
  while (index > 0 && cycleAt(anchor, index, rule).start > at) index--;
  while (cycleAt(anchor, index, rule).end <= at) index++;
  return cycleAt(anchor, index, rule);
}

// src/accounts/accounts.ts
var toAccount = (r) => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
  balance: r.balance,
  held: r.held,
  plan: r.plan
});
var AccountExists = class extends Error {
};
async function createAccount(db, name) {
  if (!/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/.test(name)) {
    throw new Error("account name: 1-64 characters of letters, digits, '.', '_', '@', '-'");
  }
  const { rows } = await db.query(
    `INSERT INTO accounts(name) VALUES ($1) ON CONFLICT (name) DO NOTHING
     RETURNING id, name, created_at, balance, held, plan`,
    [name]
  );
  if (!rows[0]) throw new AccountExists(`account "${name}" exists`);
  return toAccount(rows[0]);
}
async function findAccount(db, ref) {
  const byId = typeof ref === "number" || /^\d+$/.test(ref);
  const { rows } = await db.query(
    `SELECT id, name, created_at, balance, held, plan FROM accounts WHERE ${byId ? "id" : "name"} = $1`,
    [byId ? Number(ref) : ref]
  );
  return rows[0] ? toAccount(rows[0]) : null;
}
async function listAccounts(db) {
  const { rows } = await db.query(
    "SELECT id, name, created_at, balance, held, plan FROM accounts ORDER BY id"
  );
  return rows.map(toAccount);
}
async function setAccountPlan(db, accountId, plan) {
  const { rows } = await db.query(
    "UPDATE accounts SET plan = $2 WHERE id = $1 RETURNING id",
    [accountId, plan]
  );
  if (rows.length === 0) return false;
  await db.notify("account_changed", String(accountId));
  return true;
}

// src/usage/usage.ts
var REFUSED_OUTCOMES = [
  "rejected",
  "unauthenticated",
  "forbidden",
  "rate_limited",
  "credit_cap",
  "insufficient_credits"
];
var REFUSED_SQL = `outcome IN (${REFUSED_OUTCOMES.map((o) => `'${o}'`).join(", ")})`;
var IN_RANGE = "($2::timestamptz IS NULL OR at >= $2) AND ($3::timestamptz IS NULL OR at < $3)";
var rangeParams = (accountId, range) => [
  accountId,
  range?.start ?? null,
  range?.end ?? null
];
async function usageByMethod(db, accountId, range) {
  const { rows } = await db.query(
    `SELECT backend, network, method, sum(calls)::int8 AS calls,
       coalesce(sum(calls) FILTER (WHERE ${REFUSED_SQL}), 0)::int8 AS refused,
       sum(charged_cc)::int8 AS charged
     FROM audit_records WHERE account_id = $1 AND ${IN_RANGE}
     GROUP BY backend, network, method ORDER BY backend, network, method`,
    rangeParams(accountId, range)
  );
  return rows;
}
async function usageByDay(db, accountId, range) {
  const { rows } = await db.query(
    `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(calls)::int8 AS calls, sum(charged_cc)::int8 AS charged
     FROM audit_records WHERE account_id = $1 AND ${IN_RANGE} GROUP BY 1 ORDER BY 1`,
    rangeParams(accountId, range)
  );
  return rows;
}
async function usageByOutcome(db, accountId, range) {
  const { rows } = await db.query(
    `SELECT outcome, http_status AS "httpStatus", sum(calls)::int8 AS calls, sum(charged_cc)::int8 AS charged
     FROM audit_records WHERE account_id = $1 AND ${IN_RANGE} GROUP BY 1, 2 ORDER BY 1, 2`,
    rangeParams(accountId, range)
  );
  return rows;
}
async function auditInRange(db, accountId, range, limit) {
  const { rows } = await db.query(
    `SELECT id, at, request_id, account_id, backend, network, method, outcome, error_code,
       upstream_code, http_status, estimated_cc, charged_cc, complexity, duration_ms
     FROM audit_records WHERE account_id = $1 AND ${IN_RANGE} ORDER BY id DESC LIMIT $4`,
    [...rangeParams(accountId, range), limit]
  );
  return rows;
}
async function latestAudit(db, accountId, limit) {
  return auditInRange(db, accountId, void 0, limit);
}

// src/paths.ts
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
var PROJECT_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
function findRoot(from) {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}
function projectPath(...parts) {
  return join(PROJECT_ROOT, ...parts);
}

export {
  tokenScopeSchema,
  compileScope,
  requestOutOfScope,
  methodOutOfScope,
  originAllowed,
  isTokenShaped,
  hashToken,
  tokenHint,
  issueToken,
  authenticate,
  revokeToken,
  findToken,
  listTokens,
  restrictToken,
  rotateToken,
  projectPath,
  cycleAt,
  cycleContaining,
  AccountExists,
  createAccount,
  findAccount,
  listAccounts,
  setAccountPlan,
  REFUSED_OUTCOMES,
  usageByMethod,
  usageByDay,
  usageByOutcome,
  auditInRange,
  latestAudit
};
