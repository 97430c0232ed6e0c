import { fromHex, parseTransaction, toHex } from "../../bitcoin/index.ts";
import { isJsonObject, type Json, jsonInteger } from "../../protocol/json/json.ts";
import { headerAt } from "../../upstreams/electrum/headers.ts";
import type { ElectrumPool } from "../../upstreams/electrum/pool.ts";
import type { VerifiedChain } from "../../verify/chain/verified-chain.ts";
import type { Invoice } from "./invoices.ts";
import { provenAt } from "./proof.ts";
import type { Payment } from "./rules.ts";

/** What is already known of a transaction paying the invoice (recorded by an earlier look). */
export interface KnownPayment {
  inTime: boolean;
  sats: number;
}

/** Why the address could not be read now: the next look tries again. */
export class ChainUnreadable extends Error {}

const num = (v: Json | undefined): number | null =>
  typeof v === "number" ? v : (jsonInteger(v) ?? null);

async function call(pool: ElectrumPool, method: string, params: Json[]): Promise<Json> {
  const out = await pool.request(method, params);
  if (!out.ok) throw new ChainUnreadable(`${method}: ${out.error.message}`);
  if (!("result" in out.answer))
    throw new ChainUnreadable(`${method}: ${out.answer.error.message}`);
  return out.answer.result;
}

/** The address's history: each transaction and its height (null: in the mempool). */
async function history(
  pool: ElectrumPool,
  scripthash: string,
): Promise<{ txid: string; height: number | null }[]> {
  const result = await call(pool, "blockchain.scripthash.get_history", [scripthash]);
  if (!Array.isArray(result)) throw new ChainUnreadable("get_history: not a list");
  return result.flatMap((e) => {
    if (!isJsonObject(e) || typeof e.tx_hash !== "string") return [];
    const height = num(e.height);
    return [{ txid: e.tx_hash, height: height !== null && height > 0 ? height : null }];
  });
}

/** What `txid` pays to the invoice's script, its bytes checked against the txid. */
async function paidBy(pool: ElectrumPool, txid: string, scriptHex: string): Promise<number> {
  const hex = await call(pool, "blockchain.transaction.get", [txid]);
  if (typeof hex !== "string") throw new ChainUnreadable("transaction.get: not hex");
  const tx = parseTransaction(fromHex(hex));
  if (tx.txid !== txid)
    throw new ChainUnreadable(`transaction.get: bytes of another txid for ${txid}`);
  let sats = 0n;
  for (const o of tx.outputs) if (toHex(o.scriptPubKey) === scriptHex) sats += o.value;
  return Number(sats);
}

/** Whether a transaction first seen now came in time: seen before expiry, or mined before it. */
async function cameInTime(
  pool: ElectrumPool,
  invoice: Invoice,
  height: number | null,
  now: Date,
): Promise<boolean> {
  if (now <= invoice.expiresAt) return true;
  if (height === null) return false;
  const header = await headerAt(pool, height);
  return header !== null && header.time * 1000 <= invoice.expiresAt.getTime();
}

/**
 * The invoice's payments as its Electrum servers tell them now, and their tip's height. A
 * transaction already recorded keeps what it pays and whether it came in time; one in a block
 * counts as mined only with a merkle proof to a header that meets its proof of work.
 */
export async function readPayments(
  pool: ElectrumPool,
  invoice: Invoice,
  scripthash: string,
  known: ReadonlyMap<string, KnownPayment>,
  chain?: VerifiedChain,
): Promise<{ payments: Payment[]; tipHeight: number | null }> {
  const now = new Date();
  const entries = await history(pool, scripthash);
  const payments: Payment[] = [];
  for (const e of entries) {
    const before = known.get(e.txid);
    const sats = before?.sats ?? (await paidBy(pool, e.txid, invoice.scriptHex));
    const inTime = before?.inTime ?? (await cameInTime(pool, invoice, e.height, now));
    // Counted as mined only where its block is proven to hold it; else as in the mempool.
    const proven =
      e.height !== null &&
      sats > 0 &&
      (await provenAt(pool, invoice.network, e.txid, e.height, chain));
    payments.push({ txid: e.txid, sats, height: proven ? e.height : null, inTime });
  }
  // Depth from the verified tip where there is one: an upstream's tip alone could run ahead.
  const tipHeight = chain ? (chain.tip()?.height ?? null) : (pool.tip()?.height ?? null);
  return { payments, tipHeight };
}
