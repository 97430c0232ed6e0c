import type { Queryable } from "../../db/database.ts";
import { type AuditInput, auditColumns, auditColumnsFromJson, INSERT_RECS } from "./audit.ts";
import { LedgerError } from "./errors.ts";
import type { Settled } from "./settle-queue.ts";

/**
 * Direct charges: a delivery whose work is already done (a chain event, made once for all its
 * subscribers) is charged in one guarded statement — the account's balance, its audit records and
 * their charge entries together — with no hold or lease before it. A block announced to a thousand
 * subscribers of a thousand accounts is one statement, where reserving first took a lease per
 * account (a statement for them all, and its return later) and then the settle. What an account
 * cannot pay for in full is not written at all: its caller goes the usual way (reserve, recall,
 * refusal), which alone knows how to recall leased credits and word the refusal.
 */

/** One delivery's charge: its records (charges included), all for one account. */
export interface DirectItem {
  accountId: number;
  records: readonly AuditInput[];
}

interface Ask {
  item: DirectItem;
  resolve(out: Settled | null): void;
  reject(err: unknown): void;
}

/**
 * Gathers the direct charges asked in one turn of the event loop (every subscriber of one event)
 * into statements of at most `rowsMax` records; each caller's promise resolves once its statement
 * is committed (invariant 3), with null when its account could not pay for all of that
 * statement's items of it. Each statement is sent before the callers of the one before it are
 * answered: on PostgreSQL, the server writes the next part while this process delivers the last.
 */
export class DirectCharges {
  private asks: Ask[] = [];
  private scheduled = false;
  /** The statements being written, for flushed(). */
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly db: Queryable,
    private readonly rowsMax: number,
  ) {}

  charge(item: DirectItem): Promise<Settled | null> {
    return new Promise<Settled | null>((resolve, reject) => {
      this.asks.push({ item, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        const done: Promise<void> = this.flush(this.asks.splice(0)).finally(() =>
          this.writing.delete(done),
        );
        this.writing.add(done);
      });
    });
  }

  /** Resolves once everything asked so far has been written (or has failed). */
  async flushed(): Promise<void> {
    while (this.scheduled || this.writing.size > 0) {
      if (this.writing.size > 0) await Promise.all(this.writing);
      else await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private async flush(asks: Ask[]): Promise<void> {
    const batches: Ask[][] = [];
    for (let start = 0; start < asks.length; ) {
      let rows = asks[start]!.item.records.length;
      let end = start + 1;
      while (end < asks.length && rows + asks[end]!.item.records.length <= this.rowsMax) {
        rows += asks[end]!.item.records.length;
        end++;
      }
      batches.push(asks.slice(start, end));
      start = end;
    }
    const write = (batch: Ask[]) =>
      chargeDirect(
        this.db,
        batch.map((a) => a.item),
      ).then(
        (out) => ({ out, err: null }),
        (err: unknown) => ({ out: null, err }),
      );
    if (batches.length === 0) return;
    let writing = write(batches[0]!);
    for (const [k, batch] of batches.entries()) {
      const { out, err } = await writing;
      const next = batches[k + 1];
      if (next) writing = write(next);
      for (const [i, a] of batch.entries()) {
        if (out) a.resolve(out[i] ?? null);
        else a.reject(err);
      }
    }
  }
}

/**
 * Charges the items in one statement: each account pays for all of its items of the statement, or
 * for none (null for each of them: nothing of it written). The guard is a reservation's,
 * `balance − held − leased ≥ cost`, in the update that takes the credits; the charge entries name
 * no hold or lease, as a per-call hold's charge does not.
 */
export async function chargeDirect(
  db: Queryable,
  items: readonly DirectItem[],
): Promise<(Settled | null)[]> {
  const costs = new Map<number, number>();
  const charged: number[] = [];
  const recRows: unknown[][] = [];
  for (const item of items) {
    const cost = item.records.reduce((sum, r) => sum + r.chargedCc, 0);
    charged.push(cost);
    costs.set(item.accountId, (costs.get(item.accountId) ?? 0) + cost);
    for (const record of item.records) recRows.push([item.accountId, ...auditColumns(record)]);
  }
  let row: { audit_ids: number[] | null; accounts: number[] | null; available: number[] | null };
  try {
    const { rows } = await db.query<typeof row>(DIRECT_CHARGES, [
      JSON.stringify([...costs]),
      JSON.stringify(recRows),
    ]);
    row = rows[0] ?? { audit_ids: null, accounts: null, available: null };
  } catch (err) {
    throw new LedgerError("direct charge", err);
  }
  const availableOf = new Map<number, number>();
  (row.accounts ?? []).forEach((id, k) => {
    availableOf.set(Number(id), Number(row.available?.[k]));
  });
  // The records of the accounts charged were written in order: their ids, in that order.
  const ids = (row.audit_ids ?? []).map(Number);
  let next = 0;
  return items.map((item, i) => {
    const available = availableOf.get(item.accountId);
    if (available === undefined) return null;
    const auditIds = ids.slice(next, next + item.records.length);
    next += item.records.length;
    return { auditIds, charged: charged[i] as number, available };
  });
}

// $1: [account_id, cost] once per account; $2: each record's account_id, then audit.ts
// auditColumns' order. The update comes first: the records are written only for the accounts it
// charged. The references are the triggers' to check (migration 011), as for any statement but
// the settle's.
const DIRECT_CHARGES = `WITH costs AS (
     SELECT (e->>0)::int8 AS account_id, (e->>1)::int8 AS cost
     FROM jsonb_array_elements($1::jsonb) e
   ), taken AS (
     UPDATE accounts a SET balance = a.balance - c.cost
     FROM costs c
     WHERE a.id = c.account_id AND a.balance - a.held - a.leased >= c.cost
     RETURNING a.id, a.balance - a.held AS available
   ), recs AS MATERIALIZED (
     SELECT nextval('audit_records_id_seq') AS id, (e->>0)::int8 AS account_id,
       ${auditColumnsFromJson(1)}, ord
     FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS r(e, ord)
     WHERE (e->>0)::int8 IN (SELECT id FROM taken)
   ), aud AS (
     ${INSERT_RECS}
   ), chg AS (
     INSERT INTO ledger_entries(account_id, kind, amount, audit_id)
     SELECT r.account_id, 'charge', -r.charged_cc, r.id FROM recs r WHERE r.charged_cc > 0
     RETURNING 1
   )
   SELECT (SELECT array_agg(id ORDER BY ord) FROM recs) AS audit_ids,
     (SELECT array_agg(id ORDER BY id) FROM taken) AS accounts,
     (SELECT array_agg(available ORDER BY id) FROM taken) AS available
   FROM (SELECT count(*) FROM aud) a, (SELECT count(*) FROM chg) c`;
