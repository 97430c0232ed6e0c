import { toHex } from "../../bitcoin/hex.ts";
import { isJsonObject, type Json, jsonInteger, jsonNumber } from "../../protocol/json/json.ts";
import type { LyingChain } from "./lying-chain.ts";
import { type LiarOptions, names } from "./options.ts";

/** The transaction's hex with its locktime's low byte flipped: a transaction, not the one asked for. */
export function tamperTxHex(hex: string): string {
  if (hex.length < 8) return hex;
  const at = hex.length - 8;
  const flipped = (Number.parseInt(hex.slice(at, at + 2), 16) ^ 1).toString(16).padStart(2, "0");
  return hex.slice(0, at) + flipped + hex.slice(at + 2);
}

/**
 * A transaction answer as the liar gives it: `result` is the plain hex or the verbose object of
 * getrawtransaction or blockchain.transaction.get for `txid`.
 */
export function lieAboutTx(result: Json, txid: string, opts: LiarOptions, chain: LyingChain): Json {
  if (typeof result === "string") return names(opts.tamperTx, txid) ? tamperTxHex(result) : result;
  if (!isJsonObject(result)) return result;
  const out = { ...result };
  if (names(opts.tamperTx, txid) && typeof out.hex === "string") out.hex = tamperTxHex(out.hex);
  if (names(opts.wrongBlock, txid) && typeof out.blockhash === "string") {
    const claimed = chain.byHash(out.blockhash);
    const below = claimed ? chain.at(claimed.height - 1) : undefined;
    if (below) out.blockhash = below.hash;
    const confirmations = jsonInteger(out.confirmations);
    if (confirmations !== undefined) out.confirmations = jsonNumber(confirmations + 1);
  }
  return out;
}

/** The served tip as a headers subscription tells it: `{height, hex}`. */
export function servedTip(chain: LyingChain): Json {
  const tip = chain.at(chain.tipHeight());
  return { hex: tip ? toHex(tip.bytes) : "", height: jsonNumber(chain.tipHeight()) };
}
