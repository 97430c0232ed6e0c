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

/** An unspent output as listunspent gives it; height 0 for a mempool output. */
export interface Utxo {
  txid: string;
  vout: number;
  height: number;
  value: bigint;
}

/** What ElectrumX knows of one script: history, unspent outputs and balances. */
export interface ScriptEntry {
  history: HistoryEntry[];
  /** Confirmed ones in chain order, then the mempool's; none a mempool transaction spends. */
  utxos: Utxo[];
  /** The confirmed unspent outputs' sum (db.all_utxos: mempool spends not deducted). */
  confirmedSats: bigint;
  /** mempool.balance_delta: what the mempool pays to the script minus what it spends from it. */
  unconfirmedSats: bigint;
}

type Prevouts = (txid: string, vout: number) => Prevout | undefined;

interface Output {
  scripthash: string;
  value: bigint;
  height: number;
}

const EMPTY: ScriptEntry = { history: [], utxos: [], confirmedSats: 0n, unconfirmedSats: 0n };

/**
 * ElectrumX's script-hash index over devnet's chain: for each script hash, the transactions that
 * pay to the script or spend from it (confirmed ones by height and position in the block, then
 * the mempool's), its unspent outputs and balances. A spent output counts only where devnet
 * knows it (a transaction in a block it holds or in its mempool, block 277647's shipped
 * prevouts); an output spent in a block devnet does not hold still counts as unspent. Built on
 * first use, then again whenever the tip or the mempool changed.
 */
export function scriptIndex(chain: DevnetChain, prevouts: Prevouts): (hash: string) => ScriptEntry {
  let index: Map<string, ScriptEntry> | undefined;
  let builtFor = "";
  return (scripthash) => {
    const state = `${chain.tip.block.hash} ${chain.mempool.size} ${[...chain.mempool.keys()].at(-1) ?? ""}`;
    if (!index || builtFor !== state) {
      index = build(chain, prevouts);
      builtFor = state;
    }
    return index.get(scripthash) ?? EMPTY;
  };
}

function build(chain: DevnetChain, prevouts: Prevouts): Map<string, ScriptEntry> {
  const index = new Map<string, ScriptEntry>();
  const entry = (hash: string): ScriptEntry => {
    let e = index.get(hash);
    if (!e) {
      e = { history: [], utxos: [], confirmedSats: 0n, unconfirmedSats: 0n };
      index.set(hash, e);
    }
    return e;
  };
  /** Outputs devnet created, by outpoint; spent ones are removed as their spends are read. */
  const outputs = new Map<string, Output>();
  const spentBy = (txid: string, vout: number): Output | undefined => {
    const own = outputs.get(`${txid}:${vout}`);
    if (own) return own;
    const p = prevouts(txid, vout);
    return p && { scripthash: electrumScripthash(p.scriptPubKey), value: p.valueSats, height: 0 };
  };
  const touched = (tx: Transaction): Set<string> => {
    const hashes = new Set<string>();
    for (const output of tx.outputs) {
      if (!isUnspendable(output.scriptPubKey)) hashes.add(electrumScripthash(output.scriptPubKey));
    }
    if (!tx.isCoinbase) {
      for (const input of tx.inputs) {
        const spent = spentBy(input.prevTxid, input.vout);
        if (spent) hashes.add(spent.scripthash);
      }
    }
    return hashes;
  };

  const confirmed = new Map<string, Output & { txid: string; vout: number }>();
  for (const height of chain.heights()) {
    for (const tx of chain.byHeight.get(height)!.block.transactions) {
      for (const hash of touched(tx)) entry(hash).history.push({ txid: tx.txid, height });
      if (!tx.isCoinbase) {
        for (const input of tx.inputs) {
          const key = `${input.prevTxid}:${input.vout}`;
          outputs.delete(key);
          confirmed.delete(key);
        }
      }
      tx.outputs.forEach((output, vout) => {
        if (isUnspendable(output.scriptPubKey)) return;
        const out = {
          scripthash: electrumScripthash(output.scriptPubKey),
          value: output.value,
          height,
        };
        outputs.set(`${tx.txid}:${vout}`, out);
        confirmed.set(`${tx.txid}:${vout}`, { ...out, txid: tx.txid, vout });
      });
    }
  }
  for (const tx of chain.mempool.values()) {
    tx.outputs.forEach((output, vout) => {
      if (isUnspendable(output.scriptPubKey)) return;
      const out = {
        scripthash: electrumScripthash(output.scriptPubKey),
        value: output.value,
        height: 0,
      };
      outputs.set(`${tx.txid}:${vout}`, out);
    });
  }

  // Confirmed unspent outputs, in chain order (ElectrumX sorts by tx_num, then tx_pos).
  for (const u of confirmed.values()) {
    const e = entry(u.scripthash);
    e.utxos.push({ txid: u.txid, vout: u.vout, height: u.height, value: u.value });
    e.confirmedSats += u.value;
  }

  const mempoolSpends = new Set<string>();
  for (const tx of chain.mempool.values()) {
    for (const input of tx.inputs) mempoolSpends.add(`${input.prevTxid}:${input.vout}`);
  }
  for (const tx of chain.mempool.values()) {
    const unconfirmedParent = tx.inputs.some((i) => chain.mempool.has(i.prevTxid));
    let fee: bigint | undefined = 0n;
    for (const input of tx.inputs) {
      const spent = spentBy(input.prevTxid, input.vout);
      if (!spent || fee === undefined) fee = undefined;
      else {
        fee += spent.value;
        entry(spent.scripthash).unconfirmedSats -= spent.value;
      }
    }
    if (fee !== undefined) for (const o of tx.outputs) fee -= o.value;
    const historyEntry: HistoryEntry = {
      txid: tx.txid,
      height: unconfirmedParent ? -1 : 0,
      ...(fee === undefined ? {} : { feeSats: fee }),
    };
    for (const hash of touched(tx)) entry(hash).history.push(historyEntry);
    tx.outputs.forEach((output, vout) => {
      if (isUnspendable(output.scriptPubKey)) return;
      const e = entry(electrumScripthash(output.scriptPubKey));
      e.unconfirmedSats += output.value;
      if (!mempoolSpends.has(`${tx.txid}:${vout}`)) {
        e.utxos.push({ txid: tx.txid, vout, height: 0, value: output.value });
      }
    });
  }
  // mempool.potential_spends: a confirmed output a mempool transaction spends is not listed.
  for (const e of index.values()) {
    e.utxos = e.utxos.filter((u) => u.height === 0 || !mempoolSpends.has(`${u.txid}:${u.vout}`));
  }
  return index;
}
