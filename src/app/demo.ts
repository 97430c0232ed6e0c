import { issueToken } from "../access/tokens.ts";
import { createAccount, findAccount } from "../billing/ledger/accounts.ts";
import { grantCredits } from "../billing/ledger/ledger.ts";
import type { Database } from "../db/database.ts";

export const DEMO_ACCOUNT = "demo";
const DEMO_TOKEN_LABEL = "npm start";

export interface DemoAccount {
  balance: number;
  created: boolean;
  /** The token in clear, when this start issued it; null when an earlier start's still works. */
  token: string | null;
  /** The live start-up token's hint (`bgt_0Vn7…Q-o`), whichever start issued it. */
  hint: string;
}

/**
 * The demo account `npm start` offers: created with credits on first run, with one start-up
 * token. A token exists in clear only when issued (it is stored as a hash), so the start that
 * issues it prints it; later starts keep it working and print its hint, so the token a user
 * pasted into an app survives restarts. Revoked, it is replaced by a new one at the next start.
 */
export async function prepareDemo(db: Database, credits: number): Promise<DemoAccount> {
  let account = await findAccount(db, DEMO_ACCOUNT);
  const created = !account;
  if (!account) {
    account = await createAccount(db, DEMO_ACCOUNT);
    if (credits > 0) await grantCredits(db, account.id, credits, "demo account on first start");
  }
  const id = account.id;
  return db.transaction(async (tx) => {
    const live = await tx.query<{ hint: string }>(
      "SELECT hint FROM tokens WHERE account_id = $1 AND label = $2 AND revoked_at IS NULL ORDER BY id DESC LIMIT 1",
      [id, DEMO_TOKEN_LABEL],
    );
    const issued = live.rows[0] ? null : await issueToken(tx, id, DEMO_TOKEN_LABEL);
    const { rows } = await tx.query<{ available: number }>(
      "SELECT balance - held AS available FROM accounts WHERE id = $1",
      [id],
    );
    return {
      balance: rows[0]!.available,
      created,
      token: issued?.token ?? null,
      hint: issued?.hint ?? live.rows[0]!.hint,
    };
  });
}
