import { randomBytes } from "node:crypto";
import type { NetworkName } from "../../config/schema.ts";
import type { Database, Queryable } from "../../db/database.ts";
import type { AddressDeriver } from "./addresses.ts";
import { bip21Uri } from "./bip21.ts";

/** Where an invoice stands (decision 0050 gives the rules that move it). */
export const INVOICE_STATUSES = [
  "open",
  "pending",
  "paid",
  "expired",
  "underpaid",
  "late",
  "settled",
] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/** Statuses not yet credited: the watcher may still credit them, an operator settle them. */
export const WATCHED_STATUSES: readonly InvoiceStatus[] = [
  "open",
  "pending",
  "expired",
  "underpaid",
  "late",
];

/** Statuses of a credited invoice. */
export const CREDITED_STATUSES: readonly InvoiceStatus[] = ["paid", "settled"];

export interface Invoice {
  id: string;
  accountId: number;
  network: NetworkName;
  derivationIndex: number;
  address: string;
  scriptHex: string;
  sats: number;
  credits: number;
  createdAt: Date;
  expiresAt: Date;
  status: InvoiceStatus;
  /** Paid to the address in time, mempool included / confirmed deep enough. */
  seenSats: number;
  confirmedSats: number;
  paidAt: Date | null;
  settledBy: string | null;
}

/** The invoice as scripts read it (CLI, API): these keys, in this order. */
export interface InvoiceJson {
  id: string;
  address: string;
  sats: number;
  credits: number;
  bip21: string;
  expiresAt: string;
  status: InvoiceStatus;
}

/** BIP21's label: who is paid, so the wallet's history says what the payment was. */
const LABEL = "blockgate credits";

export function invoiceJson(i: Invoice): InvoiceJson {
  return {
    id: i.id,
    address: i.address,
    sats: i.sats,
    credits: i.credits,
    bip21: bip21Uri(i.address, i.sats, LABEL),
    expiresAt: i.expiresAt.toISOString(),
    status: i.status,
  };
}

const COLUMNS = `id, account_id AS "accountId", network, derivation_index AS "derivationIndex",
  address, script_hex AS "scriptHex", sats, credits, created_at AS "createdAt",
  expires_at AS "expiresAt", status, seen_sats AS "seenSats", confirmed_sats AS "confirmedSats",
  paid_at AS "paidAt", settled_by AS "settledBy"`;

type Row = Omit<Invoice, "derivationIndex" | "sats" | "credits" | "seenSats" | "confirmedSats"> & {
  derivationIndex: number | string;
  sats: number | string;
  credits: number | string;
  seenSats: number | string;
  confirmedSats: number | string;
};

const fromRow = (r: Row): Invoice => ({
  ...r,
  accountId: Number(r.accountId),
  derivationIndex: Number(r.derivationIndex),
  sats: Number(r.sats),
  credits: Number(r.credits),
  seenSats: Number(r.seenSats),
  confirmedSats: Number(r.confirmedSats),
});

export interface NewInvoice {
  accountId: number;
  network: NetworkName;
  sats: number;
  credits: number;
  ttlMinutes: number;
}

/**
 * Stores an invoice at the descriptor's next index and derives its address, in one transaction.
 * The index is taken by the statement that stores the invoice: the counter's row is locked until
 * the transaction ends, so two processes on one database never get the same index, and an index
 * whose invoice was rolled back is simply never used.
 */
export async function createInvoice(
  db: Database,
  deriver: AddressDeriver,
  input: NewInvoice,
): Promise<Invoice> {
  const id = `inv_${randomBytes(12).toString("base64url")}`;
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ index: number | string }>(
      `WITH taken AS (
         INSERT INTO topup_derivations(descriptor, next_index) VALUES ($1, 1)
         ON CONFLICT (descriptor) DO UPDATE SET next_index = topup_derivations.next_index + 1
         RETURNING next_index - 1 AS i)
       INSERT INTO topup_invoices(id, account_id, network, descriptor, derivation_index, sats,
                                  credits, expires_at)
       SELECT $2, $3, $4, $1, i, $5, $6, now() + make_interval(mins => $7::int) FROM taken
       RETURNING derivation_index AS index`,
      [
        deriver.key,
        id,
        input.accountId,
        input.network,
        input.sats,
        input.credits,
        input.ttlMinutes,
      ],
    );
    const { address, scriptHex } = deriver.at(Number(rows[0]!.index));
    await tx.query("UPDATE topup_invoices SET address = $2, script_hex = $3 WHERE id = $1", [
      id,
      address,
      scriptHex,
    ]);
    return (await invoiceById(tx, id))!;
  });
}

export async function invoiceById(db: Queryable, id: string): Promise<Invoice | null> {
  const { rows } = await db.query<Row>(`SELECT ${COLUMNS} FROM topup_invoices WHERE id = $1`, [id]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** An account's invoices, newest first, at most `limit`. */
export async function accountInvoices(
  db: Queryable,
  accountId: number,
  limit = 1_000,
): Promise<Invoice[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM topup_invoices WHERE account_id = $1
     ORDER BY created_at DESC, id LIMIT $2`,
    [accountId, limit],
  );
  return rows.map(fromRow);
}

/** Every account's invoices (the operator's view), newest first, optionally of one status. */
export async function allInvoices(
  db: Queryable,
  status: InvoiceStatus | null,
  limit = 1_000,
): Promise<Invoice[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM topup_invoices WHERE ($1::text IS NULL OR status = $1)
     ORDER BY created_at DESC, id LIMIT $2`,
    [status, limit],
  );
  return rows.map(fromRow);
}

/**
 * Invoices of `network` whose address is watched: within `lateWatchMinutes` of their expiry, not
 * yet credited (to credit them), or credited (to record what is paid after, never credited).
 */
export async function watchedInvoices(
  db: Queryable,
  network: NetworkName,
  lateWatchMinutes: number,
): Promise<Invoice[]> {
  const { rows } = await db.query<Row>(
    `SELECT ${COLUMNS} FROM topup_invoices
     WHERE network = $1 AND status = ANY ($2::text[])
       AND expires_at + make_interval(mins => $3::int) > now()
     ORDER BY created_at`,
    [network, [...WATCHED_STATUSES, ...CREDITED_STATUSES], lateWatchMinutes],
  );
  return rows.map(fromRow);
}

/** Open invoices an account holds (not yet paid nor expired), for its bound. */
export async function openInvoiceCount(db: Queryable, accountId: number): Promise<number> {
  const { rows } = await db.query<{ n: number | string }>(
    `SELECT count(*) AS n FROM topup_invoices
     WHERE account_id = $1 AND status IN ('open', 'pending') AND expires_at > now()`,
    [accountId],
  );
  return Number(rows[0]!.n);
}
