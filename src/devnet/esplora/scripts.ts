import { fromHex, sha256, type Transaction, toHexReversed } from "../../bitcoin/index.ts";
import type { EsploraRequest } from "../../protocol/esplora/request.ts";
import { esploraScripthash } from "../../protocol/esplora/script.ts";
import type { HistoryEntry, ScriptEntry } from "../electrum/script-index.ts";
import { badRequest, type EsploraReply, json } from "./reply.ts";
import { isSpendable } from "./script.ts";
import { txJson } from "./tx-json.ts";
import { type EsploraView, heldTx, spentOutput, txStatus } from "./view.ts";

/** electrs' CHAIN_TXS_PER_PAGE and MAX_MEMPOOL_TXS. */
const CHAIN_TXS_PER_PAGE = 25;
const MEMPOOL_TXS_MAX = 50;

interface Stats {
  tx_count: number;
  funded_txo_count: number;
  funded_txo_sum: number;
  spent_txo_count: number;
  spent_txo_sum: number;
}

/** What one transaction did to the script: the outputs it paid it and the outputs it spent. */
function addTx(view: EsploraView, stats: Stats, tx: Transaction, script: string): void {
  stats.tx_count += 1;
  for (const o of tx.outputs) {
    if (!isSpendable(o.scriptPubKey) || scriptKey(o.scriptPubKey) !== script) continue;
    stats.funded_txo_count += 1;
    stats.funded_txo_sum += Number(o.value);
  }
  if (tx.isCoinbase) return;
  for (const input of tx.inputs) {
    const spent = spentOutput(view, input.prevTxid, input.vout);
    if (!spent || scriptKey(spent.script) !== script) continue;
    stats.spent_txo_count += 1;
    stats.spent_txo_sum += Number(spent.value);
  }
}

/** The index's key for a script: Electrum's script hash. */
const scriptKey = (script: Uint8Array) => toHexReversed(sha256(script));

/** electrs' ScriptStats as json!() writes it: keys sorted. */
function statsJson(view: EsploraView, entries: readonly HistoryEntry[], key: string) {
  const stats: Stats = {
    tx_count: 0,
    funded_txo_count: 0,
    funded_txo_sum: 0,
    spent_txo_count: 0,
    spent_txo_sum: 0,
  };
  for (const e of entries) {
    const held = heldTx(view, e.txid);
    if (held) addTx(view, stats, held.tx, key);
  }
  const { funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum, tx_count } = stats;
  return { funded_txo_count, funded_txo_sum, spent_txo_count, spent_txo_sum, tx_count };
}

/** Transactions of a history, newest first, as electrs renders them. */
function txsJson(view: EsploraView, entries: readonly HistoryEntry[]) {
  return entries.flatMap((e) => {
    const held = heldTx(view, e.txid);
    return held ? [txJson(view, held.tx, held.block)] : [];
  });
}

/** `/txs/chain[/:last_seen_txid]`: 25 confirmed ones after the last one seen (none if unknown). */
function chainPage(chain: readonly HistoryEntry[], lastSeen: string | undefined): HistoryEntry[] {
  if (lastSeen === undefined) return chain.slice(0, CHAIN_TXS_PER_PAGE);
  const at = chain.findIndex((e) => e.txid === lastSeen);
  return at < 0 ? [] : chain.slice(at + 1, at + 1 + CHAIN_TXS_PER_PAGE);
}

/** The address and script-hash endpoints, from devnet's Electrum script index. */
export function answerScripts(
  view: EsploraView,
  scripts: (electrumScripthash: string) => ScriptEntry,
  r: EsploraRequest,
): EsploraReply {
  const target = r.script!;
  const resolved = esploraScripthash(target, view.network);
  if ("status" in resolved) return badRequest(resolved.text);
  const key = toHexReversed(fromHex(resolved.scripthash));
  const entry = scripts(key);
  const chain = entry.history.filter((e) => e.height > 0).reverse();
  const mempool = entry.history.filter((e) => e.height <= 0).reverse();
  const kind = r.endpoint.slice(`esplora.${target.kind}`.length);
  switch (kind) {
    case "":
      // json!() in electrs: its keys sorted, so a script hash's name comes last.
      return json({
        ...(target.kind === "address" ? { address: target.text } : {}),
        chain_stats: statsJson(view, chain, key),
        mempool_stats: statsJson(view, mempool, key),
        ...(target.kind === "scripthash" ? { scripthash: target.text } : {}),
      });
    case ".txs":
      return json([
        ...txsJson(view, mempool.slice(0, MEMPOOL_TXS_MAX)),
        ...txsJson(view, chain.slice(0, CHAIN_TXS_PER_PAGE)),
      ]);
    case ".txs.chain":
      return json(txsJson(view, chainPage(chain, r.lastSeen)));
    case ".txs.mempool":
      return json(txsJson(view, mempool.slice(0, MEMPOOL_TXS_MAX)));
    default:
      return json(
        entry.utxos.map((u) => ({
          txid: u.txid,
          vout: u.vout,
          status: txStatus(u.height > 0 ? (view.chain.byHeight.get(u.height) ?? null) : null),
          value: Number(u.value),
        })),
      );
  }
}
