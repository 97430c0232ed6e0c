import { randomUUID } from "node:crypto";
import type { Database, Queryable } from "../../db/database.ts";
import { insertAudit } from "../ledger/audit.ts";
import { grantEntryIn } from "../ledger/ledger.ts";
import { CREDITED_STATUSES, type Invoice, invoiceById, WATCHED_STATUSES } from "./invoices.ts";
import type { Judgement, Payment } from "./rules.ts";

/** A payment as recorded: what it pays, and whether it came in time (fixed when first seen). */
export interface RecordedPayment {
  txid: string;
  sats: number;
  inTime: boolean;
}

/** The payments recorded for an invoice (gone ones included: a reorganisation may bring them back). */
export async function recordedPayments(
  db: Queryable,
  invoiceId: string,
): Promise<Map<string, RecordedPayment>> {
  const { rows } = await db.query<{ txid: string; sats: number | string; inTime: boolean }>(
    `SELECT txid, sats, in_time AS "inTime" FROM topup_payments WHERE invoice_id = $1`,
    [invoiceId],
  );
  return new Map(rows.map((r) => [r.txid, { ...r, sats: Number(r.sats) }]));
}

/** What the watcher concluded of one invoice: applied by `applyJudgement`. */
export interface Outcome {
  status: Invoice["status"];
  /** This call credited the invoice (no other call ever will). */
  credited: boolean;
}

/**
 * Records what the address's history holds now and moves the invoice as judged, in one
 * transaction; a paid judgement credits the invoice's CC in one ledger entry naming the invoice
 * and the transaction. Exactly once: the status update only matches an invoice not yet credited
 * (its row lock orders racing checks), and topup_credits' primary key refuses a second credit
 * whatever got past that.
 */
export async function applyJudgement(
  db: Database,
  invoice: Invoice,
  payments: readonly Payment[],
  j: Judgement,
): Promise<Outcome> {
  return db.transaction(async (tx) => {
    await recordPayments(tx, invoice.id, payments);
    const { rows } = await tx.query<{ accountId: number | string; credits: number | string }>(
      `UPDATE topup_invoices
       SET status = $2::text, seen_sats = $3, confirmed_sats = $4, checked_at = now(),
           paid_at = CASE WHEN $2::text = 'paid' THEN now() END
       WHERE id = $1 AND status = ANY ($5::text[])
       RETURNING account_id AS "accountId", credits`,
      [invoice.id, j.status, j.seenSats, j.confirmedSats, WATCHED_STATUSES],
    );
    const row = rows[0];
    if (!row) return { status: (await invoiceById(tx, invoice.id))!.status, credited: false };
    if (j.status !== "paid") return { status: j.status, credited: false };
    const memo = `top-up ${invoice.id}: ${j.creditTxid} on ${invoice.network}`;
    await creditIn(tx, invoice.id, Number(row.accountId), Number(row.credits), memo, j.creditTxid);
    return { status: "paid", credited: true };
  });
}

/**
 * What is paid to a credited invoice's address after all: recorded, and its total shown as paid
 * (`seen_sats`), never credited.
 */
export async function recordAfterCredit(
  db: Database,
  invoice: Invoice,
  payments: readonly Payment[],
): Promise<void> {
  await db.transaction(async (tx) => {
    await recordPayments(tx, invoice.id, payments);
    await tx.query(
      `UPDATE topup_invoices SET seen_sats = $2, checked_at = now()
       WHERE id = $1 AND status = ANY ($3::text[])`,
      [invoice.id, payments.reduce((n, p) => n + p.sats, 0), CREDITED_STATUSES],
    );
  });
}

async function recordPayments(tx: Queryable, invoiceId: string, payments: readonly Payment[]) {
  for (const p of payments) {
    await tx.query(
      `INSERT INTO topup_payments(invoice_id, txid, sats, height, in_time) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (invoice_id, txid) DO UPDATE SET height = EXCLUDED.height, gone_at = NULL`,
      [invoiceId, p.txid, p.sats, p.height, p.inTime],
    );
  }
  await tx.query(
    `UPDATE topup_payments SET gone_at = now()
     WHERE invoice_id = $1 AND gone_at IS NULL AND NOT (txid = ANY ($2::text[]))`,
    [invoiceId, payments.map((p) => p.txid)],
  );
}

async function creditIn(
  tx: Queryable,
  invoiceId: string,
  accountId: number,
  credits: number,
  memo: string,
  txid: string | null,
): Promise<void> {
  const { entryId } = await grantEntryIn(tx, accountId, credits, memo);
  await tx.query(
    "INSERT INTO topup_credits(invoice_id, entry_id, txid, credits) VALUES ($1, $2, $3, $4)",
    [invoiceId, entryId, txid, credits],
  );
}

export type SettleResult =
  | { ok: true; invoice: Invoice; credited: number }
  | { ok: false; reason: string };

/**
 * An operator credits an invoice by hand (underpaid, late, a dispute): `credits` CC (the
 * invoice's by default) in one ledger entry, the invoice marked settled with who and why, and an
 * audit record of the act; refused for an invoice already credited.
 */
export async function settleInvoice(
  db: Database,
  id: string,
  by: { who: string; note: string; credits?: number },
): Promise<SettleResult> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{
      accountId: number | string;
      credits: number | string;
      network: string;
    }>(
      `UPDATE topup_invoices SET status = 'settled', paid_at = now(), settled_by = $2, settle_note = $3
       WHERE id = $1 AND status = ANY ($4::text[])
       RETURNING account_id AS "accountId", credits, network`,
      [id, by.who, by.note, WATCHED_STATUSES],
    );
    const row = rows[0];
    if (!row) {
      const known = await invoiceById(tx, id);
      return {
        ok: false,
        reason: known ? `invoice ${id} is ${known.status}: already credited` : `no invoice ${id}`,
      };
    }
    const credits = by.credits ?? Number(row.credits);
    const accountId = Number(row.accountId);
    await creditIn(
      tx,
      id,
      accountId,
      credits,
      `top-up ${id} settled by ${by.who}: ${by.note}`,
      null,
    );
    await insertAudit(tx, {
      requestId: randomUUID(),
      accountId,
      tokenId: null,
      backend: "admin",
      network: row.network,
      method: "topup settle",
      outcome: "ok",
      httpStatus: 200,
      estimatedCc: 0,
      chargedCc: 0,
    });
    return { ok: true, invoice: (await invoiceById(tx, id))!, credited: credits };
  });
}
