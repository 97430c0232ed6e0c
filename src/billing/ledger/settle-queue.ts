import type { Database } from "../../db/database.ts";
import { type AuditInput, auditColumns, auditColumnsFromJson, INSERT_RECS } from "./audit.ts";
import { BatchGather } from "./batch-gather.ts";
import { LedgerError } from "./errors.ts";

/**
 * Group commit for settles: what concurrent calls settle — charges, the release of their holds,
 * their audit records — is written together, one SQL statement (one implicit transaction, one WAL
 * flush, one update of each account row) per batch. A batch starts as soon as the previous one has
 * committed, so under load batches grow by themselves and an idle gateway commits at once (no
 * timer: the added latency at concurrency 1 is one statement). Each caller's promise resolves only
 * when its batch has committed (invariant 3); a batch that fails is retried item by item, so one
 * bad item fails alone, with nothing of it written.
 */

/** One request's settle: what it releases, and its audit records (their charges included). */
export interface SettleItem {
  accountId: number;
  /** A per-call hold to release in full (the charges are taken from the balance). */
  hold: { id: number; amount: number } | null;
  /** A lease the charges are taken from (held and balance go down together). */
  leaseId: number | null;
  records: readonly AuditInput[];
  /** The request's Idempotency-Key: marked settled in the same statement as its charges. */
  idempotencyKey?: string | null;
}

export interface Settled {
  auditIds: number[];
  charged: number;
  /** The account's balance − held after the batch that wrote this item: what it is shown as
   * available (credits leased to processes and not yet charged are still its own). */
  available: number;
}

export interface SettleQueueOptions {
  /** Most audit records one statement writes. */
  batchRowsMax: number;
  /** Most records waiting; a caller beyond it waits for room (rows are never dropped). */
  pendingRowsMax: number;
  /** Longest a statement waits for the rest of its batch under load, in µs (batch-gather.ts); 0: never. */
  gatherMaxUs?: number;
  /** The gather's clock (ms; performance.now): a test's own, so that its pace is not the machine's. */
  gatherClock?: () => number;
  /** The store executes statements in this process (PGlite): see gatheredInProcess. */
  inProcess?: boolean;
  /**
   * How many calls the clients keep in flight, recently (src/http/recent-load.ts): in process,
   * a statement waits for that many, not only for the calls executing (gatheredInProcess).
   */
  callsInFlight?: () => number;
}

/**
 * Most calls an in-process statement waits for that have not arrived yet (gatheredInProcess):
 * past some sixteen calls a statement's fixed cost is less than its calls' own, and a longer wait
 * delays every call it holds.
 */
const RETURNING_MAX = 16;

/** Settle statements executing at once (see drain). */
const BATCHES_IN_FLIGHT = 2;

interface Pending {
  item: SettleItem;
  rows: number;
  resolve(out: Settled): void;
  reject(err: unknown): void;
}

export class SettleQueue {
  private queue: Pending[] = [];
  private queuedRows = 0;
  private flushing: Promise<void> | null = null;
  private waitingForRoom: (() => void)[] = [];
  private readonly gather: BatchGather;
  /** Calls executing that will settle next (see `coming`). */
  private executing = 0;
  /** Wakes a statement waiting for the rest of its batch (see `changed`). */
  private wake: (() => void) | null = null;
  /** Statements written and items settled, for metrics and benchmarks. */
  readonly stats = { batches: 0, items: 0, rows: 0, failedBatches: 0, peakQueuedRows: 0 };

  constructor(
    private readonly db: Database,
    private readonly opts: SettleQueueOptions,
  ) {
    this.gather = new BatchGather(opts.gatherMaxUs ?? 0, opts.gatherClock);
  }

  /** Settles one request's records; resolves once they and their charges are committed. */
  async settle(item: SettleItem): Promise<Settled> {
    const rows = Math.max(1, item.records.length);
    // Backpressure: a full queue slows callers down; it never drops what they settle.
    while (this.queuedRows > 0 && this.queuedRows + rows > this.opts.pendingRowsMax) {
      await new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
    }
    return new Promise<Settled>((resolve, reject) => {
      this.queue.push({ item, rows, resolve, reject });
      this.queuedRows += rows;
      this.gather.arrival();
      this.stats.peakQueuedRows = Math.max(this.stats.peakQueuedRows, this.queuedRows);
      this.changed();
      this.kick();
    });
  }

