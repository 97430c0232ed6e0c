import {
  type Network,
  type Prevout,
  parseTransaction,
  type Transaction,
  txToUniv,
} from "../../bitcoin/index.ts";
import type { NetworkName } from "../../config/schema.ts";
import { checkGetRawTransaction } from "../../jsonrpc/core-methods.ts";
import {
  asPositional,
  isRpcError,
  RPC_INVALID_ADDRESS_OR_KEY,
  RPC_TYPE_ERROR,
  uvTypeName,
  writeIndented4,
} from "../../jsonrpc/core-params.ts";
import { isJsonNumber, type Json } from "../../jsonrpc/json.ts";
import type { ChainBlock, DevnetChain } from "../chain.ts";
import type { RpcMethod } from "./http.ts";
import { RpcError } from "./rpc-error.ts";

const GENESIS_MERKLE_ROOT = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b";

/**
 * devnet's Core methods over the devnet chain. The same chain serves every network; the network
 * only changes how addresses are written, as it would on a node of that chain.
 */
export function coreMethods(
  chain: DevnetChain,
  network: NetworkName,
  prevouts: (txid: string, vout: number) => Prevout | undefined,
): Record<string, RpcMethod> {
  const net = network as Network;

  function getrawtransaction(raw: Json[] | { [key: string]: Json }): unknown {
    const checked = checkGetRawTransaction(raw, network);
    if (!checked.ok) throw new RpcError(checked.error.code, checked.error.message);
    const [txidParam, verbosityParam = null, blockhashParam = null] = checked.params;
    const txid = (txidParam as string).toLowerCase();
    if (txid === GENESIS_MERKLE_ROOT) {
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
      scope = chain.byHash.get((blockhashParam as string).toLowerCase());
      if (!scope) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block hash not found");
    }
    let tx: Transaction | undefined;
    let home: ChainBlock | undefined;
    if (scope) {
      tx = scope.block.transactions.find((t) => t.txid === txid);
      home = scope;
    } else {
      tx = chain.mempool.get(txid);
      if (!tx) {
        const at = chain.txIndex.get(txid);
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
    Object.assign(result, txToUniv(tx, { network: net, ...(withPrevouts ? { prevouts } : {}) }));
    if (home) {
      result.blockhash = home.block.hash;
      result.confirmations = chain.confirmations(home);
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
    return txToUniv(tx, { network: net, includeHex: false });
  }

  return {
    getrawtransaction,
    decoderawtransaction,
    getblockcount: () => chain.tip.height,
    getbestblockhash: () => chain.tip.block.hash,
    // Core's own way to stage a reorganisation (tests of the gateway's cache eviction).
    invalidateblock: (raw) => {
      const [hash] = asPositional(raw, ["blockhash"]) as Json[];
      if (typeof hash !== "string" || !chain.invalidateBlock(hash.toLowerCase())) {
        throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
      }
      return null;
    },
    reconsiderblock: () => {
      chain.reconsiderBlocks();
      return null;
    },
    getblockhash: (raw) => {
      const [height] = asPositional(raw, ["height"]) as Json[];
      if (!isJsonNumber(height)) {
        throw new RpcError(
          RPC_TYPE_ERROR,
          `JSON value of type ${uvTypeName(height)} is not of expected type number`,
        );
      }
      const entry = chain.byHeight.get(Number(height.value));
      if (!entry) throw new RpcError(-8, "Block height out of range");
      return entry.block.hash;
    },
  };
}
