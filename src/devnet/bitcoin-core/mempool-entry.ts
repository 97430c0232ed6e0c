import { amountToJson, type Transaction, txFee } from "../../bitcoin/index.ts";
import type { CoreContext } from "./context.ts";

/** The transaction's fee when devnet knows every input (held blocks, shipped undo, mempool). */
export function mempoolFee(ctx: CoreContext, tx: Transaction): bigint | undefined {
  return txFee(tx, (txid, vout) => {
    const parent = ctx.chain.mempool.get(txid);
    const o = parent?.outputs[vout];
    if (o) return { valueSats: o.value, scriptPubKey: o.scriptPubKey, height: 0, coinbase: false };
    return ctx.prevouts(txid, vout);
  });
}

/** In-mempool relatives: `up` walks parents (ancestors), otherwise children (descendants). */
function relatives(ctx: CoreContext, tx: Transaction, up: boolean): Transaction[] {
  const pool = ctx.chain.mempool;
  const found = new Map<string, Transaction>([[tx.txid, tx]]);
  const queue = [tx];
  while (queue.length > 0) {
    const t = queue.pop()!;
    const next = up
      ? t.inputs.map((i) => pool.get(i.prevTxid)).filter((p) => p !== undefined)
      : [...pool.values()].filter((c) => c.inputs.some((i) => i.prevTxid === t.txid));
    for (const n of next) {
      if (found.has(n.txid)) continue;
      found.set(n.txid, n);
      queue.push(n);
    }
  }
  return [...found.values()];
}

function sumFees(ctx: CoreContext, txs: Transaction[]): bigint | undefined {
  let total = 0n;
  for (const t of txs) {
    const fee = mempoolFee(ctx, t);
    if (fee === undefined) return undefined;
    total += fee;
  }
  return total;
}

/**
 * Core's entryToJSON (rpc/mempool.cpp, v29 keys and order). `fees` needs every fee involved;
 * where devnet cannot know one (inputs from blocks it does not hold) the object is left out
 * rather than invented.
 */
export function mempoolEntryJson(ctx: CoreContext, tx: Transaction): Record<string, unknown> {
  const ancestors = relatives(ctx, tx, true);
  const descendants = relatives(ctx, tx, false);
  const entered = ctx.entered.get(tx.txid);
  const fee = mempoolFee(ctx, tx);
  const ancestorFees = sumFees(ctx, ancestors);
  const descendantFees = sumFees(ctx, descendants);
  const signals = ancestors.some((a) => a.inputs.some((i) => i.sequence < 0xfffffffe));
  return {
    vsize: tx.vsize,
    weight: tx.weight,
    time: entered?.time ?? Math.floor(ctx.startedAt / 1000),
    height: entered?.height ?? ctx.chain.tip.height,
    descendantcount: descendants.length,
    descendantsize: descendants.reduce((s, t) => s + t.vsize, 0),
    ancestorcount: ancestors.length,
    ancestorsize: ancestors.reduce((s, t) => s + t.vsize, 0),
    wtxid: tx.wtxid,
    ...(fee === undefined || ancestorFees === undefined || descendantFees === undefined
      ? {}
      : {
          fees: {
            base: amountToJson(fee),
            modified: amountToJson(fee),
            ancestor: amountToJson(ancestorFees),
            descendant: amountToJson(descendantFees),
          },
        }),
    depends: tx.inputs
      .map((i) => i.prevTxid)
      .filter((id, k, all) => ctx.chain.mempool.has(id) && all.indexOf(id) === k),
    spentby: descendants
      .filter((d) => d !== tx && d.inputs.some((i) => i.prevTxid === tx.txid))
      .map((d) => d.txid),
    "bip125-replaceable": signals,
    // Submitted through this Core and, with no peers to ask for it, never broadcast.
    unbroadcast: entered !== undefined,
  };
}