  /**
   * A call begins executing and will settle once it has: under load on a store whose statements
   * run in this process, the next statement waits a moment for it (see gathered()). The function
   * returned says it is done executing (whether or not it settles); calling it again does nothing.
   */
  coming(): () => void {
    this.executing += 1;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.executing -= 1;
      this.changed();
    };
  }

  /** Resolves when everything queued so far has been written (or has failed). */
  async flushed(): Promise<void> {
    while (this.flushing || this.queue.length > 0) {
      this.kick();
      await this.flushing;
    }
  }

  private kick(): void {
    if (this.flushing) return;
    this.flushing = this.drain().finally(() => {
      this.flushing = null;
      if (this.queue.length > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    // Let the calls that are settling in this turn of the event loop join the first batch.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Two statements in flight: while one waits for its commit (the WAL flush), the next is
    // executed; they meet on the account row, whose lock the second takes as the first commits.
    const writing = new Set<Promise<void>>();
    while (this.queue.length > 0 || writing.size > 0) {
      if (this.queue.length === 0 || writing.size >= BATCHES_IN_FLIGHT) {
        await Promise.race(writing);
        continue;
      }
      await this.gathered();
      const batch: Pending[] = [];
      let rows = 0;
      while (this.queue.length > 0) {
        const next = this.queue[0] as Pending;
        if (batch.length > 0 && rows + next.rows > this.opts.batchRowsMax) break;
        this.queue.shift();
        batch.push(next);
        rows += next.rows;
      }
      this.gather.taken(batch.length);
      const done: Promise<void> = this.write(batch).then(() => {
        writing.delete(done);
        this.queuedRows -= rows;
        for (const wake of this.waitingForRoom.splice(0)) wake();
      });
      writing.add(done);
    }
  }

  /** Waits, under load, for the calls the next batch is expected to hold (batch-gather.ts). */
  private async gathered(): Promise<void> {
    if (this.opts.inProcess) return this.gatheredInProcess();
    const plan = this.gather.plan(this.queue.length);
    if (!plan) return;
    // (queuedRows counts a statement in flight too: a full batch ends the wait no later.)
    while (
      this.queue.length < plan.calls &&
      this.queuedRows < this.opts.batchRowsMax &&
      this.gather.now() < plan.until
    ) {
      await this.nextChange(plan.until);
    }
  }

  /**
   * On a store whose statements execute in this process (PGlite), a statement's cost is this
   * process's CPU, fixed whatever its size, and no other work runs while it executes: so the next
   * statement waits, up to `gatherMaxUs`, for the calls still executing to queue their settles,
   * and for as many calls as the clients keep in flight. The latter are the calls answered by the
   * statement before, on their way back: left to itself a closed loop of clients splits in two
   * halves, each settled while the other comes back, and every call pays half a statement more. A
   * call alone never waits: it is not executing any more and is all a client keeps in flight.
   */
  private async gatheredInProcess(): Promise<void> {
    const maxUs = this.opts.gatherMaxUs ?? 0;
    if (maxUs <= 0) return;
    const expected = Math.min(Math.round(this.opts.callsInFlight?.() ?? 0), RETURNING_MAX);
    const waiting = () => this.executing > 0 || this.queue.length < expected;
    if (!waiting()) return;
    const until = this.gather.now() + maxUs / 1000;
    while (waiting() && this.queuedRows < this.opts.batchRowsMax && this.gather.now() < until) {
      await this.nextChange(until);
    }
  }

  /** A settle was queued, or a call is done executing: a statement waiting for them looks again. */
  private changed(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  /**
   * Resolves a turn of the event loop after the next change (`changed`: what the changing call
   * does next in its turn, such as settling once done executing, is then seen), or once `until`
   * (the gather's clock) may have passed. A wait, not turns of the event loop one after another:
   * each turn with nothing to do costs the process CPU, and a statement could wait through many
   * of them. The timer is only the bound (no timer is finer than a millisecond; the clock is read
   * again when it fires).
   */
  private nextChange(until: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === wake) this.wake = null;
        resolve();
      };
      const wake = () => setImmediate(done);
      const timer = setTimeout(done, Math.max(1, Math.ceil(until - this.gather.now())));
      this.wake = wake;
    });
  }

  private async write(batch: Pending[]): Promise<void> {
    try {
      const started = performance.now();
      const out = await writeBatch(
        this.db,
        batch.map((p) => p.item),
      );
      this.gather.wrote(performance.now() - started);
      this.stats.batches += 1;
      this.stats.items += batch.length;
      this.stats.rows += out.reduce((n, o) => n + o.auditIds.length, 0);
      for (const [i, p] of batch.entries()) p.resolve(out[i] as Settled);
    } catch (err) {
      this.stats.failedBatches += 1;
      if (batch.length === 1) {
        (batch[0] as Pending).reject(
          err instanceof LedgerError ? err : new LedgerError("settle", err),
        );
        return;
      }
      // One bad item (or a deadlock with another process) must not fail the others: each is
      // written alone, and only what fails alone is failed.
      for (const p of batch) await this.write([p]);
    }
  }
}

