import { amountToJson } from "../../bitcoin/index.ts";
import { RPC_INVALID_ADDRESS_OR_KEY, RPC_INVALID_PARAMETER } from "../../protocol/core/params.ts";
import type { Json } from "../../protocol/json/json.ts";
import { estimateFeerate, MAX_CONF_TARGET } from "../fee-estimate.ts";
import { MIN_RELAY_FEERATE } from "../mempool-policy.ts";
import type { CoreContext } from "./context.ts";
import type { RpcMethod } from "./http.ts";
import { mempoolEntryJson, mempoolFee } from "./mempool-entry.ts";
import { hashArg, intArg, readParams } from "./params.ts";
import { RpcError } from "./rpc-error.ts";

/** Core's -maxmempool default, 300 MB. */
const MAX_MEMPOOL_BYTES = 300_000_000;
const ESTIMATE_MODES = ["unset", "economical", "conservative"];

/** Core's rpc/mempool.cpp and rpc/fees.cpp over the network's devnet mempool. */
export function mempoolMethods(ctx: CoreContext): Record<string, RpcMethod> {
  const { chain } = ctx;
  return {
    getmempoolinfo: (raw) => {
      readParams("getmempoolinfo", raw, [], 0);
      const txs = [...chain.mempool.values()];
      const fees = txs.map((t) => mempoolFee(ctx, t) ?? 0n).reduce((a, b) => a + b, 0n);
      return {
        loaded: true,
        size: txs.length,
        bytes: txs.reduce((s, t) => s + t.vsize, 0),
        // Core's allocator count is not reproducible; devnet reports the serialized bytes held.
        usage: txs.reduce((s, t) => s + t.size, 0),
        // The fees devnet knows (see mempoolEntryJson: some inputs are in blocks it lacks).
        total_fee: amountToJson(fees),
        maxmempool: MAX_MEMPOOL_BYTES,
        mempoolminfee: amountToJson(MIN_RELAY_FEERATE),
        minrelaytxfee: amountToJson(MIN_RELAY_FEERATE),
        incrementalrelayfee: amountToJson(MIN_RELAY_FEERATE),
        unbroadcastcount: ctx.entered.size,
        fullrbf: true,
      };
    },
    getrawmempool: (raw) => {
      const [verbose = null, sequence = null] = readParams(
        "getrawmempool",
        raw,
        [
          ["verbose", "bool"],
          ["mempool_sequence", "bool"],
        ],
        0,
      );
      if (verbose === true && sequence === true) {
        throw new RpcError(
          RPC_INVALID_PARAMETER,
          "Verbose results cannot contain mempool sequence values.",
        );
      }
      const txs = [...chain.mempool.values()];
      if (verbose === true) {
        return Object.fromEntries(txs.map((t) => [t.txid, mempoolEntryJson(ctx, t)]));
      }
      const txids = txs.map((t) => t.txid);
      // One sequence step per transaction that entered or left since start, as Core counts them.
      return sequence === true ? { txids, mempool_sequence: ctx.entered.size + 1 } : txids;
    },
    getmempoolentry: (raw) => {
      const [txid] = readParams("getmempoolentry", raw, [["txid", "string"]], 1);
      const tx = chain.mempool.get(hashArg(txid as Json, "parameter 1"));
      if (!tx) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Transaction not in mempool");
      return mempoolEntryJson(ctx, tx);
    },
    estimatesmartfee: (raw) => {
      const [target, mode = null] = readParams(
        "estimatesmartfee",
        raw,
        [
          ["conf_target", "number"],
          ["estimate_mode", "string"],
        ],
        1,
      );
      const n = intArg(target as Json, 0);
      if (n < 1 || n > MAX_CONF_TARGET) {
        throw new RpcError(
          RPC_INVALID_PARAMETER,
          `Invalid conf_target, must be between 1 and ${MAX_CONF_TARGET}`,
        );
      }
      if (mode !== null && !ESTIMATE_MODES.includes((mode as string).toLowerCase())) {
        throw new RpcError(
          RPC_INVALID_PARAMETER,
          'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"',
        );
      }
      const rate = estimateFeerate(chain.mempool.values(), (t) => mempoolFee(ctx, t), n);
      if (rate === undefined) {
        return { errors: ["Insufficient data or no feerate found"], blocks: 0 };
      }
      // Core answers a target of 1 as 2 (no estimate is kept for the very next block).
      return { feerate: amountToJson(rate), blocks: Math.max(2, n) };
    },
  };
}
