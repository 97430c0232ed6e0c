import type { Database } from "../../src/db/database.ts";

/** A tpub whose private key is public (tests only), receive branch: a watch-only descriptor. */
export const TOPUP_DESCRIPTOR =
  "wpkh(tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp/0/*)";

/** The ledger entries and credits naming an invoice. */
export async function creditsOf(db: Database, invoiceId: string) {
  const { rows } = await db.query<{ memo: string; amount: number | string; txid: string | null }>(
    `SELECT e.memo, e.amount, c.txid FROM topup_credits c JOIN ledger_entries e ON e.id = c.entry_id
     WHERE c.invoice_id = $1`,
    [invoiceId],
  );
  const grants = await db.query<{ n: number | string }>(
    "SELECT count(*) AS n FROM ledger_entries WHERE kind = 'grant' AND memo LIKE $1",
    [`%${invoiceId}%`],
  );
  return { credits: rows, grants: Number(grants.rows[0]!.n) };
}
