import type { CallContext } from "../app/context.ts";
import type { HttpReply } from "../http/reply.ts";
import { checkTransactionGet } from "./electrum-params.ts";
import { electrumTransaction } from "./electrum-tx.ts";
import { type AcceptedCall, handleRpcMirror, type MirrorProtocol } from "./rpc-route.ts";

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
  execute: (ctx: CallContext, calls: AcceptedCall[]) =>
    Promise.all(
      calls.map((c) => electrumTransaction(ctx, c.params[0] as string, c.params[1] === true)),
    ),
};

export function handleElectrumRpc(ctx: CallContext, body: string): Promise<HttpReply> {
  return handleRpcMirror(ctx, body, ELECTRUM);
}
