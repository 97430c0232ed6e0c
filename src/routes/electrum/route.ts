import {
  type ElectrumTxResult,
  electrumTransaction,
  electrumTxSource,
} from "../../cache/from-electrum.ts";
import type { NetworkName } from "../../config/schema.ts";
import type { HttpReply } from "../../http/reply.ts";
import { decodedTx } from "../../protocol/core/decoded-tx.ts";
import { checkElectrumArgs, ELECTRUM_SIGNATURES } from "../../protocol/electrum/args.ts";
import { BAD_REQUEST, INVALID_REQUEST } from "../../protocol/electrum/params.ts";
import { pyThousands } from "../../protocol/electrum/python-text.ts";
import { checkServerVersion } from "../../protocol/electrum/version.ts";
import { type GatewayError, gatewayError } from "../../protocol/errors/codes.ts";
import { type Json, RawJsonText, stringifyJson } from "../../protocol/json/json.ts";
import { answerBytes } from "../../protocol/json/raw-answer.ts";
import type { Checked, RpcErrorObject } from "../../protocol/json/types.ts";
import { chainLevel } from "../../upstreams/electrum/chain-check.ts";
import type { ElectrumPool } from "../../upstreams/electrum/pool.ts";
import { readScripthashStatus } from "../../upstreams/electrum/status.ts";
import { AnswerBudget } from "../json-rpc/answer-budget.ts";
import {
  type AcceptedCall,
  type CallResult,
  handleRpcMirror,
  type MirrorProtocol,
} from "../json-rpc/mirror.ts";
import { GATEWAY_SERVER_METHODS, GATEWAY_UPSTREAM, serverAnswer } from "./server-answers.ts";
import type { ElectrumContext, ElectrumServices } from "./services.ts";

type Params = Json[] | { [key: string]: Json };

const SUBSCRIBE = "blockchain.scripthash.subscribe";

/** Methods checked as ElectrumX checks them; server.version is the gateway's own (see below). */
const CHECKED = Object.keys(ELECTRUM_SIGNATURES).filter(
  (m) => m !== "server.version" && m !== SUBSCRIBE,
);

const poolOf = (ctx: ElectrumContext) => ctx.services.electrum.get(ctx.network);

/**
 * The Electrum mirror: POST /<electrum>/<network>/<token> with the spec's JSON-RPC envelope
 * (§4.1), read by the same envelope parser as the node route. Methods and parameters are checked
 * in ElectrumX's words before anything is forwarded or charged; JSON-RPC errors travel with HTTP
 * 200, as Electrum has no HTTP of its own to copy. Calls of a batch run concurrently (the
 * connections pipeline them). Electrum 1.4's read API is forwarded and its answers passed
 * through, except blockchain.transaction.get (rendered by the gateway) and the server.* methods
 * that describe the server the wallet talks to (answered by the gateway: server-answers.ts).
 */
const ELECTRUM: MirrorProtocol<ElectrumServices> = {
  loneSurrogates: "read",
  methods: {
    "server.version": (params, ctx) =>
      checkServerVersion(params, poolOf(ctx)?.serverVersion()?.protocol ?? null),
    ...Object.fromEntries(
      CHECKED.map((method): [string, (params: Params) => Checked] => [
        method,
        (params) => checkElectrumArgs(method, ELECTRUM_SIGNATURES[method]!, params),
      ]),
    ),
    // A session past its limit is refused before anything is asked or charged, in ElectrumX's words.
    [SUBSCRIBE]: (params, ctx) => {
      const checked = checkElectrumArgs(SUBSCRIBE, ELECTRUM_SIGNATURES[SUBSCRIBE]!, params);
      if (!checked.ok || !ctx.electrum || ctx.electrum.canSubscribe(checked.params[0] as string)) {
        return checked;
      }
      return { ok: false, error: { code: BAD_REQUEST, message: subscriptionLimit(ctx) } };
    },
  },
  unknownMethod: (method): RpcErrorObject => ({
    code: -32601,
    message: `unknown method "${method}"`,
  }),
  errorStatus: () => 200,
  replyVersion: "2.0",
  // aiorpcx's words (ElectrumX) for an answer over its MAX_SEND, -32600 without the closing
  // parenthesis: clients (BlueWallet) know it, and ask for less.
  tooLarge: (limitBytes) => ({
    code: INVALID_REQUEST,
    message: `response too large (over ${pyThousands(limitBytes)} bytes`,
  }),
  execute: (ctx: ElectrumContext, calls: AcceptedCall[]) => {
    const budget = new AnswerBudget(ctx.services.config.server.responseBytesMax);
    return Promise.all(calls.map(async (c) => counted(budget, await executeCall(ctx, c)))).then(
      (results) => wholeOrTooLarge(budget, results),
    );
  },
};

/** One call: the gateway's own answer, or the server's. */
async function executeCall(ctx: ElectrumContext, c: AcceptedCall): Promise<CallResult> {
  if (c.method === "blockchain.transaction.get") {
    const verbose = c.params[1] === true;
    const source = electrumTxSource(ctx.services, ctx.network);
    const out = await electrumTransaction(source, c.params[0] as string, verbose);
    return render(out, verbose, ctx.network);
  }
  if (GATEWAY_SERVER_METHODS.has(c.method)) return await serverAnswer(ctx, c.method, c.params);
  if (c.method === SUBSCRIBE) return await subscribe(ctx, c.params[0] as string);
  if (c.method === "blockchain.scripthash.unsubscribe") {
    // The session's own list answers; the upstream subscription, shared with other
    // sessions, goes when its last holder does (scripthash-feed.ts).
    const held = ctx.electrum?.unsubscribeScripthash(c.params[0] as string) ?? false;
    return { kind: "answer", answer: { result: held }, upstream: GATEWAY_UPSTREAM };
  }
  const out = await forward(poolOf(ctx), c);
  // Subscribed: from now on the tip is pushed as it moves (src/routes/electrum/push.ts).
  if (c.method === "blockchain.headers.subscribe" && out.kind === "answer") {
    if ("result" in out.answer) ctx.electrum?.subscribeHeaders();
  }
  return out;
}

