import type { CallContext } from "../app/context.ts";
import { fromHex, parseBlockHeader, parseTransaction, toHex } from "../bitcoin/index.ts";
import { type GatewayError, gatewayError } from "../errors/codes.ts";
import { isJsonObject, type Json, jsonInteger, jsonNumber } from "../jsonrpc/json.ts";
import type { ElectrumPool } from "../upstreams/electrum/pool.ts";
import { type BlockPosition, decodedTx, readTxHex } from "./decoded-tx.ts";
import { DAEMON_ERROR } from "./electrum-params.ts";
import type { CallResult } from "./rpc-route.ts";

const METHOD = "blockchain.transaction.get";

/**
 * blockchain.transaction.get through the gateway. The answer always has the spec's shape (§2.1,
 * §4.3), whatever the Electrum server behind it sends:
 *
 * - The server is always asked for the verbose form: it carries the raw bytes (`hex`) and where
 *   the transaction was mined, so one round trip answers either form and fills the cache.
 * - The decoded object is built here from those bytes with the codec (Core's TxToUniv), never
 *   passed through: ElectrumX re-encodes bitcoind's amounts as Python floats (`10.0`), electrs adds
 *   `in_active_chain`, none of them gives `blockheight`.
 * - `blockheight` is the height whose header (blockchain.block.header) hashes to the answer's
 *   `blockhash`, tried first at tip − confirmations + 1 (the tip comes from the headers
 *   subscription); the header also gives `blocktime`.
 * - A server that will not give the verbose form (an error other than a daemon error — e.g.
 *   ElectrumX's "response too large") is asked for the hex alone; such an answer is not placed in
 *   a block, so the verbose form then fails (not charged) rather than lie about confirmations.
 */
export async function electrumTransaction(
  ctx: CallContext,
  txHash: string,
  verbose: boolean,
): Promise<CallResult> {
  const { app, network } = ctx;
  const pool = app.electrum.get(network);
  if (!pool)
    return failure(gatewayError("UPSTREAM_UNAVAILABLE", "no Electrum server for this network"));
  // Only a plain txid is looked up: ElectrumX also takes hex with spaces, which the server answers.
  const txid = /^[0-9a-fA-F]{64}$/.test(txHash) ? txHash.toLowerCase() : null;
  if (txid) {
    const cached = fromCache(ctx, pool, txid, verbose);
    if (cached) return cached;
  }

  const out = await pool.request(METHOD, [txHash, true]);
  if (!out.ok) return failure(out.error);
  if ("error" in out.answer) {
    if (out.answer.error.code === DAEMON_ERROR || verbose) {
      return { kind: "answer", answer: out.answer, upstream: out.upstream };
    }
    return hexOnly(pool, txHash, txid);
  }
  const bad = (why: string) =>
    failure(
      gatewayError("UPSTREAM_BAD_RESPONSE", "the Electrum server sent an answer we cannot read", {
        detail: `${out.upstream}: ${why}`,
      }),
    );
  const result = out.answer.result;
  if (!isJsonObject(result) || typeof result.hex !== "string")
    return bad("no hex in the verbose answer");
  const tx = readTxHex(result.hex);
  if (!tx) return bad("hex is not a transaction");
  if (txid && tx.txid !== txid) return bad(`asked for ${txid}, got ${tx.txid}`);
  const answer = (value: Json): CallResult => ({
    kind: "answer",
    answer: { result: value },
    upstream: out.upstream,
  });

  if (typeof result.blockhash !== "string") {
    // In the mempool: no block fields, and never cached.
    return answer(verbose ? decodedTx(tx, network, null, { blockheight: true }) : tx.hex);
  }
  const confirmations = jsonInteger(result.confirmations);
  const deep = confirmations !== undefined && confirmations >= app.config.cache.minConfirmations;
  if (!verbose && !(deep && txid && app.txCache.bytesMax > 0)) return answer(tx.hex);
  const position = await locate(
    pool,
    result.blockhash,
    confirmations,
    jsonInteger(result.blockheight),
  );
  if (!position) {
    if (!verbose) return answer(tx.hex);
    return bad(`cannot find the height of block ${result.blockhash}`);
  }
  if (deep && txid) app.txCache.set(network, txid, { ...position, bytes: tx.bytes });
  return answer(verbose ? decodedTx(tx, network, position, { blockheight: true }) : tx.hex);
}

/** A cached confirmed transaction, with confirmations from the live tip; null to ask upstream. */
function fromCache(
  ctx: CallContext,
  pool: ElectrumPool,
  txid: string,
  verbose: boolean,
): CallResult | null {
  const { txCache } = ctx.app;
  const entry = txCache.get(ctx.network, txid);
  if (!entry) return null;
  const hit = (result: Json): CallResult => ({
    kind: "answer",
    answer: { result },
    upstream: "cache",
  });
  if (!verbose) return hit(toHex(entry.bytes));
  // No live headers subscription, no vouched-for tip: confirmations would be a guess.
  const tip = pool.tip();
  if (!tip) return null;
  if (tip.height < entry.height) {
    txCache.evict(ctx.network, txid);
    return null;
  }
  const tx = parseTransaction(entry.bytes);
  const position = { ...entry, confirmations: tip.height - entry.height + 1 };
  return hit(decodedTx(tx, ctx.network, position, { blockheight: true }));
}

/**
 * The height and time of the block `blockhash`: the header at the expected height must hash to it.
 * The expected height is the server's `blockheight` if it gives one, else tip − confirmations + 1;
 * the next height is tried too, for an index a block behind its daemon.
 */
async function locate(
  pool: ElectrumPool,
  blockhash: string,
  confirmations: number | undefined,
  blockheight: number | undefined,
): Promise<BlockPosition | null> {
  const tip = pool.tip();
  const expected =
    blockheight ??
    (tip && confirmations !== undefined ? tip.height - confirmations + 1 : undefined);
  if (expected === undefined || confirmations === undefined) return null;
  for (const height of [expected, expected + 1, expected - 1]) {
    if (height < 0) continue;
    const out = await pool.request("blockchain.block.header", [jsonNumber(height)]);
    if (!out.ok || !("result" in out.answer) || typeof out.answer.result !== "string") continue;
    const hex = out.answer.result;
    if (!/^[0-9a-fA-F]{160}$/.test(hex)) continue;
    const header = parseBlockHeader(fromHex(hex));
    if (header.hash === blockhash.toLowerCase()) {
      return { blockhash: header.hash, height, blocktime: header.time, confirmations };
    }
  }
  return null;
}

/** A server that refuses the verbose form: the hex alone, for a non-verbose request. */
async function hexOnly(
  pool: ElectrumPool,
  txHash: string,
  txid: string | null,
): Promise<CallResult> {
  const out = await pool.request(METHOD, [txHash, false]);
  if (!out.ok) return failure(out.error);
  if ("error" in out.answer) return { kind: "answer", answer: out.answer, upstream: out.upstream };
  const hex = out.answer.result;
  const tx = typeof hex === "string" ? readTxHex(hex) : null;
  if (!tx || (txid && tx.txid !== txid)) {
    return failure(
      gatewayError("UPSTREAM_BAD_RESPONSE", "the Electrum server sent an answer we cannot read", {
        detail: `${out.upstream}: the hex is not transaction ${txid ?? txHash}`,
      }),
    );
  }
  return { kind: "answer", answer: { result: tx.hex }, upstream: out.upstream };
}

function failure(error: GatewayError): CallResult {
  return { kind: "failure", error };
}
