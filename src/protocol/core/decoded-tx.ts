import { fromHex } from "../../bitcoin/hex.ts";
import type { Network } from "../../bitcoin/network.ts";
import { parseTransaction, type Transaction } from "../../bitcoin/transaction.ts";
import { txToUniv } from "../../bitcoin/tx-json.ts";
import type { NetworkName } from "../../config/schema.ts";
import { type Json, RawJsonText, stringifyJson } from "../json/json.ts";

/** Where a mined transaction sits, as the decoded form shows it. */
export interface BlockPosition {
  blockhash: string;
  height: number;
  blocktime: number;
  confirmations: number;
}

/**
 * The decoded transaction of spec §2.1, built by the gateway's codec: Core's TxToUniv (amounts as
 * `0.00100000`), then — for a mined transaction — `blockhash, confirmations, time, blocktime` in
 * getrawtransaction's order, and `blockheight` after them where the Electrum form asks for it. A
 * mempool transaction has none of the block fields.
 */
export function decodedTx(
  tx: Transaction,
  network: NetworkName,
  position: BlockPosition | null,
  opts: { blockheight: boolean },
): Json {
  const result: Record<string, unknown> = { ...txToUniv(tx, { network: network as Network }) };
  if (position) {
    result.blockhash = position.blockhash;
    result.confirmations = position.confirmations;
    result.time = position.blocktime;
    result.blocktime = position.blocktime;
    if (opts.blockheight) result.blockheight = position.height;
  }
  // Plain JS numbers (sizes, heights) serialise exactly as JSON numbers do; amounts are lossless.
  return result as unknown as Json;
}

/** The JSON text of the decoded form without its block fields: what the cache memoises. */
export function decodedTxBaseText(tx: Transaction, network: NetworkName): string {
  return stringifyJson(txToUniv(tx, { network: network as Network }));
}

/**
 * decodedTx's text from the memoised base (decodedTxBaseText): the block fields appended in the
 * same order, as raw JSON text the reply writer places as it is. Same bytes as decodedTx's.
 */
export function decodedTxFromBase(
  base: string,
  position: BlockPosition,
  opts: { blockheight: boolean },
): RawJsonText {
  const block =
    `"blockhash":${JSON.stringify(position.blockhash)},"confirmations":${position.confirmations},` +
    `"time":${position.blocktime},"blocktime":${position.blocktime}` +
    (opts.blockheight ? `,"blockheight":${position.height}` : "");
  return new RawJsonText(`${base.slice(0, -1)},${block}}`);
}

/** An upstream's hex, decoded; null when it is not a transaction we can read. */
export function readTxHex(hex: string): Transaction | null {
  try {
    return /^([0-9a-fA-F]{2})+$/.test(hex) ? parseTransaction(fromHex(hex)) : null;
  } catch {
    return null;
  }
}
