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
 * first use, then again whenever the tip or the mempool changed. `prevouts` is the chain's own
 * (chainPrevouts): what the index holds then follows from the chain's blocks and mempool alone.
 */
export function scriptIndex(chain: DevnetChain, prevouts: Prevouts): (hash: string) => ScriptEntry {
  let index: Map<string, ScriptEntry> | undefined;
  let builtFor = "";
  return (scripthash) => {
    const state = `${chain.tip.block.hash} ${chain.mempool.size} ${[...chain.mempool.keys()].at(-1) ?? ""}`;
    if (!index || builtFor !== state) {
      index = sharedBuild(chain, prevouts);
      builtFor = state;
    }
    return index.get(scripthash) ?? EMPTY;
  };
}

/**
 * Indexes built lately, by the content they index: the network, each height's block hash and
 * the mempool's txids. Chains of the same content have the same index, and most are: every
 * devnet's mainnet until it mines, and one devnet's Electrum and Esplora servers, which index
 * one chain each for themselves. Read-only once built: readers filter and map copies.
 */
const built = new Map<string, Map<string, ScriptEntry>>();
const BUILT_MAX = 4;

function sharedBuild(chain: DevnetChain, prevouts: Prevouts): Map<string, ScriptEntry> {
  const blocks = chain.heights().map((h) => chain.byHeight.get(h)!.block.hash);
  const content = `${chain.network} ${blocks.join(",")} ${[...chain.mempool.keys()].join(",")}`;
  let index = built.get(content);
  if (index) {
    built.delete(content);
  } else {
    index = build(chain, prevouts);
    if (built.size >= BUILT_MAX) built.delete(built.keys().next().value!);
  }
  built.set(content, index);
  return index;
}

function build(chain: DevnetChain, prevouts: Prevouts): Map<string, ScriptEntry> {
  const builder = new IndexBuilder(chain, prevouts);
  const confirmed = builder.readChain();
  builder.readMempoolOutputs();
  // Confirmed unspent outputs, in chain order (ElectrumX sorts by tx_num, then tx_pos).
  for (const u of confirmed.values()) {
    const e = builder.entry(u.scripthash);
    e.utxos.push({ txid: u.txid, vout: u.vout, height: u.height, value: u.value });
    e.confirmedSats += u.value;
  }
  const mempoolSpends = new Set<string>();
  for (const tx of chain.mempool.values()) {
    for (const input of tx.inputs) mempoolSpends.add(`${input.prevTxid}:${input.vout}`);
  }
  for (const tx of chain.mempool.values()) builder.readMempoolTx(tx, mempoolSpends);
  // mempool.potential_spends: a confirmed output a mempool transaction spends is not listed.
  for (const e of builder.index.values()) {
    e.utxos = e.utxos.filter((u) => u.height === 0 || !mempoolSpends.has(`${u.txid}:${u.vout}`));
  }
  return builder.index;
}

type Confirmed = Output & { txid: string; vout: number };

/** One build of the index: its entries, and the outputs devnet created, as they are read. */
class IndexBuilder {
  readonly index = new Map<string, ScriptEntry>();
  /** Outputs devnet created, by outpoint; spent ones are removed as their spends are read. */
  private readonly outputs = new Map<string, Output>();

  constructor(
    private readonly chain: DevnetChain,
    private readonly prevouts: Prevouts,
  ) {}

  entry(hash: string): ScriptEntry {
    let e = this.index.get(hash);
    if (!e) {
      e = { history: [], utxos: [], confirmedSats: 0n, unconfirmedSats: 0n };
      this.index.set(hash, e);
    }
    return e;
  }

  private spentBy(txid: string, vout: number): Output | undefined {
    const own = this.outputs.get(`${txid}:${vout}`);
    if (own) return own;
    const p = this.prevouts(txid, vout);
    return p && { scripthash: electrumScripthash(p.scriptPubKey), value: p.valueSats, height: 0 };
  }

  /** The script hashes a transaction pays to or spends from. */
  private touched(tx: Transaction): Set<string> {
    const hashes = new Set<string>();
    for (const output of tx.outputs) {
      if (!isUnspendable(output.scriptPubKey)) hashes.add(electrumScripthash(output.scriptPubKey));
    }
    if (!tx.isCoinbase) {
      for (const input of tx.inputs) {
        const spent = this.spentBy(input.prevTxid, input.vout);
        if (spent) hashes.add(spent.scripthash);
      }
    }
    return hashes;
  }

  /** The blocks' history, in chain order; returns the confirmed outputs left unspent. */
  readChain(): Map<string, Confirmed> {
    const confirmed = new Map<string, Confirmed>();
    for (const height of this.chain.heights()) {
      for (const tx of this.chain.byHeight.get(height)!.block.transactions) {
        for (const hash of this.touched(tx))
          this.entry(hash).history.push({ txid: tx.txid, height });
        if (!tx.isCoinbase) {
          for (const input of tx.inputs) {
            const key = `${input.prevTxid}:${input.vout}`;
            this.outputs.delete(key);
            confirmed.delete(key);
          }
        }
        tx.outputs.forEach((output, vout) => {
          if (isUnspendable(output.scriptPubKey)) return;
          const scripthash = electrumScripthash(output.scriptPubKey);
          const out = { scripthash, value: output.value, height };
          this.outputs.set(`${tx.txid}:${vout}`, out);
          confirmed.set(`${tx.txid}:${vout}`, { ...out, txid: tx.txid, vout });
        });
      }
    }
    return confirmed;
  }

  /** The mempool's outputs, so that a mempool transaction's spends of them are known. */
  readMempoolOutputs(): void {
    for (const tx of this.chain.mempool.values()) {
      tx.outputs.forEach((output, vout) => {
        if (isUnspendable(output.scriptPubKey)) return;
        const scripthash = electrumScripthash(output.scriptPubKey);
        this.outputs.set(`${tx.txid}:${vout}`, { scripthash, value: output.value, height: 0 });
      });
    }
  }

  /** A mempool transaction: its history entry (fee when known), balances and unspent outputs. */
  readMempoolTx(tx: Transaction, mempoolSpends: ReadonlySet<string>): void {
    const unconfirmedParent = tx.inputs.some((i) => this.chain.mempool.has(i.prevTxid));
    let fee: bigint | undefined = 0n;
    for (const input of tx.inputs) {
      const spent = this.spentBy(input.prevTxid, input.vout);
      if (!spent || fee === undefined) fee = undefined;
      else {
        fee += spent.value;
        this.entry(spent.scripthash).unconfirmedSats -= spent.value;
      }
    }
    if (fee !== undefined) for (const o of tx.outputs) fee -= o.value;
    const historyEntry: HistoryEntry = {
      txid: tx.txid,
      height: unconfirmedParent ? -1 : 0,
      ...(fee === undefined ? {} : { feeSats: fee }),
    };
    for (const hash of this.touched(tx)) this.entry(hash).history.push(historyEntry);
    tx.outputs.forEach((output, vout) => {
      if (isUnspendable(output.scriptPubKey)) return;
      const e = this.entry(electrumScripthash(output.scriptPubKey));
      e.unconfirmedSats += output.value;
      if (!mempoolSpends.has(`${tx.txid}:${vout}`)) {
        e.utxos.push({ txid: tx.txid, vout, height: 0, value: output.value });
      }
    });
  }
}