/** Writes the items in one statement; one result per item, in order. */
export async function writeBatch(db: Database, items: readonly SettleItem[]): Promise<Settled[]> {
  // The batch goes as two jsonb parameters, an array of rows each (settleText reads them back by
  // position), rather than a typed array per column: pg encodes arrays element by element in
  // JavaScript, where one JSON.stringify costs a fraction, and PostgreSQL's side costs the same
  // (bench/settle.ts). jsonb, not json: `->>` on json scans the element's text for every field.
  const itemRows: unknown[][] = [];
  const recRows: unknown[][] = [];
  const itemCharged: number[] = [];
  let holds = false;
  let idempotency = false;
  for (const item of items) {
    const charged = item.records.reduce((sum, r) => sum + r.chargedCc, 0);
    const held = item.hold?.amount ?? 0;
    if (item.hold && charged > held) {
      throw new LedgerError("settle", new Error(`charge ${charged} exceeds hold ${held}`));
    }
    // A per-call hold is released whole; a lease gives up exactly what was charged from it.
    const leaseUsed = item.leaseId !== null ? charged : 0;
    if (charged > 0 && !item.hold && leaseUsed === 0) {
      throw new LedgerError("settle", new Error("a charge without a hold or a lease"));
    }
    const key = item.idempotencyKey ?? null;
    holds ||= item.hold !== null;
    idempotency ||= key !== null;
    itemCharged.push(charged);
    itemRows.push([item.accountId, charged, held, item.hold?.id ?? null, leaseUsed, key]);
    for (const record of item.records) {
      // Read back by position: account_id, lease_id, then auditColumns' order (settleText).
      recRows.push([item.accountId, item.leaseId, ...auditColumns(record)]);
    }
  }
  // The CHECKs on accounts (balance ≥ 0, 0 ≤ held ≤ balance) are the guard: should any account
  // be taken below them, the statement fails and nothing of the batch is written.
  const { settles } = db;
  const { rows } = await settles.query<{
    audit_ids: number[] | null;
    accounts: number[] | null;
    available: number[] | null;
  }>(settleStatement(holds, idempotency, settles.planned === "index"), [
    JSON.stringify(itemRows),
    JSON.stringify(recRows),
  ]);
  // One row: every audit id in order (split here by each item's records), and what each account
  // updated shows as available.
  const row = rows[0];
  const ids = (row?.audit_ids ?? []).map(Number);
  const availableOf = new Map<number, number>();
  (row?.accounts ?? []).forEach((id, k) => {
    availableOf.set(Number(id), Number(row?.available?.[k]));
  });
  let next = 0;
  return items.map((item, i) => {
    const available = availableOf.get(item.accountId);
    if (available === undefined) {
      throw new LedgerError("settle", new Error("an account of the batch does not exist"));
    }
    const auditIds = ids.slice(next, next + item.records.length);
    next += item.records.length;
    return { auditIds, charged: itemCharged[i] as number, available };
  });
}

/**
 * The settle statement, without the parts a batch has no use for (releasing per-call holds,
 * marking idempotency keys): each is a table modification the executor would set up for nothing
 * on every statement. It vouches for its own references (migration 012) only where its look-ups
 * are sure to be planned as index look-ups (Database.settles). Eight texts at most, each prepared
 * once per connection.
 */
function settleStatement(holds: boolean, idempotency: boolean, vouch: boolean): string {
  const key = (holds ? 1 : 0) + (idempotency ? 2 : 0) + (vouch ? 4 : 0);
  let text = statements[key];
  if (text === undefined) {
    text = settleText(holds, idempotency, vouch);
    statements[key] = text;
  }
  return text;
}
const statements: (string | undefined)[] = [];

