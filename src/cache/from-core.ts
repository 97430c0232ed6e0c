import type { NetworkName } from "../config/schema.ts";
import { readTxHex } from "../protocol/core/decoded-tx.ts";
import { isJsonObject, type Json, jsonInteger, jsonNumber } from "../protocol/json/json.ts";
import type { BitcoinCorePool } from "../upstreams/bitcoin-core/pool.ts";
import type { TxStore } from "./tx-store.ts";

/** A verbose getrawtransaction answer (verbosity 1 or 2) for a txid asked without a blockhash. */
export interface VerboseAnswer {
  txid: string;
  /** Its result, or only the result's scalar members (src/protocol/json/raw-answer.ts resultScalars):
   * nothing else of it is read here. */
  result: Json;
}

/**
 * Keeps the deeply confirmed transactions of verbose node answers (the node route's and the
 * unified API's). Core's answer has the block hash and confirmations but not the height: the
 * height is the node's block count less the confirmations plus one, checked with getblockhash
 * (one call per distinct height) so that a block found in between cannot leave a wrong height in
 * the cache. Mempool and shallow answers are never kept.
 */
export async function rememberFromCore(
  store: TxStore,
  pool: BitcoinCorePool,
  network: NetworkName,
  answers: readonly VerboseAnswer[],
): Promise<void> {
  const guard = store.guard(network);
  if (!guard || !store.enabled) return;
  const candidates: {
    txid: string;
    bytes: Uint8Array;
    blockhash: string;
    confirmations: number;
    blocktime: number;
  }[] = [];
  for (const { txid, result } of answers) {
    if (!isJsonObject(result)) continue;
    const { hex, blockhash, confirmations, blocktime } = result;
    const conf = jsonInteger(confirmations);
    const time = jsonInteger(blocktime);
    if (typeof hex !== "string" || typeof blockhash !== "string") continue;
    if (conf === undefined || time === undefined || conf < store.minConfirmations) continue;
    if (store.memory.has(network, txid)) continue;
    const tx = readTxHex(hex);
    if (tx?.txid !== txid) continue;
    candidates.push({ txid, bytes: tx.bytes, blockhash, confirmations: conf, blocktime: time });
  }
  if (candidates.length === 0) return;
  const tip = await guard.tip();
  if (tip === null) return;
  const heights = [...new Set(candidates.map((c) => tip - c.confirmations + 1))];
  const out = await pool.batch(
    heights.map((h) => ({ method: "getblockhash", params: [jsonNumber(h)] })),
  );
  if (!out.ok) return;
  const hashAt = new Map<number, Json>();
  heights.forEach((h, i) => {
    const answer = out.answers[i];
    if (answer && "result" in answer) hashAt.set(h, answer.result);
  });
  for (const c of candidates) {
    const height = tip - c.confirmations + 1;
    if (hashAt.get(height) !== c.blockhash) continue;
    store.remember(network, c.txid, {
      bytes: c.bytes,
      blockhash: c.blockhash,
      height,
      blocktime: c.blocktime,
    });
  }
}
