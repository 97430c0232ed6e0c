import { createHash, randomBytes } from "node:crypto";
import type { Database, Queryable } from "../db/database.ts";

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

export async function issueToken(
  db: Queryable,
  accountId: number,
  label?: string,
): Promise<IssuedToken> {
  const token = TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString("base64url");
  const hint = tokenHint(token);
  const { rows } = await db.query<{ id: number }>(
    "INSERT INTO tokens(account_id, hash, hint, label) VALUES ($1, $2, $3, $4) RETURNING id",
    [accountId, hashToken(token), hint, label ?? null],
  );
  return { id: rows[0]!.id, accountId, token, hint };
}

export interface TokenOwner {
  tokenId: number;
  accountId: number;
  hint: string;
}

/** The live token's owner, or null for an unknown, malformed or revoked token. */
export async function authenticate(db: Queryable, token: string): Promise<TokenOwner | null> {
  if (!isTokenShaped(token)) return null;
  const { rows } = await db.query<{ id: number; account_id: number; hint: string }>(
    "SELECT id, account_id, hint FROM tokens WHERE hash = $1 AND revoked_at IS NULL",
    [hashToken(token)],
  );
  const row = rows[0];
  return row ? { tokenId: row.id, accountId: row.account_id, hint: row.hint } : null;
}

/**
 * Revokes by token id, or by the token itself. Returns false when nothing live matched. Every
 * gateway process is told (src/auth/token-cache.ts): this one at once, others within a second.
 */
export async function revokeToken(db: Database, ref: { id: number } | { token: string }) {
  const { rows } = await db.query<{ id: number }>(
    "id" in ref
      ? "UPDATE tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING id"
      : "UPDATE tokens SET revoked_at = now() WHERE hash = $1 AND revoked_at IS NULL RETURNING id",
    ["id" in ref ? ref.id : hashToken(ref.token)],
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
}

export async function listTokens(db: Queryable, accountId: number): Promise<TokenRow[]> {
  const { rows } = await db.query<{
    id: number;
    hint: string;
    label: string | null;
    created_at: Date;
    revoked_at: Date | null;
  }>(
    "SELECT id, hint, label, created_at, revoked_at FROM tokens WHERE account_id = $1 ORDER BY id",
    [accountId],
  );
  return rows.map((r) => ({
    id: r.id,
    hint: r.hint,
    label: r.label,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  }));
}
