import { amountToJson, parseTransaction, type Transaction } from "../../bitcoin/index.ts";
import { MAX_SCRIPT_SIZE, OP_RETURN } from "../../bitcoin/script-ops.ts";
import type { Json } from "../../protocol/json/json.ts";
import { checkMempoolAccept, rejectionText } from "../mempool-policy.ts";
import type { CoreContext } from "./context.ts";
import { amountArg, DEFAULT_MAX_FEERATE, feeRateArg, packageArg } from "./fee-params.ts";
import type { RpcMethod } from "./http.ts";
import { readParams } from "./params.ts";
import { RpcError } from "./rpc-error.ts";

const RPC_DESERIALIZATION_ERROR = -22;
const RPC_TRANSACTION_ERROR = -25;

function decode(hex: string): Transaction | undefined {
  if (!/^([0-9a-fA-F]{2})*$/.test(hex)) return undefined;
  try {
    return parseTransaction(Buffer.from(hex, "hex"));
  } catch {
    return undefined;
  }
}

/** The fee a feerate (sat per 1000 vbytes) allows for `vsize`: CFeeRate::GetFee. */
function feeAt(rate: bigint, vsize: number): bigint {
  return (rate * BigInt(vsize)) / 1000n;
}

/** Core's rawtransaction.cpp submission: sendrawtransaction and testmempoolaccept. */
export function txSubmitMethods(ctx: CoreContext): Record<string, RpcMethod> {
  const { chain } = ctx;
  return {
    sendrawtransaction: (raw) => {
      const [hex, maxfeerate = null, maxburn = null] = readParams(
        "sendrawtransaction",
        raw,
        [
          ["hexstring", "string"],
          ["maxfeerate", "number", "string"],
          ["maxburnamount", "number", "string"],
        ],
        1,
      );
      const tx = decode(hex as string);
      if (!tx) {
        throw new RpcError(
          RPC_DESERIALIZATION_ERROR,
          "TX decode failed. Make sure the tx has at least one input.",
        );
      }
      const burnMax = amountArg(maxburn as Json, 0n);
      for (const o of tx.outputs) {
        const burns = o.scriptPubKey[0] === OP_RETURN || o.scriptPubKey.length > MAX_SCRIPT_SIZE;
        if (burns && o.value > burnMax) {
          throw new RpcError(
            RPC_TRANSACTION_ERROR,
            "Unspendable output exceeds maximum configured by user (maxburnamount)",
          );
        }
      }
      const rate = feeRateArg(maxfeerate as Json, DEFAULT_MAX_FEERATE);
      // Already in the mempool: Core relays it again and answers its txid.
      if (chain.mempool.has(tx.txid)) return tx.txid;
      const verdict = checkMempoolAccept(chain, ctx.utxos, tx);
      if ("reason" in verdict) {
        const message = verdict.code === -26 ? rejectionText(verdict) : verdict.reason;
        throw new RpcError(verdict.code, message);
      }
      if (rate !== 0n && verdict.fee > feeAt(rate, verdict.vsize)) {
        throw new RpcError(
          RPC_TRANSACTION_ERROR,
          "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)",
        );
      }
      chain.addToMempool(tx);
      ctx.entered.set(tx.txid, {
        time: Math.floor(Date.now() / 1000),
        height: chain.tip.height,
      });
      return tx.txid;
    },
    testmempoolaccept: (raw) => {
      const [list, maxfeerate = null] = readParams(
        "testmempoolaccept",
        raw,
        [
          ["rawtxs", "array"],
          ["maxfeerate", "number", "string"],
        ],
        1,
      );
      const hexes = packageArg(list);
      const rate = feeRateArg(maxfeerate as Json, DEFAULT_MAX_FEERATE);
      const txs = hexes.map((h) => {
        const tx = typeof h === "string" ? decode(h) : undefined;
        if (!tx) {
          throw new RpcError(
            RPC_DESERIALIZATION_ERROR,
            `TX decode failed: ${String(h)} Make sure the tx has at least one input.`,
          );
        }
        return tx;
      });
      // Each transaction is tested alone against the mempool (devnet does not evaluate packages).
      return txs.map((tx) => {
        const head = { txid: tx.txid, wtxid: tx.wtxid };
        const verdict = checkMempoolAccept(chain, ctx.utxos, tx);
        if ("reason" in verdict) {
          const reason = verdict.code === -25 ? "missing-inputs" : verdict.reason;
          return {
            ...head,
            allowed: false,
            "reject-reason": reason,
            "reject-details": verdict.code === -25 ? reason : rejectionText(verdict),
          };
        }
        if (rate !== 0n && verdict.fee > feeAt(rate, verdict.vsize)) {
          return { ...head, allowed: false, "reject-reason": "max-fee-exceeded" };
        }
        return {
          ...head,
          allowed: true,
          vsize: verdict.vsize,
          fees: {
            base: amountToJson(verdict.fee),
            "effective-feerate": amountToJson((verdict.fee * 1000n) / BigInt(verdict.vsize)),
            "effective-includes": [tx.wtxid],
          },
        };
      });
    },
  };
}
