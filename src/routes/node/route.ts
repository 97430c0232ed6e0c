import { parseTransaction, toHex } from "../../bitcoin/index.ts";
import { rememberFromCore } from "../../cache/from-core.ts";
import type { HttpReply } from "../../http/reply.ts";
import { checkCoreArgs } from "../../protocol/core/args.ts";
import { decodedTxBaseText, decodedTxFromBase } from "../../protocol/core/decoded-tx.ts";
import { CORE_METHOD_ARGS } from "../../protocol/core/method-args.ts";
import { checkGetRawTransaction } from "../../protocol/core/methods.ts";
import { type GatewayError, gatewayError } from "../../protocol/errors/codes.ts";
import { legacyErrorStatus } from "../../protocol/json/envelope.ts";
import { type Json, jsonInteger } from "../../protocol/json/json.ts";
import { answerBytes, resultScalars } from "../../protocol/json/raw-answer.ts";
import type { RpcAnswer } from "../../protocol/json/types.ts";
import { AnswerBudget } from "../json-rpc/answer-budget.ts";
import {
  type AcceptedCall,
  type CallResult,
  handleRpcMirror,
  type MirrorProtocol,
} from "../json-rpc/mirror.ts";
import type { NodeContext, NodeServices } from "./services.ts";

/** What the block fields add to a decoded transaction, at most (counted before it is written). */
const BLOCK_FIELDS_BYTES = 160;

/**
 * The full-node mirror: POST /<node>/<network>/<token>. Envelopes are read as Bitcoin Core v28+
 * reads them — "2.0" replies with HTTP 200 and one of result/error; legacy 1.0 requests get Core's
 * legacy shape and statuses, so stock Core clients work unchanged. Calls are checked as Core
 * checks them and forwarded as one upstream batch, except what the transaction cache can answer.
 */
const NODE: MirrorProtocol<NodeServices> = {
  loneSurrogates: "refuse",
  methods: {
    getrawtransaction: (params, ctx) => checkGetRawTransaction(params, ctx.network),
    ...Object.fromEntries(
      Object.entries(CORE_METHOD_ARGS).map(([method, spec]) => [
        method,
        (params: Json[] | { [key: string]: Json }) => checkCoreArgs(spec, params),
      ]),
    ),
  },
  unknownMethod: () => ({ code: -32601, message: "Method not found" }),
  errorStatus: (version, code) => (version === "1.0" ? legacyErrorStatus(code) : 200),
  execute: executeNodeCalls,
  // What the node's answers have told the gateway of the blocks asked for (getblock).
  answerBytesMin: (ctx, call) =>
    ctx.services.nodes.get(ctx.network)?.blockSizes.answerBytesMin(call) ?? 0,
};

export function handleNodeRpc(ctx: NodeContext, body: string): Promise<HttpReply> {
  return handleRpcMirror(ctx, body, NODE);
}

/**
 * The calls the cache answers, then the rest in one upstream batch. Every answer draws on the
 * request's budget (server.responseBytesMax): the batch may take what the cached answers left,
 * and is cut off by the client past it. A request whose answers go over is answered
 * RESPONSE_TOO_LARGE for every call, each charged as answered.
 */
async function executeNodeCalls(ctx: NodeContext, calls: AcceptedCall[]): Promise<CallResult[]> {
  const budget = new AnswerBudget(ctx.services.config.server.responseBytesMax);
  const results: (CallResult | null)[] = await fromCache(ctx, calls, budget);
  const missing = calls.flatMap((_, i) => (results[i] ? [] : [i]));
  if (missing.length > 0 && !budget.over) {
    const pool = ctx.services.nodes.get(ctx.network);
    const out = pool
      ? await pool.batch(
          missing.map((i) => ({ method: calls[i]!.method, params: calls[i]!.params })),
          budget.left,
        )
      : {
          ok: false as const,
          error: gatewayError("UPSTREAM_UNAVAILABLE", "no full node for this network"),
        };
    if (!out.ok && out.error.code === "RESPONSE_TOO_LARGE") {
      return tooLarge(calls, results, budget.error(out.error), out.upstream ?? "");
    }
    // Identical calls were asked once (pool.ts): each still takes its place in the reply.
    if (out.ok && !budget.take(out.answers.reduce((sum, a) => sum + answerBytes(a), 0))) {
      return tooLarge(calls, results, budget.error(), out.upstream);
    }
    missing.forEach((i, k) => {
      results[i] = out.ok
        ? {
            kind: "answer",
            answer: out.answers[k]!,
            upstream: out.upstream,
            verified: out.verified[k],
          }
        : { kind: "failure", error: out.error };
    });
    if (out.ok) {
      // Only what was checked in full is kept (its block proven, with a verified chain).
      const checking = pool?.claims.checking ?? false;
      await remember(
        ctx,
        missing.flatMap((i, k) =>
          !checking || out.verified[k] === "chain" ? [[calls[i]!, out.answers[k]!] as const] : [],
        ),
      );
    }
  }
  if (budget.over) return tooLarge(calls, results, budget.error(), null);
  return results as CallResult[];
}

