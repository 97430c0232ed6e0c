import { createHash, randomBytes } from "node:crypto";
import type { Queryable } from "../db/database.ts";
import { compileScope, type TokenScope } from "./scope.ts";
import type { TokenOwner } from "./tokens.ts";

export const SESSION_COOKIE = "bg_session";

const hash = (value: string) => createHash("sha256").update(value, "utf8").digest();

/** A new session for the token's owner; returns the cookie value (shown to the browser only). */
export async function createSession(
  db: Queryable,
  owner: TokenOwner,
  ttlMs: number,
): Promise<string> {
  const value = randomBytes(32).toString("base64url");
  await db.query(
    `INSERT INTO dashboard_sessions(hash, account_id, token_id, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4::double precision / 1000))`,
    [hash(value), owner.accountId, owner.tokenId, ttlMs],
  );
  return value;
}

/** The owner behind a live session whose token is still live; a revoked token ends its sessions. */
export async function sessionOwner(
  db: Queryable,
  value: string | undefined,
): Promise<TokenOwner | null> {
  if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) return null;
  const { rows } = await db.query<{
    account_id: number;
    token_id: number;
    hint: string;
    scope: TokenScope | null;
    expires_at: Date | null;
  }>(
    `SELECT s.account_id, s.token_id, t.hint, t.scope, t.expires_at
     FROM dashboard_sessions s JOIN tokens t ON t.id = s.token_id
     WHERE s.hash = $1 AND s.expires_at > now() AND t.revoked_at IS NULL
       AND (t.expires_at IS NULL OR t.expires_at > now())`,
    [hash(value)],
  );
  const row = rows[0];
  // The signing-in token's scope comes along: a scoped token's session cannot manage keys.
  return row
    ? {
        accountId: row.account_id,
        tokenId: row.token_id,
        hint: row.hint,
        scope: compileScope(row.scope),
        expiresAt: row.expires_at,
      }
    : null;
}

export async function endSession(db: Queryable, value: string | undefined): Promise<void> {
  if (value) await db.query("DELETE FROM dashboard_sessions WHERE hash = $1", [hash(value)]);
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return undefined;
}
