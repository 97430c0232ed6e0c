import type { Network, Prevout, Transaction } from "../../bitcoin/index.ts";
import type { ChainBlock, DevnetChain } from "../chain.ts";

/** What devnet's Esplora reads: one network's chain and the outputs it knows were spent. */
export interface EsploraView {
  chain: DevnetChain;
  network: Network;
  prevouts: (txid: string, vout: number) => Prevout | undefined;
}

/** A transaction devnet holds: in a best-chain block (with it), or in the mempool. */
export interface HeldTx {
  tx: Transaction;
  block: ChainBlock | null;
}

export function heldTx(view: EsploraView, txid: string): HeldTx | undefined {
  const at = view.chain.txIndex.get(txid);
  if (at) return { tx: at.block.block.transactions[at.index]!, block: at.block };
  const pending = view.chain.mempool.get(txid);
  return pending ? { tx: pending, block: null } : undefined;
}

/** The output an input spends: a confirmed one (or one whose undo data is shipped), or a mempool one. */
export function spentOutput(
  view: EsploraView,
  txid: string,
  vout: number,
): { value: bigint; script: Uint8Array } | undefined {
  const known = view.prevouts(txid, vout);
  if (known) return { value: known.valueSats, script: known.scriptPubKey };
  const output = view.chain.mempool.get(txid)?.outputs[vout];
  return output && { value: output.value, script: output.scriptPubKey };
}

/** Whether a block is on the best chain (not one a reorganisation or invalidateblock took off). */
export function onBestChain(view: EsploraView, entry: ChainBlock): boolean {
  return view.chain.byHeight.get(entry.height) === entry;
}

/** electrs' TransactionStatus: `{"confirmed":false}`, or the confirming block's height, hash, time. */
export function txStatus(block: ChainBlock | null): Record<string, unknown> {
  if (!block) return { confirmed: false };
  return {
    confirmed: true,
    block_height: block.height,
    block_hash: block.block.hash,
    block_time: block.block.time,
  };
}

/** The fee electrs computes: inputs' values less outputs' (0 for a coinbase, or unknown inputs). */
export function feeOf(view: EsploraView, tx: Transaction): bigint {
  if (tx.isCoinbase) return 0n;
  let inputs = 0n;
  for (const input of tx.inputs) {
    const spent = spentOutput(view, input.prevTxid, input.vout);
    if (!spent) return 0n;
    inputs += spent.value;
  }
  const fee = tx.outputs.reduce((sum, o) => sum - o.value, inputs);
  return fee < 0n ? 0n : fee;
}