/**
 * A call's result counted into the request's budget as it comes (calls run concurrently): an
 * answer past the budget is dropped at once, not held for the reply; one a server sent over
 * lineBytesMax (never held) puts the request over too.
 */
function counted(budget: AnswerBudget, r: CallResult): CallResult {
  if (r.kind === "too-large") {
    const known = r.error.data?.answerBytesMin;
    budget.take(typeof known === "number" ? known : budget.limitBytes + 1);
    return r;
  }
  if (r.kind !== "answer") return r;
  if (budget.take(r.bytes ?? answerBytes(r.answer))) return r;
  return { kind: "too-large", error: budget.error(), upstream: r.upstream };
}

/**
 * The request's answers, or, once they went over the budget, RESPONSE_TOO_LARGE for every call
 * that was answered (charged: its server answered), with the server's own limit where one was
 * hit (lineBytesMax), else the request's.
 */
function wholeOrTooLarge(budget: AnswerBudget, results: CallResult[]): CallResult[] {
  if (!budget.over) return results;
  const line = results.find(
    (r) => r.kind === "too-large" && r.error.data?.limitBytes !== budget.limitBytes,
  );
  const error = line?.kind === "too-large" ? line.error : budget.error();
  return results.map((r) =>
    r.kind === "answer" || r.kind === "too-large"
      ? { kind: "too-large", error, upstream: r.upstream }
      : r,
  );
}

const noServer = () =>
  ({
    kind: "failure",
    error: gatewayError("UPSTREAM_UNAVAILABLE", "no Electrum server for this network"),
  }) as const;

/** The server's answer, result or its own JSON-RPC error, passed through and charged. */
async function forward(pool: ElectrumPool | undefined, call: AcceptedCall): Promise<CallResult> {
  if (!pool) return noServer();
  const out = await pool.request(call.method, call.params);
  if (!out.ok) return failed(out);
  const verified = chainLevel(pool.chain, call.method, call.params, out.answer);
  return { kind: "answer", answer: out.answer, upstream: out.upstream, bytes: out.bytes, verified };
}

/** A pool's failure as a call's result: an answer too large is one the server gave. */
function failed(out: { error: GatewayError; upstream?: string }): CallResult {
  return out.error.code === "RESPONSE_TOO_LARGE"
    ? { kind: "too-large", error: out.error, upstream: out.upstream ?? null }
    : { kind: "failure", error: out.error };
}

/**
 * blockchain.scripthash.subscribe: the script's status, as ElectrumX answers it; on a socket
 * session the status is remembered, and a different one is pushed when the server notifies it
 * (or, uncovered by the upstream subscriptions, at a later chain event).
 */
async function subscribe(ctx: ElectrumContext, scripthash: string): Promise<CallResult> {
  const pool = poolOf(ctx);
  if (!pool) return noServer();
  const claim = ctx.electrum?.claimScripthash(scripthash);
  if (claim === "full") {
    // Calls of one batch that passed the check together and would pass the limit: refused, not
    // charged (audited as rejected: no upstream failed).
    return {
      kind: "refused",
      error: gatewayError("LIMIT_EXCEEDED", subscriptionLimit(ctx)),
    };
  }
  const out = await readScripthashStatus(pool, scripthash);
  const status =
    out.ok && "result" in out.answer ? (out.answer.result as string | null) : undefined;
  if (status !== undefined) ctx.electrum?.subscribeScripthash(scripthash, status);
  else if (claim === "new") ctx.electrum?.unsubscribeScripthash(scripthash);
  if (!out.ok) return { kind: "failure", error: out.error };
  return { kind: "answer", answer: out.answer, upstream: out.upstream };
}

/** ElectrumX's refusal past MAX_SESSION_SUBS, with the configured limit. */
function subscriptionLimit(ctx: ElectrumContext): string {
  return `your address subscription limit ${pyThousands(ctx.services.config.electrum.subscriptionsMax)} reached`;
}

/**
 * The spec's answer (§2.1, §4.3): the hex, or the decoded form built by our codec from the bytes
 * with `blockheight` after the block fields; the server's own refusal passes through, charged.
 */
function render(out: ElectrumTxResult, verbose: boolean, network: NetworkName): CallResult {
  if (out.kind === "failure") return failed(out);
  if (out.kind === "refused") {
    return { kind: "answer", answer: { error: out.error }, upstream: out.upstream };
  }
  // Written here, once: its size counts into the request's budget before the reply is written.
  const result = verbose
    ? new RawJsonText(
        stringifyJson(decodedTx(out.tx(), network, out.position, { blockheight: true })),
      )
    : out.hex();
  return { kind: "answer", answer: { result }, upstream: out.upstream, verified: out.verified };
}

export function handleElectrumRpc(ctx: ElectrumContext, body: string): Promise<HttpReply> {
  return handleRpcMirror(ctx, body, ELECTRUM);
}
