import type { Prevout } from "../../bitcoin/prevouts.ts";
import { electrumScripthash, isUnspendable } from "../../bitcoin/scripthash.ts";
import type { Transaction } from "../../bitcoin/transaction.ts";
import type { DevnetChain } from "../chain.ts";

export interface HistoryEntry {
  txid: string;
  /** Block height; 0 for a mempool transaction, -1 for one spending another mempool output. */
  height: number;
  /** Mempool entries only, when every spent output is known to devnet. */
  feeSats?: bigint;
}

type Prevouts = (txid: string, vout: number) => Prevout | undefined;

/**
 * ElectrumX's history index over devnet's chain: for each script hash, the transactions that pay
 * to the script or spend from it, confirmed ones by height and position in the block, then the
 * mempool's. A spent output counts only where devnet knows it (a transaction in a block it holds,
 * or block 277647's shipped prevouts). Built on first use, then kept per chain.
 */
export function historyIndex(
  chain: DevnetChain,
  prevouts: Prevouts,
): (scripthash: string) => HistoryEntry[] {
  let index: Map<string, HistoryEntry[]> | undefined;
  let builtAt = -1;
  return (scripthash) => {
    // A block added to the chain (tests mine one) makes the index stale: build it again.
    if (!index || builtAt !== chain.tip.height) {
      index = build(chain, prevouts);
      builtAt = chain.tip.height;
    }
    return index.get(scripthash) ?? [];
  };
}

function build(chain: DevnetChain, prevouts: Prevouts): Map<string, HistoryEntry[]> {
  const index = new Map<string, HistoryEntry[]>();
  const add = (tx: Transaction, entry: HistoryEntry) => {
    const hashes = new Set<string>();
    for (const output of tx.outputs) {
      if (!isUnspendable(output.scriptPubKey)) hashes.add(electrumScripthash(output.scriptPubKey));
    }
    if (!tx.isCoinbase) {
      for (const input of tx.inputs) {
        const spent = prevouts(input.prevTxid, input.vout);
        if (spent) hashes.add(electrumScripthash(spent.scriptPubKey));
      }
    }
    for (const hash of hashes) {
      const list = index.get(hash) ?? [];
      list.push(entry);
      index.set(hash, list);
    }
  };
  for (const height of chain.heights()) {
    for (const tx of chain.byHeight.get(height)!.block.transactions)
      add(tx, { txid: tx.txid, height });
  }
  for (const tx of chain.mempool.values()) {
    const unconfirmedParent = tx.inputs.some((i) => chain.mempool.has(i.prevTxid));
    let fee: bigint | undefined = 0n;
    for (const input of tx.inputs) {
      const spent = prevouts(input.prevTxid, input.vout);
      if (!spent || fee === undefined) fee = undefined;
      else fee += spent.valueSats;
    }
    if (fee !== undefined) for (const o of tx.outputs) fee -= o.value;
    add(tx, {
      txid: tx.txid,
      height: unconfirmedParent ? -1 : 0,
      ...(fee === undefined ? {} : { feeSats: fee }),
    });
  }
  return index;
}
