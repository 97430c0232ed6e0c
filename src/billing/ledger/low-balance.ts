import type { Queryable } from "../../db/database.ts";

/**
 * An account's low-balance threshold: below it, its owner is warned (the dashboard's banner).
 * Null: no warning. Kept beside the balance, never part of it.
 */
export async function lowBalanceOf(db: Queryable, accountId: number): Promise<number | null> {
  const { rows } = await db.query<{ cc: number | string | null }>(
    "SELECT low_balance_cc AS cc FROM accounts WHERE id = $1",
    [accountId],
  );
  const cc = rows[0]?.cc;
  return cc === null || cc === undefined ? null : Number(cc);
}

/** Sets (or, with null, clears) the threshold. */
export async function setLowBalance(
  db: Queryable,
  accountId: number,
  cc: number | null,
): Promise<void> {
  await db.query("UPDATE accounts SET low_balance_cc = $2 WHERE id = $1", [accountId, cc]);
}
