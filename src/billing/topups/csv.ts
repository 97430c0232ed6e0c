import type { Queryable } from "../../db/database.ts";
import { csvLine } from "../usage/csv.ts";
import { accountInvoices } from "./invoices.ts";

const HEADER = [
  "invoice",
  "created_at",
  "network",
  "address",
  "sats",
  "credits",
  "status",
  "paid_sats",
  "confirmed_sats",
  "expires_at",
  "paid_at",
  "txids",
];

/**
 * An account's invoices and receipts, newest first: what each asked, what was paid in time, and
 * the transactions seen paying it (the credited one among them).
 */
export async function topupsCsv(db: Queryable, accountId: number): Promise<string> {
  const invoices = await accountInvoices(db, accountId, 10_000);
  const { rows } = await db.query<{ invoice: string; txids: string }>(
    `SELECT invoice_id AS invoice, string_agg(txid, ' ' ORDER BY first_seen) AS txids
     FROM topup_payments p JOIN topup_invoices i ON i.id = p.invoice_id
     WHERE i.account_id = $1 AND p.gone_at IS NULL GROUP BY invoice_id`,
    [accountId],
  );
  const txids = new Map(rows.map((r) => [r.invoice, r.txids]));
  let out = csvLine(HEADER);
  for (const i of invoices) {
    out += csvLine([
      i.id,
      i.createdAt,
      i.network,
      i.address,
      i.sats,
      i.credits,
      i.status,
      i.seenSats,
      i.confirmedSats,
      i.expiresAt,
      i.paidAt,
      txids.get(i.id) ?? "",
    ]);
  }
  return out;
}
