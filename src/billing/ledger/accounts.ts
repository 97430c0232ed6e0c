import type { Database, Queryable } from "../../db/database.ts";

export interface Account {
  id: number;
  name: string;
  createdAt: Date;
  /** Posted balance: granted − charged. */
  balance: number;
  /** Credits reserved by calls in flight. */
  held: number;
  /** The plan it is on (config `plans`); null: the default plan. */
  plan: string | null;
}

interface AccountRow {
  id: number;
  name: string;
  created_at: Date;
  balance: number;
  held: number;
  plan: string | null;
}

const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  name: r.name,
  createdAt: r.created_at,
  balance: r.balance,
  held: r.held,
  plan: r.plan,
});

export class AccountExists extends Error {}

export async function createAccount(db: Queryable, name: string): Promise<Account> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/.test(name)) {
    throw new Error("account name: 1-64 characters of letters, digits, '.', '_', '@', '-'");
  }
  const { rows } = await db.query<AccountRow>(
    `INSERT INTO accounts(name) VALUES ($1) ON CONFLICT (name) DO NOTHING
     RETURNING id, name, created_at, balance, held, plan`,
    [name],
  );
  if (!rows[0]) throw new AccountExists(`account "${name}" exists`);
  return toAccount(rows[0]);
}

/** By name, or by id when given a number or a string of digits. */
export async function findAccount(db: Queryable, ref: string | number): Promise<Account | null> {
  const byId = typeof ref === "number" || /^\d+$/.test(ref);
  const { rows } = await db.query<AccountRow>(
    `SELECT id, name, created_at, balance, held, plan FROM accounts WHERE ${byId ? "id" : "name"} = $1`,
    [byId ? Number(ref) : ref],
  );
  return rows[0] ? toAccount(rows[0]) : null;
}

export async function listAccounts(db: Queryable): Promise<Account[]> {
  const { rows } = await db.query<AccountRow>(
    "SELECT id, name, created_at, balance, held, plan FROM accounts ORDER BY id",
  );
  return rows.map(toAccount);
}

/**
 * Puts an account on a plan (null: the default plan). Every gateway process is told, so the new
 * limits apply within a second (the one that changed it at once).
 */
export async function setAccountPlan(
  db: Database,
  accountId: number,
  plan: string | null,
): Promise<boolean> {
  const { rows } = await db.query<{ id: number }>(
    "UPDATE accounts SET plan = $2 WHERE id = $1 RETURNING id",
    [accountId, plan],
  );
  if (rows.length === 0) return false;
  await db.notify("account_changed", String(accountId));
  return true;
}
