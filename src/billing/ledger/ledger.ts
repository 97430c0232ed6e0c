import type { Database, Queryable } from "../../db/database.ts";
import type { AuditInput } from "./audit.ts";
import { guarded, LedgerError } from "./errors.ts";
import { writeBatch } from "./settle-queue.ts";

export { LedgerError } from "./errors.ts";

/**
 * The two-phase ledger (reserve, then settle or void), after TigerBeetle's pending transfers.
 * Every movement is an appended ledger entry; `accounts.balance` and `accounts.held` are caches of
 * those entries updated in the same transaction, guarded in the SQL statement itself so that no
 * interleaving of gateway processes can take a balance below zero.
 */

export async function grantCredits(
  db: Database,
  accountId: number,
  amount: number,
  memo?: string,
): Promise<number> {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new Error("grant: a positive integer");
  return db.transaction((tx) => grantCreditsIn(tx, accountId, amount, memo));
}

/** grantCredits inside a transaction the caller holds (an account created with its credits). */
export async function grantCreditsIn(
  tx: Queryable,
  accountId: number,
  amount: number,
  memo?: string,
): Promise<number> {
  return (await grantEntryIn(tx, accountId, amount, memo)).balance;
}

/** A grant inside the caller's transaction, with its entry's id (what a top-up's credit names). */
export async function grantEntryIn(
  tx: Queryable,
  accountId: number,
  amount: number,
  memo?: string,
): Promise<{ balance: number; entryId: number }> {
  if (!Number.isSafeInteger(amount) || amount <= 0) throw new Error("grant: a positive integer");
  const { rows } = await tx.query<{ balance: number }>(
    "UPDATE accounts SET balance = balance + $2 WHERE id = $1 RETURNING balance",
    [accountId, amount],
  );
  if (!rows[0]) throw new Error(`no account ${accountId}`);
  const entry = await tx.query<{ id: number | string }>(
    "INSERT INTO ledger_entries(account_id, kind, amount, memo) VALUES ($1, 'grant', $2, $3) RETURNING id",
    [accountId, amount, memo ?? null],
  );
  return { balance: rows[0].balance, entryId: Number(entry.rows[0]!.id) };
}

export interface Hold {
  id: number;
  accountId: number;
  amount: number;
}

export type ReserveResult =
  | { ok: true; hold: Hold | null; available: number }
  | { ok: false; available: number; required: number };

/** Reserves `amount` CC; fails (nothing written) when the available balance is short. */
export async function reserve(
  db: Database,
  accountId: number,
  amount: number,
  /** The gateway process making the hold, so its death frees it at once (src/billing/ledger/leases.ts). */
  processId: string | null = null,
): Promise<ReserveResult> {
  if (!Number.isSafeInteger(amount) || amount < 0) throw new Error("reserve: an integer >= 0");
  if (amount === 0) return { ok: true, hold: null, available: await available(db, accountId) };
  return guarded("reserve", async () => {
    // One statement, so one round trip and the shortest hold on the account row: the guard
    // `balance - held >= amount` sits in the UPDATE that takes the credits, so concurrent
    // reservations serialise on the row and each sees the holds before it; the hold entry is
    // written by the same (atomic) statement or not at all.
    const { rows } = await db.query<{ hold_id: number | null; available: number | null }>(
      `WITH taken AS (
         UPDATE accounts SET held = held + $2 WHERE id = $1 AND balance - held - leased >= $2
         RETURNING balance - held - leased AS available
       ), hold AS (
         INSERT INTO ledger_entries(account_id, kind, amount, process_id)
         SELECT $1, 'hold', -($2::int8), $3 FROM taken RETURNING id
       )
       SELECT (SELECT id FROM hold) AS hold_id, (SELECT available FROM taken) AS available`,
      [accountId, amount, processId],
    );
    const row = rows[0];
    if (!row || row.hold_id === null || row.available === null) {
      return { ok: false as const, available: await available(db, accountId), required: amount };
    }
    return {
      ok: true as const,
      hold: { id: row.hold_id, accountId, amount },
      available: row.available,
    };
  });
}

export interface SettleResult {
  auditIds: number[];
  charged: number;
  /** Available balance after settling. */
  available: number;
}

/**
 * Closes a hold: releases it, charges what the records say was charged, and writes the audit
 * records — one transaction, so a charge never exists without its audit record or the reverse.
 */
