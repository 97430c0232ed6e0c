import { expect } from "vitest";
import { issueToken } from "../../src/access/tokens.ts";
import { createAccount } from "../../src/billing/ledger/accounts.ts";
import { checkLedger, grantCredits, type LedgerCheck } from "../../src/billing/ledger/ledger.ts";
import type { Database } from "../../src/db/database.ts";
import { auditByOutcome } from "./audit.ts";

/** An account made on `db` directly (no gateway at hand), granted `credits`, with a token. */
export async function fundedAccount(db: Database, name: string, credits: number) {
  const account = await createAccount(db, name);
  if (credits > 0) await grantCredits(db, account.id, credits);
  const issued = await issueToken(db, account.id);
  return { id: account.id, token: issued.token, tokenId: issued.id };
}

export interface Balance {
  balance: number;
  held: number;
  leased: number;
  /** What the account is shown as available: balance − held (leased credits are still its own). */
  available: number;
}

/** An account's credits, by its id or its name. */
export async function balanceOf(db: Database, account: number | string): Promise<Balance> {
  const by = typeof account === "number" ? "id" : "name";
  const { rows } = await db.query<Balance>(
    `SELECT balance, held, leased, balance - held AS available FROM accounts WHERE ${by} = $1`,
    [account],
  );
  if (!rows[0]) throw new Error(`no account ${account}`);
  return rows[0];
}

/** An account's balance and holds, and its audit records counted and summed by outcome. */
export async function accountTotals(db: Database, accountId: number) {
  const { balance, held } = await balanceOf(db, accountId);
  return { account: { balance, held }, audit: await auditByOutcome(db, { accountId }) };
}

/**
 * The ledger's invariants hold for the account (balances equal the sum of its entries, the audit
 * records' charges equal its charge entries, holds and leases match their entries: see
 * `checkLedger`), and its figures are `expected`. Returns its check.
 */
export async function expectLedgerOk(
  db: Database,
  accountId: number,
  expected: Partial<LedgerCheck> = {},
): Promise<LedgerCheck> {
  const check = (await checkLedger(db)).find((c) => c.accountId === accountId);
  expect(check).toMatchObject({ ...expected, ok: true });
  return check!;
}

/** The ledger's invariants hold for every account. */
export async function expectWholeLedgerOk(db: Database): Promise<void> {
  const broken = (await checkLedger(db)).filter((c) => !c.ok);
  expect(broken).toEqual([]);
}

/**
 * After a race of requests on an account that was granted exactly `paid` × `price` CC: `paid` of
 * them were charged `price` each and the rest refused with 429, each with its one audit record,
 * the balance is spent to zero with nothing left held, and the ledger checks out.
 */
export async function expectSpentExactly(
  db: Database,
  accountId: number,
  o: { paid: number; refused: number; price: number },
): Promise<void> {
  const totals = await accountTotals(db, accountId);
  expect(totals.account).toEqual({ balance: 0, held: 0 });
  expect(totals.audit).toEqual([
    { outcome: "insufficient_credits", n: o.refused, charged: 0 },
    { outcome: "ok", n: o.paid, charged: o.paid * o.price },
  ]);
  await expectLedgerOk(db, accountId, { charged: o.paid * o.price, balance: 0, held: 0 });
}
