import type { Database, Queryable } from "../../db/database.ts";
import { LedgerError } from "./errors.ts";

/**
 * Credit leases and the processes that own them (migration 004). A lease takes credits from an
 * account for one gateway process in one guarded statement; the process then reserves each call
 * against it in memory (src/billing/ledger/credits.ts), and each charge taken from it lowers `held` and
 * `balance` together in the settle batch. A lease ends in one `lease_return` of what its charges
 * did not use — given back by its process, or, when the process died, by whoever notices first.
 */

export interface Lease {
  id: number;
  accountId: number;
  amount: number;
}

/**
 * Takes `amount` CC as a lease for `processId`, only if the account keeps at least `keep` CC
 * available besides (so that other processes and per-call holds still find credits). Null when
 * the balance is short: the caller falls back to per-call holds.
 */
export async function takeLease(
  db: Queryable,
  accountId: number,
  amount: number,
  keep: number,
  processId: string,
): Promise<{ lease: Lease; available: number } | null> {
  const [taken] = await takeLeases(db, processId, [{ accountId, amount, keep }]);
  return taken ?? null;
}

/**
 * takeLease for several accounts (each once) in one statement: each lease is taken only where its account
 * keeps `keep` available besides, as alone. One result per ask, in order (null: not taken).
 */
export async function takeLeases(
  db: Queryable,
  processId: string,
  asks: readonly { accountId: number; amount: number; keep: number }[],
): Promise<({ lease: Lease; available: number } | null)[]> {
  if (asks.length === 0) return [];
  try {
    const { rows } = await db.query<{ ord: number; lease_id: number; available: number }>(
      `WITH asked AS (
         SELECT (e->>0)::int8 AS account_id, (e->>1)::int8 AS amount, (e->>2)::int8 AS keep, ord
         FROM jsonb_array_elements($1::jsonb) WITH ORDINALITY AS r(e, ord)
       ), taken AS (
         UPDATE accounts a SET leased = a.leased + q.amount
         FROM asked q
         WHERE a.id = q.account_id AND a.balance - a.held - a.leased >= q.amount + q.keep
         RETURNING a.id, a.balance - a.held AS available, q.amount, q.ord
       ), lease AS (
         INSERT INTO ledger_entries(account_id, kind, amount, process_id)
         SELECT id, 'lease', -amount, $2 FROM taken RETURNING id, account_id
       )
       SELECT t.ord, l.id AS lease_id, t.available
       FROM taken t JOIN lease l ON l.account_id = t.id`,
      [JSON.stringify(asks.map((a) => [a.accountId, a.amount, a.keep])), processId],
    );
    const out: ({ lease: Lease; available: number } | null)[] = asks.map(() => null);
    for (const row of rows) {
      const ask = asks[Number(row.ord) - 1];
      if (!ask) continue;
      out[Number(row.ord) - 1] = {
        lease: { id: Number(row.lease_id), accountId: ask.accountId, amount: ask.amount },
        available: Number(row.available),
      };
    }
    return out;
  } catch (err) {
    throw new LedgerError("lease", err);
  }
}

/**
 * Ends a lease: gives back what its charges did not use. Only its own process may call this once
 * every charge taken from the lease has been written (the settle queue is flushed for it); a lease
 * already ended (by a sweep) is left as it is. Returns the account's available balance after.
 */
export async function returnLease(db: Queryable, leaseId: number): Promise<number | null> {
  const [available] = (await returnLeases(db, [leaseId])).values();
  return available ?? null;
}

/**
 * Ends several leases in one statement (each as returnLease does); each account's available
 * balance after, by account id.
 */
export async function returnLeases(
  db: Queryable,
  leaseIds: readonly number[],
): Promise<Map<number, number>> {
  const { rows } = await db.query<{ id: number; available: number }>(
    `${RETURN_LEASES}
     SELECT id, available FROM acc`,
    [leaseIds],
  );
  return new Map(rows.map((r) => [Number(r.id), Number(r.available)]));
}

/**
 * Ends the leases and releases the holds of `leaseIds`/holds given as one id list: the return is
 * what the lease's charges did not use, computed from its entries; a hold is released whole.
 * Leases or holds already closed are skipped (the unique index makes a second close impossible).
 */
