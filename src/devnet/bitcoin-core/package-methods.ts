import { amountToJson, parseTransaction, type Transaction } from "../../bitcoin/index.ts";
import { MAX_SCRIPT_SIZE, OP_RETURN } from "../../bitcoin/script-ops.ts";
import type { Json } from "../../protocol/json/json.ts";
import { checkMempoolAccept, rejectionText } from "../mempool-policy.ts";
import type { CoreContext } from "./context.ts";
import { amountArg, DEFAULT_MAX_FEERATE, feeRateArg, packageArg } from "./fee-params.ts";
import type { RpcMethod } from "./http.ts";
import { mempoolFee } from "./mempool-entry.ts";
import { readParams } from "./params.ts";
import { RpcError } from "./rpc-error.ts";

const RPC_DESERIALIZATION_ERROR = -22;
const RPC_TRANSACTION_ERROR = -25;
/** Core's MAX_PACKAGE_WEIGHT. */
const MAX_PACKAGE_WEIGHT = 404_000;

type TxResult = { [key: string]: Json };

function decode(h: Json): Transaction {
  const hex = typeof h === "string" ? h : "";
  const tx =
    /^([0-9a-fA-F]{2})+$/.test(hex) &&
    (() => {
      try {
        return parseTransaction(Buffer.from(hex, "hex"));
      } catch {
        return undefined;
      }
    })();
  if (!tx) {
    throw new RpcError(
      RPC_DESERIALIZATION_ERROR,
      `TX decode failed: ${String(h)} Make sure the tx has at least one input.`,
    );
  }
  return tx;
}

/**
 * Core's IsChildWithParentsTree (policy/packages.cpp): the last transaction spends an output of
 * every other one, and no other one spends another's.
 */
function isChildWithParentsTree(txs: Transaction[]): boolean {
  const child = txs.at(-1)!;
  const spent = new Set(child.inputs.map((i) => i.prevTxid));
  const parents = txs.slice(0, -1);
  if (!parents.every((p) => spent.has(p.txid))) return false;
  const parentIds = new Set(parents.map((p) => p.txid));
  return parents.every((p) => p.inputs.every((i) => !parentIds.has(i.prevTxid)));
}

/** Core's IsWellFormedPackage, past what the topology check already refused: its reason or null. */
function packageReason(txs: Transaction[]): string | null {
  if (txs.reduce((w, tx) => w + tx.weight, 0) > MAX_PACKAGE_WEIGHT) return "package-too-large";
  if (new Set(txs.map((tx) => tx.txid)).size < txs.length) return "package-contains-duplicates";
  const outpoints = txs.flatMap((tx) => tx.inputs.map((i) => `${i.prevTxid}:${i.vout}`));
  if (new Set(outpoints).size < outpoints.length) return "conflict-in-package";
  return null;
}

/**
 * Core's mempool.cpp submitpackage as of 29.0: the package is checked (count, decoding, burns,
 * child-with-parents topology, package policy), then each transaction is tried in order, alone
 * (devnet evaluates no package feerate: a parent below the minimum relay fee is refused, its own
 * feerate is its effective one). Accepted ones stay in the mempool; the others carry their error.
 */
export function packageMethods(ctx: CoreContext): Record<string, RpcMethod> {
  return {
    submitpackage: (raw) => {
      const [list, maxfeerate = null, maxburn = null] = readParams(
        "submitpackage",
        raw,
        [
          ["package", "array"],
          ["maxfeerate", "number", "string"],
          ["maxburnamount", "number", "string"],
        ],
        1,
      );
      const hexes = packageArg(list);
      const rate = feeRateArg(maxfeerate as Json, DEFAULT_MAX_FEERATE);
      const burnMax = amountArg(maxburn as Json, 0n);
      const txs = hexes.map((h) => {
        const tx = decode(h);
        for (const o of tx.outputs) {
          const burns = o.scriptPubKey[0] === OP_RETURN || o.scriptPubKey.length > MAX_SCRIPT_SIZE;
          if (burns && o.value > burnMax) {
            throw new RpcError(
              RPC_TRANSACTION_ERROR,
              "Unspendable output exceeds maximum configured by user (maxburnamount)",
            );
          }
        }
        return tx;
      });
      if (txs.length > 1 && !isChildWithParentsTree(txs)) {
        throw new RpcError(
          RPC_TRANSACTION_ERROR,
          "package topology disallowed. not child-with-parents or parents depend on each other.",
        );
      }
      const policy = packageReason(txs);
      // A package refused whole has no result per transaction: Core 29 then leaves each out.
      if (policy) return { package_msg: policy, "tx-results": {}, "replaced-transactions": [] };
      return submitEach(ctx, txs, rate);
    },
  };
}

/** Each transaction tried in order; what Core's result map says of it. */
function submitEach(ctx: CoreContext, txs: Transaction[], rate: bigint): Json {
  const { chain } = ctx;
  let failed = false;
  const results: { [wtxid: string]: Json } = {};
  for (const tx of txs) {
    const head: TxResult = { txid: tx.txid };
    if (chain.mempool.has(tx.txid)) {
      // MEMPOOL_ENTRY: Core gives no effective feerate (how it was accepted is not known).
      const fee = mempoolFee(ctx, tx) ?? 0n;
      results[tx.wtxid] = { ...head, vsize: tx.vsize, fees: { base: amountToJson(fee) } };
      continue;
    }
    const verdict = checkMempoolAccept(chain, ctx.utxos, tx);
    if ("reason" in verdict) {
      failed = true;
      results[tx.wtxid] = { ...head, error: rejectionText(verdict) };
      continue;
    }
    if (rate !== 0n && verdict.fee * 1000n > rate * BigInt(verdict.vsize)) {
      failed = true;
      results[tx.wtxid] = { ...head, error: "max feerate exceeded" };
      continue;
    }
    chain.addToMempool(tx);
    ctx.entered.set(tx.txid, { time: Math.floor(Date.now() / 1000), height: chain.tip.height });
    results[tx.wtxid] = {
      ...head,
      vsize: verdict.vsize,
      fees: {
        base: amountToJson(verdict.fee),
        "effective-feerate": amountToJson((verdict.fee * 1000n) / BigInt(verdict.vsize)),
        "effective-includes": [tx.wtxid],
      },
    };
  }
  return {
    package_msg: failed ? "transaction failed" : "success",
    "tx-results": results,
    "replaced-transactions": [],
  };
}
