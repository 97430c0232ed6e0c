// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  NETWORK_NAMES,
  RANGE_HINT,
  parseRange
} from "./chunk-M6ZRZKCO.js";

// src/auth/tokens.ts
import { createHash, hash, randomBytes } from "node:crypto";

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
  message: RANGE_HINT
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
function tokenCacheKey(token) {
  return hash("sha256", token, "base64");
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
  return ownerOf(rows[0]);
}
async function liveOwner(db, tokenId) {
  const { rows } = await db.query(
    `SELECT id, account_id, hint, scope, expires_at FROM tokens
     WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [tokenId]
  );
  return ownerOf(rows[0]);
}
function ownerOf(row) {
  return row ? {
    tokenId: Number(row.id),
    accountId: Number(row.account_id),
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

export {
  tokenScopeSchema,
  compileScope,
  requestOutOfScope,
  methodOutOfScope,
  originAllowed,
  TOKEN_PREFIX,
  isTokenShaped,
  tokenCacheKey,
  tokenHint,
  issueToken,
  authenticate,
  liveOwner,
  revokeToken,
  findToken,
  listTokens,
  restrictToken,
  rotateToken
};