/**
 * Every call RESPONSE_TOO_LARGE: charged where its answer was got (from the cache, or from
 * `upstream` for the calls sent there), refused uncharged where it was never asked.
 */
function tooLarge(
  calls: readonly AcceptedCall[],
  results: readonly (CallResult | null)[],
  error: GatewayError,
  upstream: string | null,
): CallResult[] {
  return calls.map((_, i): CallResult => {
    const got = results[i];
    if (got?.kind === "answer") return { kind: "too-large", error, upstream: got.upstream };
    return upstream === null ? { kind: "refused", error } : { kind: "too-large", error, upstream };
  });
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

/**
 * The calls the response cache answers (a hit is billed as a miss), null for the rest. Each
 * answer is counted into the request's budget before it is written; once the budget is over, no
 * more are written (the request is answered RESPONSE_TOO_LARGE).
 */
async function fromCache(
  ctx: NodeContext,
  calls: AcceptedCall[],
  budget: AnswerBudget,
): Promise<(CallResult | null)[]> {
  const lookups = calls.map(cacheable);
  const asked = lookups.flatMap((l, i) => (l ? [i] : []));
  const results: (CallResult | null)[] = calls.map(() => null);
  if (asked.length === 0) return results;
  const cached = await ctx.services.txCache.lookup(
    ctx.network,
    asked.map((i) => lookups[i]!.txid),
  );
  if (!cached) return results;
  const { memory } = ctx.services.txCache;
  const claims = ctx.services.nodes.get(ctx.network)?.claims;
  for (const [k, i] of asked.entries()) {
    const entry = cached.found[k];
    if (!entry) continue;
    const txid = lookups[i]!.txid;
    if (!lookups[i]!.verbose) {
      if (!budget.take(entry.bytes.length * 2 + 2)) break;
      const answer = { result: toHex(entry.bytes) };
      results[i] = { kind: "answer", answer, upstream: "cache", verified: "bytes" };
      continue;
    }
    // The decoded form is written once per entry and memoised: a hit appends the block fields.
    const base = memory.rendered(ctx.network, txid, entry, () =>
      decodedTxBaseText(parseTransaction(entry.bytes), ctx.network),
    );
    if (!budget.take(base.length + BLOCK_FIELDS_BYTES)) break;
    // Its block is looked up again on the verified chain: kept once proven, served while still on it.
    const onChain = claims?.confirmationsOf(entry.blockhash, entry.height);
    const confirmations = onChain ?? cached.tip - entry.height + 1;
    const result = decodedTxFromBase(base, { ...entry, confirmations }, { blockheight: false });
    const verified = onChain === undefined ? "partial" : "chain";
    results[i] = { kind: "answer", answer: { result }, upstream: "cache", verified };
  }
  return results;
}

/** Keeps the deeply confirmed transactions of the node's verbose answers (src/cache/from-core.ts). */
async function remember(
  ctx: NodeContext,
  pairs: (readonly [AcceptedCall, RpcAnswer])[],
): Promise<void> {
  const pool = ctx.services.nodes.get(ctx.network);
  // rememberFromCore keeps nothing with the cache off: the results need not be read (parsed).
  if (!pool || !ctx.services.txCache.enabled) return;
  const answers = pairs.flatMap(([call, answer]) => {
    const lookup = cacheable(call);
    return lookup?.verbose && "result" in answer
      ? [{ txid: lookup.txid, result: resultScalars(answer) }]
      : [];
  });
  await rememberFromCore(ctx.services.txCache, pool, ctx.network, answers);
}
