import type { NetworkName } from "../config/schema.ts";
import type { HttpReply } from "../http/reply.ts";
import { decodedTx } from "../jsonrpc/decoded-tx.ts";
import { checkTransactionGet } from "../jsonrpc/electrum-params.ts";
import { type CallContext, electrumTxSource } from "../metering/context.ts";
import { type ElectrumTxResult, electrumTransaction } from "../upstreams/electrum/transaction.ts";
import {
  type AcceptedCall,
  type CallResult,
  handleRpcMirror,
  type MirrorProtocol,
} from "./rpc-route.ts";

/**
 * The Electrum mirror: POST /<electrum>/<network>/<token> with the spec's JSON-RPC envelope
 * (§4.1), read by the same envelope parser as the node route. Methods and parameters are checked
 * in ElectrumX's words before anything is forwarded or charged; JSON-RPC errors travel with HTTP
 * 200, as Electrum has no HTTP of its own to copy. Calls of a batch run concurrently (the
 * connections pipeline them).
 */
const ELECTRUM: MirrorProtocol = {
  methods: { "blockchain.transaction.get": (params) => checkTransactionGet(params) },
  unknownMethod: (method) => ({ code: -32601, message: `unknown method "${method}"` }),
  errorStatus: () => 200,
  execute: (ctx: CallContext, calls: AcceptedCall[]) => {
    const source = electrumTxSource(ctx.app, ctx.network);
    return Promise.all(
      calls.map(async (c) => {
        const verbose = c.params[1] === true;
        const out = await electrumTransaction(source, c.params[0] as string, verbose);
        return render(out, verbose, ctx.network);
      }),
    );
  },
};

/**
 * The spec's answer (§2.1, §4.3): the hex, or the decoded form built by our codec from the bytes
 * with `blockheight` after the block fields; the server's own refusal passes through, charged.
 */
function render(out: ElectrumTxResult, verbose: boolean, network: NetworkName): CallResult {
  if (out.kind === "failure") return out;
  if (out.kind === "refused") {
    return { kind: "answer", answer: { error: out.error }, upstream: out.upstream };
  }
  const result = verbose
    ? decodedTx(out.tx(), network, out.position, { blockheight: true })
    : out.hex();
  return { kind: "answer", answer: { result }, upstream: out.upstream };
}

export function handleElectrumRpc(ctx: CallContext, body: string): Promise<HttpReply> {
  return handleRpcMirror(ctx, body, ELECTRUM);
}
