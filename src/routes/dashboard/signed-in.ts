import type { FastifyRequest } from "fastify";
import { readCookie, SESSION_COOKIE, sessionOwner } from "../../access/sessions.ts";
import { findAccount } from "../../billing/ledger/accounts.ts";
import type { Queryable } from "../../db/database.ts";

/** Who a dashboard session belongs to, as pages under /dashboard name them. */
export interface SignedIn {
  account: string;
  /** The signing-in key's hint (its first and last characters), never the key. */
  hint: string;
}

/** The session's account and key hint, or null without a live session. */
export function signedInAs(db: Queryable) {
  return async (request: FastifyRequest): Promise<SignedIn | null> => {
    const owner = await sessionOwner(db, readCookie(request.headers.cookie, SESSION_COOKIE));
    if (!owner) return null;
    const account = await findAccount(db, owner.accountId);
    return account ? { account: account.name, hint: owner.hint } : null;
  };
}