const RETURN_LEASES = `WITH open AS (
     SELECT e.id, e.account_id, e.kind, -e.amount AS size,
       COALESCE((SELECT -sum(c.amount) FROM ledger_entries c
                 WHERE c.kind = 'charge' AND c.hold_id = e.id), 0) AS used
     FROM ledger_entries e
     WHERE e.id = ANY($1::int8[]) AND e.kind IN ('lease', 'hold')
       AND NOT EXISTS (SELECT 1 FROM ledger_entries x
                       WHERE x.hold_id = e.id AND x.kind IN ('lease_return', 'release'))
   ), closed AS (
     INSERT INTO ledger_entries(account_id, kind, amount, hold_id)
     SELECT account_id, CASE kind WHEN 'lease' THEN 'lease_return' ELSE 'release' END,
       CASE kind WHEN 'lease' THEN size - used ELSE size END, id
     FROM open RETURNING account_id, kind, amount
   ), acc AS (
     UPDATE accounts a SET held = a.held - s.released, leased = a.leased - s.returned
     FROM (SELECT account_id,
             sum(CASE kind WHEN 'release' THEN amount ELSE 0 END) AS released,
             sum(CASE kind WHEN 'lease_return' THEN amount ELSE 0 END) AS returned
           FROM closed GROUP BY account_id) s
     WHERE a.id = s.account_id
     RETURNING a.id, a.balance - a.held AS available
   )`;

/** Registers this process; voids what earlier incarnations of the same instance left open. */
export async function registerProcess(
  db: Database,
  processId: string,
  instance: string,
): Promise<{ voided: number }> {
  return db.transaction(async (tx) => {
    const { rows: dead } = await tx.query<{ id: string }>(
      `UPDATE gateway_processes SET stopped_at = now()
       WHERE instance = $1 AND stopped_at IS NULL RETURNING id`,
      [instance],
    );
    const voided = await voidOpenOf(
      tx,
      dead.map((d) => d.id),
    );
    await tx.query("INSERT INTO gateway_processes(id, instance) VALUES ($1, $2)", [
      processId,
      instance,
    ]);
    return { voided };
  });
}

/** Keeps this process's leases alive; false if it was declared dead meanwhile (its leases void). */
export async function heartbeat(db: Queryable, processId: string): Promise<boolean> {
  const { rows } = await db.query(
    `UPDATE gateway_processes SET heartbeat_at = now()
     WHERE id = $1 AND stopped_at IS NULL RETURNING id`,
    [processId],
  );
  return rows.length > 0;
}

/** Marks this process stopped (after it returned its leases). */
export async function unregisterProcess(db: Queryable, processId: string): Promise<void> {
  await db.query("UPDATE gateway_processes SET stopped_at = now() WHERE id = $1", [processId]);
}

/**
 * The sweep: processes whose heartbeat is older than `ttlMs` are dead; their leases are returned
 * and their holds released (their calls were never answered, so nothing is charged for them).
 */
export async function sweepDeadProcesses(db: Database, ttlMs: number): Promise<number> {
  return db.transaction(async (tx) => {
    const { rows: dead } = await tx.query<{ id: string }>(
      `UPDATE gateway_processes SET stopped_at = now()
       WHERE stopped_at IS NULL
         AND heartbeat_at < now() - make_interval(secs => $1::double precision / 1000)
       RETURNING id`,
      [ttlMs],
    );
    return voidOpenOf(
      tx,
      dead.map((d) => d.id),
    );
  });
}

/** Closes every open lease and hold of the given processes; how many were closed. */
async function voidOpenOf(tx: Queryable, processIds: string[]): Promise<number> {
  if (processIds.length === 0) return 0;
  const { rows: open } = await tx.query<{ id: number }>(
    `SELECT e.id FROM ledger_entries e
     WHERE e.kind IN ('lease', 'hold') AND e.process_id = ANY($1::text[])
       AND NOT EXISTS (SELECT 1 FROM ledger_entries x
                       WHERE x.hold_id = e.id AND x.kind IN ('lease_return', 'release'))`,
    [processIds],
  );
  if (open.length === 0) return 0;
  await tx.query(`${RETURN_LEASES} SELECT 1`, [open.map((o) => Number(o.id))]);
  return open.length;
}
