import { createAccount, findAccount } from "../accounts/accounts.ts";
import { issueToken } from "../auth/tokens.ts";
import type { Database } from "../db/database.ts";
import { grantCredits } from "../ledger/ledger.ts";

export const DEMO_ACCOUNT = "demo";
const DEMO_TOKEN_LABEL = "npm start";

/**
 * The demo account `npm start` offers: created with credits on first run. A token exists in clear
 * only when issued, so each start issues a fresh one and revokes the one the previous start
 * printed, leaving exactly one live start-up token.
 */
export async function prepareDemo(
  db: Database,
  credits: number,
): Promise<{ token: string; balance: number; created: boolean }> {
  let account = await findAccount(db, DEMO_ACCOUNT);
  const created = !account;
  if (!account) {
    account = await createAccount(db, DEMO_ACCOUNT);
    if (credits > 0) await grantCredits(db, account.id, credits, "demo account on first start");
  }
  const id = account.id;
  return db.transaction(async (tx) => {
    await tx.query(
      "UPDATE tokens SET revoked_at = now() WHERE account_id = $1 AND label = $2 AND revoked_at IS NULL",
      [id, DEMO_TOKEN_LABEL],
    );
    const issued = await issueToken(tx, id, DEMO_TOKEN_LABEL);
    const { rows } = await tx.query<{ available: number }>(
      "SELECT balance - held AS available FROM accounts WHERE id = $1",
      [id],
    );
    return { token: issued.token, balance: rows[0]!.available, created };
  });
}