export async function settle(
  db: Database,
  accountId: number,
  hold: Hold | null,
  records: readonly AuditInput[],
): Promise<SettleResult> {
  try {
    return await settleOnce(db, accountId, hold, records);
  } catch (err) {
    // Nothing of the failed settle was written (one statement). Its hold is released at once,
    // in a statement of its own, rather than blocking the account's credits until the sweeper.
    if (hold) await settleOnce(db, accountId, hold, []).catch(() => {});
    throw err;
  }
}

async function settleOnce(
  db: Database,
  accountId: number,
  hold: Hold | null,
  records: readonly AuditInput[],
): Promise<SettleResult> {
  // One atomic statement (the settle queue's, with one item): release, audit records and their
  // charge entries are always committed together (invariants 2 and 3).
  const [out] = await guarded("settle", () =>
    writeBatch(db, [
      {
        accountId,
        hold: hold ? { id: hold.id, amount: hold.amount } : null,
        leaseId: null,
        records,
      },
    ]),
  );
  if (!out) throw new LedgerError("settle", new Error(`no account ${accountId}`));
  return out;
}

export async function available(db: Queryable, accountId: number): Promise<number> {
  const { rows } = await db.query<{ available: number }>(
    "SELECT balance - held - leased AS available FROM accounts WHERE id = $1",
    [accountId],
  );
  return rows[0]?.available ?? 0;
}

/**
 * Voids holds older than `olderThanMs` that were never settled: the process that made them died
 * between reserve and settle. Their calls were not answered, so they are not charged.
 */
export async function voidStaleHolds(db: Database, olderThanMs: number): Promise<number> {
  const { rows } = await db.query<{ id: number; account_id: number; amount: number }>(
    `SELECT h.id, h.account_id, -h.amount AS amount FROM ledger_entries h
     WHERE h.kind = 'hold' AND h.at < now() - make_interval(secs => $1::double precision / 1000)
       AND NOT EXISTS (SELECT 1 FROM ledger_entries r WHERE r.kind = 'release' AND r.hold_id = h.id)`,
    [olderThanMs],
  );
  let voided = 0;
  for (const h of rows) {
    try {
      await settle(db, h.account_id, { id: h.id, accountId: h.account_id, amount: h.amount }, []);
      voided += 1;
    } catch {
      // Settled concurrently by its own request or by another sweeper: nothing to do.
    }
  }
  return voided;
}

export interface LedgerCheck {
  accountId: number;
  balance: number;
  held: number;
  granted: number;
  charged: number;
  auditCharged: number;
  openHolds: number;
  /** Credits leased to gateway processes and not yet charged (accounts.leased). */
  leased: number;
  /** The same, recomputed from the lease, lease_return and lease charge entries. */
  openLeases: number;
  entriesSum: number;
  ok: boolean;
}

/** Recomputes every account from its entries and audit records: invariants 1 and 2. */
export async function checkLedger(db: Queryable): Promise<LedgerCheck[]> {
  const { rows } = await db.query<Omit<LedgerCheck, "ok">>(
    `SELECT a.id AS "accountId", a.balance, a.held,
       COALESCE((SELECT sum(amount) FROM ledger_entries e WHERE e.account_id = a.id AND kind = 'grant'), 0)::int8 AS granted,
       COALESCE((SELECT -sum(amount) FROM ledger_entries e WHERE e.account_id = a.id AND kind = 'charge'), 0)::int8 AS charged,
       COALESCE((SELECT sum(charged_cc) FROM audit_records r WHERE r.account_id = a.id), 0)::int8 AS "auditCharged",
       COALESCE((SELECT -sum(amount) FROM ledger_entries e WHERE e.account_id = a.id AND kind IN ('hold', 'release')), 0)::int8 AS "openHolds",
       a.leased,
       (COALESCE((SELECT -sum(amount) FROM ledger_entries e WHERE e.account_id = a.id AND kind IN ('lease', 'lease_return')), 0)
        + COALESCE((SELECT sum(amount) FROM ledger_entries e WHERE e.account_id = a.id AND kind = 'charge' AND hold_id IS NOT NULL), 0))::int8 AS "openLeases",
       COALESCE((SELECT sum(amount) FROM ledger_entries e WHERE e.account_id = a.id AND NOT (kind = 'charge' AND hold_id IS NOT NULL)), 0)::int8 AS "entriesSum"
     FROM accounts a ORDER BY a.id`,
  );
  return rows.map((r) => ({
    ...r,
    ok:
      r.balance >= 0 &&
      r.held >= 0 &&
      r.granted - r.charged === r.balance &&
      r.auditCharged === r.charged &&
      r.leased >= 0 &&
      r.openHolds === r.held &&
      r.openLeases === r.leased &&
      r.entriesSum === r.balance - r.held - r.leased,
  }));
}
