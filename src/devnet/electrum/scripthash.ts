import { scripthashStatus } from "../../protocol/electrum/status.ts";
import { type Json, jsonNumber } from "../../protocol/json/json.ts";
import { checked, type Handler } from "./handler.ts";
import type { HistoryEntry, ScriptEntry } from "./script-index.ts";

/** An entry of get_history / get_mempool; a mempool entry carries its fee where devnet knows it. */
function historyJson(e: HistoryEntry): Json {
  const entry: { [key: string]: Json } = { tx_hash: e.txid, height: jsonNumber(e.height) };
  if (e.height <= 0 && e.feeSats !== undefined) entry.fee = jsonNumber(e.feeSats);
  return entry;
}

/** A script's status (ElectrumX's address_status) from devnet's script index: what subscribe answers and notifies. */
export function statusOf(scripts: (hash: string) => ScriptEntry): (hash: string) => string | null {
  return (hash) => scripthashStatus(scripts(hash).history.map(historyJson)) ?? null;
}

/** ElectrumX's script-hash methods, answered from devnet's script index (script-index.ts). */
export function scripthashMethods(scripts: (hash: string) => ScriptEntry): Record<string, Handler> {
  const of = (hash: Json | undefined) => scripts(hash as string);
  const status = statusOf(scripts);
  return {
    "blockchain.scripthash.get_history": checked(
      "blockchain.scripthash.get_history",
      (_session, [hash]) => of(hash).history.map(historyJson),
    ),
    // The status of the history get_history answers, remembered: the server notifies the
    // session when it changes (server.ts notifyScripthashes).
    "blockchain.scripthash.subscribe": checked(
      "blockchain.scripthash.subscribe",
      (session, [hash]) => {
        const now = status(hash as string);
        session.scripthashes.set(hash as string, now);
        return now;
      },
    ),
    "blockchain.scripthash.unsubscribe": checked(
      "blockchain.scripthash.unsubscribe",
      (session, [hash]) => session.scripthashes.delete(hash as string),
    ),
    "blockchain.scripthash.get_mempool": checked(
      "blockchain.scripthash.get_mempool",
      (_session, [hash]) =>
        of(hash)
          .history.filter((e) => e.height <= 0)
          .map(historyJson),
    ),
    "blockchain.scripthash.get_balance": checked(
      "blockchain.scripthash.get_balance",
      (_session, [hash]) => {
        const e = of(hash);
        return {
          confirmed: jsonNumber(e.confirmedSats),
          unconfirmed: jsonNumber(e.unconfirmedSats),
        };
      },
    ),
    "blockchain.scripthash.listunspent": checked(
      "blockchain.scripthash.listunspent",
      (_session, [hash]) =>
        of(hash).utxos.map(
          (u): Json => ({
            tx_hash: u.txid,
            tx_pos: jsonNumber(u.vout),
            height: jsonNumber(u.height),
            value: jsonNumber(u.value),
          }),
        ),
    ),
  };
}
