import type { InvoiceStatus } from "./invoices.ts";

/** A transaction paying an invoice's address, as the watcher last read the address's history. */
export interface Payment {
  txid: string;
  /** What its outputs pay to the address. */
  sats: number;
  /** Its block's height; null while it is in the mempool. */
  height: number | null;
  /** Seen (mempool or block) no later than the invoice's expiry. */
  inTime: boolean;
}

/** What an invoice's payments make of it now. */
export interface Judgement {
  status: InvoiceStatus;
  /** Paid in time, mempool included. */
  seenSats: number;
  /** Paid in time and `confirmations` deep. */
  confirmedSats: number;
  /** When status is paid: the payment that completed the amount (named in the ledger entry). */
  creditTxid: string | null;
}

export interface Situation {
  sats: number;
  expired: boolean;
  tipHeight: number;
  confirmations: number;
}

/**
 * The rules of decision 0050, for an invoice not yet credited. Only payments made in time count;
 * they add up (several payments), and the invoice is paid once what they pay, each at least
 * `confirmations` deep, reaches the amount: the payment that reached it is named. More than the
 * amount buys no more credits (an overpayment is the operator's to refund). A payment a
 * reorganisation took out of the chain is simply no longer in the history: it counts again only
 * where it is mined again. After expiry, what was paid in time and not enough is underpaid, a
 * payment only seen after expiry is late, and both wait for an operator.
 */
export function judge(payments: readonly Payment[], s: Situation): Judgement {
  const inTime = payments.filter((p) => p.inTime);
  const seenSats = inTime.reduce((n, p) => n + p.sats, 0);
  const deep = inTime
    .filter((p) => p.height !== null && s.tipHeight - p.height + 1 >= s.confirmations)
    .sort((a, b) => a.height! - b.height! || a.txid.localeCompare(b.txid));
  let confirmedSats = 0;
  for (const p of deep) {
    confirmedSats += p.sats;
    if (confirmedSats >= s.sats) {
      return { status: "paid", seenSats, confirmedSats, creditTxid: p.txid };
    }
  }
  const status = ((): InvoiceStatus => {
    if (seenSats >= s.sats) return "pending";
    if (!s.expired) return seenSats > 0 ? "pending" : "open";
    if (seenSats > 0) return "underpaid";
    return payments.some((p) => !p.inTime && p.sats > 0) ? "late" : "expired";
  })();
  return { status, seenSats, confirmedSats, creditTxid: null };
}
