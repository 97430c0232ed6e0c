import { createHash, hash, randomBytes } from "node:crypto";
import type { Database, Queryable } from "../db/database.ts";
import { type CompiledScope, compileScope, type TokenScope, tokenScopeSchema } from "./scope.ts";

/** `bgt_` + 43 base64url characters: 256 random bits, recognisable in logs and secret scanners. */
export const TOKEN_PREFIX = "bgt_";
const TOKEN_RE = /^bgt_[A-Za-z0-9_-]{43}$/;
const TOKEN_BYTES = 32;

export function isTokenShaped(value: string): boolean {
  return TOKEN_RE.test(value);
}

/**
 * SHA-256 is enough: a token carries 256 random bits, so there is nothing for a slow hash to
 * protect against, and look-ups stay one index probe.
 */
export function hashToken(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/**
 * hashToken(token) in base64: the token cache's key (the same digest, never the token itself).
 * One-shot crypto.hash (Node ≥ 20.12, which src/bitcoin/hash.ts already needs): cheaper than
 * createHash's object, update and digest, and the token cache pays it on every request.
 */
export function tokenCacheKey(token: string): string {
  return hash("sha256", token, "base64");
}

/** What may be shown or logged of a token: its prefix and its last four characters. */
export function tokenHint(token: string): string {
  return `${TOKEN_PREFIX}…${token.slice(-4)}`;
}

export interface IssuedToken {
  id: number;
  accountId: number;
  /** The only time the token exists in clear: shown once, never stored. */
  token: string;
  hint: string;
}

/** What a new token is given besides its account: a label, a scope, an expiry. */
export interface TokenTerms {
  label?: string | null | undefined;
  scope?: TokenScope | null | undefined;
  expiresAt?: Date | null | undefined;
}

export async function issueToken(
  db: Queryable,
  accountId: number,
  terms: TokenTerms | string = {},
): Promise<IssuedToken> {
  const { label, scope, expiresAt } = typeof terms === "string" ? { label: terms } : terms;
  const token = TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString("base64url");
  const hint = tokenHint(token);
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO tokens(account_id, hash, hint, label, scope, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
    [
      accountId,
      hashToken(token),
      hint,
      label ?? null,
      scope ? JSON.stringify(tokenScopeSchema.parse(scope)) : null,
      expiresAt ?? null,
    ],
  );
  return { id: rows[0]!.id, accountId, token, hint };
}

export interface TokenOwner {
  tokenId: number;
  accountId: number;
  hint: string;
  /** What the token may do (null or absent: anything its account may). */
  scope?: CompiledScope | null;
  /** When it stops working (rotation's deadline, or an expiry given at issue). */
  expiresAt?: Date | null;
}

/** The live token's owner, or null for an unknown, malformed, revoked or expired token. */
export async function authenticate(db: Queryable, token: string): Promise<TokenOwner | null> {
  if (!isTokenShaped(token)) return null;
  const { rows } = await db.query<OwnerRow>(
    `SELECT id, account_id, hint, scope, expires_at FROM tokens
     WHERE hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [hashToken(token)],
  );
  return ownerOf(rows[0]);
}

/**
 * The owner of live token `tokenId`, or null once it is revoked or expired: what acts for a
 * token without its text (a webhook endpoint holds its registering token's id).
 */
export async function liveOwner(db: Queryable, tokenId: number): Promise<TokenOwner | null> {
  const { rows } = await db.query<OwnerRow>(
    `SELECT id, account_id, hint, scope, expires_at FROM tokens
     WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`,
    [tokenId],
  );
  return ownerOf(rows[0]);
}

/** A token's row as its owner is read from it (also in other tables' joins). */
export interface OwnerRow {
  id: number;
  account_id: number;
  hint: string;
  scope: TokenScope | null;
  expires_at: Date | null;
}

export function ownerOf(row: OwnerRow | undefined): TokenOwner | null {
  return row
    ? {
        tokenId: Number(row.id),
        accountId: Number(row.account_id),
        hint: row.hint,
        scope: compileScope(row.scope),
        expiresAt: row.expires_at,
      }
    : null;
}

/**
 * Revokes by token id, or by the token itself. Returns false when nothing live matched. Every
 * gateway process is told (src/access/token-cache.ts): this one at once, others within a second.
 */
export async function revokeToken(
  db: Database,
  ref: { id: number } | { token: string },
  /** Only a token of this account (the self-service paths). */
  accountId?: number,
) {
  const { rows } = await db.query<{ id: number }>(
    `UPDATE tokens SET revoked_at = now()
     WHERE ${"id" in ref ? "id" : "hash"} = $1 AND revoked_at IS NULL
       AND ($2::bigint IS NULL OR account_id = $2)
     RETURNING id`,
    ["id" in ref ? ref.id : hashToken(ref.token), accountId ?? null],
  );
  for (const row of rows) await db.notify("token_revoked", String(row.id));
  return rows.length > 0;
}

export interface TokenRow {
  id: number;
  hint: string;
  label: string | null;
  createdAt: Date;
  revokedAt: Date | null;
  scope: TokenScope | null;
  expiresAt: Date | null;
}

const TOKEN_COLUMNS = "id, hint, label, created_at, revoked_at, scope, expires_at";

interface TokenRecord {
  id: number;
  hint: string;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
  scope: TokenScope | null;
  expires_at: Date | null;
}

const toRow = (r: TokenRecord): TokenRow => ({
  id: r.id,
  hint: r.hint,
  label: r.label,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
  scope: r.scope,
  expiresAt: r.expires_at,
});

/** One token of an account (revoked and expired ones too), or null. */
export async function findToken(
  db: Queryable,
  accountId: number,
  tokenId: number,
): Promise<TokenRow | null> {
  const { rows } = await db.query<TokenRecord>(
    `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE id = $1 AND account_id = $2`,
    [tokenId, accountId],
  );
  return rows[0] ? toRow(rows[0]) : null;
}

export async function listTokens(db: Queryable, accountId: number): Promise<TokenRow[]> {
  const { rows } = await db.query<TokenRecord>(
    `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE account_id = $1 ORDER BY id`,
    [accountId],
  );
  return rows.map(toRow);
}

/**
 * Replaces a live token's scope (null: unrestricted); `accountId` given, only a token of that
 * account (the self-service paths). Every process drops the token from its cache, as on
 * revocation, so the new scope applies within a second. Null when nothing live matched.
 */
export async function restrictToken(
  db: Database,
  tokenId: number,
  scope: TokenScope | null,
  accountId?: number,
): Promise<TokenRow | null> {
  const { rows } = await db.query<TokenRecord>(
    `UPDATE tokens SET scope = $2 WHERE id = $1 AND revoked_at IS NULL
       AND (expires_at IS NULL OR expires_at > now()) AND ($3::bigint IS NULL OR account_id = $3)
     RETURNING ${TOKEN_COLUMNS}`,
    [tokenId, scope ? JSON.stringify(tokenScopeSchema.parse(scope)) : null, accountId ?? null],
  );
  if (!rows[0]) return null;
  await db.notify("token_revoked", String(tokenId));
  return toRow(rows[0]);
}

/**
 * Rotation: a new token with the old one's label and scope (and no expiry), while the old one keeps
 * working until `graceMs` from now (or its own expiry, if sooner), then stops as if revoked.
 * One transaction: no instant with neither token or both rotated twice. Null when nothing live
 * matched (`accountId`: only a token of that account).
 */
export async function rotateToken(
  db: Database,
  tokenId: number,
  graceMs: number,
  accountId?: number,
): Promise<{ issued: IssuedToken; oldExpiresAt: Date } | null> {
  const rotated = await db.transaction(async (tx) => {
    const { rows } = await tx.query<TokenRecord & { account_id: number }>(
      `UPDATE tokens SET expires_at = LEAST(coalesce(expires_at, 'infinity'),
                                             now() + make_interval(secs => $2::double precision / 1000))
       WHERE id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
         AND ($3::bigint IS NULL OR account_id = $3)
       RETURNING ${TOKEN_COLUMNS}, account_id`,
      [tokenId, graceMs, accountId ?? null],
    );
    const old = rows[0];
    if (!old) return null;
    const issued = await issueToken(tx, old.account_id, {
      label: old.label,
      scope: old.scope,
      expiresAt: null,
    });
    return { issued, oldExpiresAt: old.expires_at! };
  });
  if (rotated) await db.notify("token_revoked", String(tokenId));
  return rotated;
}
