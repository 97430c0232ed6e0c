import { parseTransaction, toHex } from "../bitcoin/index.ts";
import { gatewayError } from "../errors/codes.ts";
import type { HttpReply } from "../http/reply.ts";
import { checkGetRawTransaction } from "../jsonrpc/core-methods.ts";
import { decodedTx, readTxHex } from "../jsonrpc/decoded-tx.ts";
import { legacyErrorStatus } from "../jsonrpc/envelope.ts";
import { isJsonObject, jsonInteger, jsonNumber } from "../jsonrpc/json.ts";
import type { RpcAnswer } from "../jsonrpc/types.ts";
import type { CallContext } from "../metering/context.ts";
import {
  type AcceptedCall,
  type CallResult,
  handleRpcMirror,
  type MirrorProtocol,
} from "./rpc-route.ts";

/**
 * The full-node mirror: POST /<node>/<network>/<token>. Envelopes are read as Bitcoin Core v28+
 * reads them — "2.0" replies with HTTP 200 and one of result/error; legacy 1.0 requests get Core's
 * legacy shape and statuses, so stock Core clients work unchanged. Calls are checked as Core
 * checks them and forwarded as one upstream batch, except what the transaction cache can answer.
 */
const NODE: MirrorProtocol = {
  methods: { getrawtransaction: (params, ctx) => checkGetRawTransaction(params, ctx.network) },
  unknownMethod: () => ({ code: -32601, message: "Method not found" }),
  errorStatus: (version, code) => (version === "1.0" ? legacyErrorStatus(code) : 200),
  execute: executeNodeCalls,
};

export function handleNodeRpc(ctx: CallContext, body: string): Promise<HttpReply> {
  return handleRpcMirror(ctx, body, NODE);
}

async function executeNodeCalls(ctx: CallContext, calls: AcceptedCall[]): Promise<CallResult[]> {
  const results: (CallResult | null)[] = await fromCache(ctx, calls);
  const missing = calls.flatMap((_, i) => (results[i] ? [] : [i]));
  if (missing.length > 0) {
    const pool = ctx.app.nodes.get(ctx.network);
    const out = pool
      ? await pool.batch(
          missing.map((i) => ({ method: calls[i]!.method, params: calls[i]!.params })),
        )
      : {
          ok: false as const,
          error: gatewayError("UPSTREAM_UNAVAILABLE", "no full node for this network"),
        };
    missing.forEach((i, k) => {
      results[i] = out.ok
        ? { kind: "answer", answer: out.answers[k]!, upstream: out.upstream }
        : { kind: "failure", error: out.error };
    });
    if (out.ok)
      await remember(
        ctx,
        missing.map((i, k) => [calls[i]!, out.answers[k]!]),
      );
  }
  return results as CallResult[];
}

/** getrawtransaction(txid, 0|1) with no blockhash: what the cache can answer. */
function cacheable(call: AcceptedCall): { txid: string; verbose: boolean } | null {
  if (call.method !== "getrawtransaction") return null;
  const [txid, verbosity = null, blockhash = null] = call.params;
  if (typeof txid !== "string" || blockhash !== null) return null;
  const level =
    verbosity === null
      ? 0
      : typeof verbosity === "boolean"
        ? Number(verbosity)
        : jsonInteger(verbosity);
  // Verbosity 2 adds fee and prevouts from the node's undo data: always the node's to answer.
  if (level === undefined || level >= 2) return null;
  return { txid: txid.toLowerCase(), verbose: level >= 1 };
}

/** The calls the response cache answers (a hit is billed as a miss), null for the rest. */
async function fromCache(ctx: CallContext, calls: AcceptedCall[]): Promise<(CallResult | null)[]> {
  const lookups = calls.map(cacheable);
  const asked = lookups.flatMap((l, i) => (l ? [i] : []));
  const results: (CallResult | null)[] = calls.map(() => null);
  if (asked.length === 0) return results;
  const cached = await ctx.app.txCache.lookup(
    ctx.network,
    asked.map((i) => lookups[i]!.txid),
  );
  if (!cached) return results;
  asked.forEach((i, k) => {
    const entry = cached.found[k];
    if (!entry) return;
    const result = lookups[i]!.verbose
      ? decodedTx(
          parseTransaction(entry.bytes),
          ctx.network,
          { ...entry, confirmations: cached.tip - entry.height + 1 },
          { blockheight: false },
        )
      : toHex(entry.bytes);
    results[i] = { kind: "answer", answer: { result }, upstream: "cache" };
  });
  return results;
}

/**
 * Keeps deeply confirmed transactions from verbose node answers. Core's answer has the block hash
 * and confirmations but not the height: the height is the node's block count less the
 * confirmations plus one, checked with getblockhash so that a block found in between cannot
 * leave a wrong height in the cache.
 */
async function remember(ctx: CallContext, pairs: [AcceptedCall, RpcAnswer][]): Promise<void> {
  const { txCache, nodes, config } = ctx.app;
  const guard = txCache.guard(ctx.network);
  const pool = nodes.get(ctx.network);
  if (!guard || !pool || !txCache.enabled) return;
  const candidates: {
    txid: string;
    bytes: Uint8Array;
    blockhash: string;
    confirmations: number;
    blocktime: number;
  }[] = [];
  for (const [call, answer] of pairs) {
    const lookup = cacheable(call);
    if (!lookup?.verbose || !("result" in answer) || !isJsonObject(answer.result)) continue;
    const { hex, blockhash, confirmations, blocktime } = answer.result;
    const conf = jsonInteger(confirmations);
    const time = jsonInteger(blocktime);
    if (typeof hex !== "string" || typeof blockhash !== "string") continue;
    if (conf === undefined || time === undefined || conf < config.cache.minConfirmations) continue;
    if (txCache.memory.has(ctx.network, lookup.txid)) continue;
    const tx = readTxHex(hex);
    if (tx?.txid !== lookup.txid) continue;
    candidates.push({
      txid: lookup.txid,
      bytes: tx.bytes,
      blockhash,
      confirmations: conf,
      blocktime: time,
    });
  }
  if (candidates.length === 0) return;
  const tip = await guard.tip();
  if (tip === null) return;
  const heights = candidates.map((c) => tip - c.confirmations + 1);
  const out = await pool.batch(
    heights.map((h) => ({ method: "getblockhash", params: [jsonNumber(h)] })),
  );
  if (!out.ok) return;
  candidates.forEach((c, i) => {
    const answer = out.answers[i];
    if (answer && "result" in answer && answer.result === c.blockhash) {
      txCache.remember(ctx.network, c.txid, {
        bytes: c.bytes,
        blockhash: c.blockhash,
        height: heights[i]!,
        blocktime: c.blocktime,
      });
    }
  });
}
