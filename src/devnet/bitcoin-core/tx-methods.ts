import { parseTransaction, type Transaction, txToUniv } from "../../bitcoin/index.ts";
import { checkGetRawTransaction } from "../../protocol/core/methods.ts";
import {
  asPositional,
  isRpcError,
  RPC_INVALID_ADDRESS_OR_KEY,
  RPC_TYPE_ERROR,
  uvTypeName,
  writeIndented4,
} from "../../protocol/core/params.ts";
import type { Json } from "../../protocol/json/json.ts";
import type { ChainBlock } from "../chain.ts";
import type { CoreContext } from "./context.ts";
import type { RpcMethod } from "./http.ts";
import { RpcError } from "./rpc-error.ts";

/** Core's rawtransaction.cpp reads: getrawtransaction and decoderawtransaction. */
export function txReadMethods(ctx: CoreContext): Record<string, RpcMethod> {
  function getrawtransaction(raw: Json[] | { [key: string]: Json }): unknown {
    const checked = checkGetRawTransaction(raw, ctx.network);
    if (!checked.ok) throw new RpcError(checked.error.code, checked.error.message);
    const [txidParam, verbosityParam = null, blockhashParam = null] = checked.params;
    const txid = (txidParam as string).toLowerCase();
    // Core compares with its chain's genesis merkle root (testnet4's coinbase is its own).
    if (txid === ctx.chain.byHeight.get(0)?.block.merkleroot) {
      throw new RpcError(
        RPC_INVALID_ADDRESS_OR_KEY,
        "The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved",
      );
    }
    const verbosity =
      verbosityParam === null
        ? 0
        : typeof verbosityParam === "boolean"
          ? Number(verbosityParam)
          : Number((verbosityParam as { value: string }).value);
    let scope: ChainBlock | undefined;
    if (blockhashParam !== null) {
      scope = ctx.chain.byHash.get((blockhashParam as string).toLowerCase());
      if (!scope) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block hash not found");
    }
    let tx: Transaction | undefined;
    let home: ChainBlock | undefined;
    if (scope) {
      tx = scope.block.transactions.find((t) => t.txid === txid);
      home = scope;
    } else {
      tx = ctx.chain.mempool.get(txid);
      if (!tx) {
        const at = ctx.chain.txIndex.get(txid);
        if (at) {
          tx = at.block.block.transactions[at.index];
          home = at.block;
        }
      }
    }
    if (!tx) {
      throw new RpcError(
        RPC_INVALID_ADDRESS_OR_KEY,
        scope
          ? "No such transaction found in the provided block. Use gettransaction for wallet transactions."
          : "No such mempool or blockchain transaction. Use gettransaction for wallet transactions.",
      );
    }
    if (verbosity <= 0) return tx.hex;
    const result: Record<string, unknown> = {};
    if (scope) result.in_active_chain = true;
    // Core reads undo data only for a mined, non-coinbase transaction at verbosity 2.
    const withPrevouts = verbosity >= 2 && home !== undefined && !tx.isCoinbase;
    Object.assign(
      result,
      txToUniv(tx, { network: ctx.network, ...(withPrevouts ? { prevouts: ctx.prevouts } : {}) }),
    );
    if (home) {
      result.blockhash = home.block.hash;
      result.confirmations = ctx.chain.confirmations(home);
      result.time = home.block.time;
      result.blocktime = home.block.time;
    }
    return result;
  }

  function decoderawtransaction(raw: Json[] | { [key: string]: Json }): unknown {
    const positional = asPositional(raw, ["hexstring", "iswitness"]);
    if (isRpcError(positional)) throw new RpcError(positional.code, positional.message);
    const [hex, iswitness = null] = positional as Json[];
    if (typeof hex !== "string") {
      throw new RpcError(
        RPC_TYPE_ERROR,
        `Wrong type passed:\n${writeIndented4([["Position 1 (hexstring)", `JSON value of type ${uvTypeName(hex)} is not of expected type string`]])}`,
      );
    }
    if (iswitness !== null && typeof iswitness !== "boolean") {
      throw new RpcError(
        RPC_TYPE_ERROR,
        `Wrong type passed:\n${writeIndented4([["Position 2 (iswitness)", `JSON value of type ${uvTypeName(iswitness)} is not of expected type bool`]])}`,
      );
    }
    let tx: Transaction;
    try {
      if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new Error("not hex");
      tx = parseTransaction(Buffer.from(hex, "hex"));
    } catch {
      throw new RpcError(-22, "TX decode failed");
    }
    return txToUniv(tx, { network: ctx.network, includeHex: false });
  }

  return { getrawtransaction, decoderawtransaction };
}
