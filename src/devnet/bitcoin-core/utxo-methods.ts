import { amountToJson, scriptPubKeyToJson, toHex } from "../../bitcoin/index.ts";
import { merkleBlockBytes } from "../../bitcoin/merkle-block.ts";
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER } from "../../protocol/core/params.ts";
import type { Json } from "../../protocol/json/json.ts";
import type { ChainBlock } from "../chain.ts";
import { MEMPOOL_HEIGHT } from "../utxo.ts";
import type { CoreContext } from "./context.ts";
import type { RpcMethod } from "./http.ts";
import { hashArg, intArg, readParams } from "./params.ts";
import { RpcError } from "./rpc-error.ts";

/** Core's gettxout (rpc/blockchain.cpp) and gettxoutproof (rpc/txoutproof.cpp). */
export function utxoMethods(ctx: CoreContext): Record<string, RpcMethod> {
  const { chain } = ctx;
  return {
    gettxout: (raw) => {
      const [txid, n, includeMempool = null] = readParams(
        "gettxout",
        raw,
        [
          ["txid", "string"],
          ["n", "number"],
          ["include_mempool", "bool"],
        ],
        2,
      );
      const coin = ctx.utxos.coin(
        hashArg(txid as Json, "txid"),
        intArg(n as Json, 0),
        includeMempool !== false,
      );
      if (!coin) return null;
      const out = coin.tx.outputs[coin.vout]!;
      return {
        bestblock: chain.tip.block.hash,
        confirmations: coin.height === MEMPOOL_HEIGHT ? 0 : chain.tip.height - coin.height + 1,
        value: amountToJson(out.value),
        scriptPubKey: scriptPubKeyToJson(out.scriptPubKey, ctx.network),
        coinbase: coin.coinbase,
      };
    },
    gettxoutproof: (raw) => {
      const [list, blockhash = null] = readParams(
        "gettxoutproof",
        raw,
        [
          ["txids", "array"],
          ["blockhash", "string"],
        ],
        1,
      );
      const wanted = new Set<string>();
      for (const item of list as Json[]) {
        const txid = hashArg(item, "txid");
        if (wanted.has(txid)) {
          throw new RpcError(
            RPC_INVALID_PARAMETER,
            `Invalid parameter, duplicated txid: ${item as string}`,
          );
        }
        wanted.add(txid);
      }
      let entry: ChainBlock | undefined;
      if (blockhash !== null) {
        entry = chain.byHash.get(hashArg(blockhash, "blockhash"));
        if (!entry) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
      } else {
        for (const txid of wanted) {
          entry = chain.txIndex.get(txid)?.block;
          if (entry) break;
        }
        if (!entry) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Transaction not yet in block");
      }
      const txs = entry.block.transactions;
      const match = txs.map((t) => wanted.has(t.txid));
      if (match.filter(Boolean).length !== wanted.size) {
        throw new RpcError(
          RPC_INVALID_ADDRESS_OR_KEY,
          "Not all transactions found in specified or retrieved block",
        );
      }
      return toHex(
        merkleBlockBytes(
          entry.block.headerBytes,
          txs.map((t) => t.txidBytes),
          match,
        ),
      );
    },
  };
}