/** What vouches for the statement's references: looked up here, the triggers stand aside. */
const VOUCHED = ` vouched AS (
       -- The references of every row this statement writes, looked up here rather than by the
       -- triggers of migration 011, which stand aside for it (migration 012): its accounts (never
       -- deleted, so found in the statement's snapshot), its tokens, the holds and leases its
       -- entries name. The audit records its charges name are its own (recs). One missing fails
       -- the statement (23503).
       SELECT CASE
         WHEN (SELECT count(*) FROM accounts WHERE id IN (SELECT account_id FROM items))
             < (SELECT count(DISTINCT account_id) FROM items)
           OR (SELECT count(*) FROM tokens WHERE id = ANY (t.ids)) < cardinality(t.ids)
           OR (SELECT count(*) FROM ledger_entries WHERE id = ANY (h.ids)) < cardinality(h.ids)
         THEN missing_reference('settle')
         ELSE set_config('blockgate.references_vouched', statement_timestamp()::text, true)
       END AS vouched
       FROM (SELECT coalesce(array_agg(DISTINCT token_id) FILTER (WHERE token_id IS NOT NULL),
               '{}') AS ids FROM recs) t,
            (SELECT coalesce(array_agg(DISTINCT id) FILTER (WHERE id IS NOT NULL), '{}') AS ids
             FROM (SELECT hold_id AS id FROM items UNION ALL SELECT lease_id FROM recs) named) h
     ),`;

function settleText(holds: boolean, idempotency: boolean, vouch: boolean): string {
  // Each row of $1 and $2 is a JSON array, read by position (writeBatch writes them); $2's rows are
  // account_id, lease_id, then audit.ts auditColumns' order.
  // The accounts are updated last: the row lock an update takes is held until the commit, and a
  // second statement in flight for the same account waits for it; taken last, it is held over the
  // commit's WAL flush alone, and the other statement's inserts run meanwhile. So the inserts are
  // the main query's FROM (a CTE runs when first read; one nobody reads runs after the main
  // query), and `acc` is read only by the select list, computed once the FROM's row exists.
  const from = ["(SELECT count(*) FROM aud) a", "(SELECT count(*) FROM chg) c"];
  if (holds) from.push("(SELECT count(*) FROM rel) r");
  if (idempotency) from.push("(SELECT count(*) FROM idem) k");
  if (vouch) from.unshift("vouched");
  return `WITH items AS (
       SELECT (e->>0)::int8 AS account_id, (e->>1)::int8 AS charged, (e->>2)::int8 AS released,
         (e->>3)::int8 AS hold_id, (e->>4)::int8 AS lease_used, e->>5 AS idempotency_key
       FROM jsonb_array_elements($1::jsonb) e
     ),${
       holds
         ? ` rel AS (
       INSERT INTO ledger_entries(account_id, kind, amount, hold_id)
       SELECT account_id, 'release', released, hold_id FROM items WHERE hold_id IS NOT NULL
       RETURNING 1
     ),`
         : ""
     } recs AS MATERIALIZED (
       SELECT nextval('audit_records_id_seq') AS id, (e->>0)::int8 AS account_id,
         (e->>1)::int8 AS lease_id, ${auditColumnsFromJson(2)}, ord
       FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS r(e, ord)
     ),${vouch ? VOUCHED : ""} aud AS (
       ${INSERT_RECS}
     ), chg AS (
       INSERT INTO ledger_entries(account_id, kind, amount, audit_id, hold_id)
       SELECT r.account_id, 'charge', -r.charged_cc, r.id, r.lease_id
       FROM recs r WHERE r.charged_cc > 0
       RETURNING 1
     ),${
       idempotency
         ? ` idem AS (
       UPDATE idempotency_keys k SET settled_at = now()
       FROM items i WHERE i.idempotency_key IS NOT NULL AND i.charged > 0
         AND k.account_id = i.account_id AND k.key = i.idempotency_key
       RETURNING 1
     ),`
         : ""
     } acc AS (
       UPDATE accounts a SET balance = a.balance - s.charged, held = a.held - s.released,
         leased = a.leased - s.lease_used
       FROM (SELECT account_id, sum(charged) AS charged, sum(released) AS released,
               sum(lease_used) AS lease_used
             FROM items GROUP BY account_id) s
       WHERE a.id = s.account_id
       RETURNING a.id, a.balance - a.held AS available
     )
     SELECT (SELECT array_agg(id ORDER BY ord) FROM recs) AS audit_ids,
       (SELECT array_agg(id ORDER BY id) FROM acc) AS accounts,
       (SELECT array_agg(available ORDER BY id) FROM acc) AS available
     FROM ${from.join(", ")}`;
}
