import { blockSubsidy } from "../bitcoin/consensus.ts";
import type { Block, Prevout, Transaction } from "../bitcoin/index.ts";
import type { Network } from "../bitcoin/network.ts";
import { MAX_SCRIPT_SIZE, OP_RETURN } from "../bitcoin/script-ops.ts";

/** sizeof(COutPoint) + sizeof(uint32_t) + sizeof(bool): Core's PER_UTXO_OVERHEAD. */
const PER_UTXO_OVERHEAD = 41;

function outputSize(script: Uint8Array): number {
  return 8 + (script.length < 253 ? 1 : script.length <= 0xffff ? 3 : 5) + script.length;
}

function unspendable(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === OP_RETURN) || script.length > MAX_SCRIPT_SIZE;
}

/** Core's CalculateTruncatedMedian: the middle value, or the floor of the middle two's mean. */
function truncatedMedian(values: bigint[]): bigint {
  if (values.length === 0) return 0n;
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const n = sorted.length;
  return n % 2 === 1 ? sorted[n >> 1]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2n;
}

/** Core's CalculatePercentilesByWeight: 10th, 25th, 50th, 75th, 90th by cumulative weight. */
function percentilesByWeight(scores: [bigint, number][], totalWeight: number): bigint[] {
  const result = [0n, 0n, 0n, 0n, 0n];
  if (scores.length === 0) return result;
  scores.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
  const marks = [
    totalWeight / 10,
    totalWeight / 4,
    totalWeight / 2,
    (totalWeight * 3) / 4,
    (totalWeight * 9) / 10,
  ];
  let next = 0;
  let cumulative = 0;
  for (const [rate, weight] of scores) {
    cumulative += weight;
    while (next < 5 && cumulative >= marks[next]!) result[next++] = rate;
  }
  for (let i = next; i < 5; i++) result[i] = scores[scores.length - 1]![0];
  return result;
}

/** The stats that read undo data (Core's loop_inputs). */
export const UNDO_STATS = new Set([
  "utxo_size_inc",
  "utxo_size_inc_actual",
  "totalfee",
  "avgfee",
  "avgfeerate",
  "minfee",
  "maxfee",
  "minfeerate",
  "maxfeerate",
  "medianfee",
  "feerate_percentiles",
]);

/**
 * Core's getblockstats computation (rpc/blockchain.cpp), every statistic in its key order.
 * `spent` gives each non-coinbase transaction's prevouts; undefined skips what needs them
 * (the caller asks for none of those). Amounts in satoshis, feerates in sat/vB, as Core.
 */
export function blockStats(
  block: Block,
  height: number,
  mediantime: number | undefined,
  network: Network,
  spent: ((tx: Transaction) => Prevout[]) | undefined,
): Record<string, unknown> {
  const t = new Tally();
  for (const tx of block.transactions) {
    const txOut = t.outputsOf(tx, height);
    if (tx.isCoinbase) continue;
    t.sizesOf(tx, txOut);
    if (spent) t.feesOf(tx, txOut, spent(tx));
  }
  const { inputs, outputs, utxos, totalFee, totalSize, totalWeight } = t;
  const nonCoinbase = BigInt(block.transactions.length - 1);
  return {
    avgfee: nonCoinbase > 0n ? totalFee / nonCoinbase : 0n,
    avgfeerate: totalWeight ? (totalFee * 4n) / BigInt(totalWeight) : 0n,
    avgtxsize: nonCoinbase > 0n ? BigInt(totalSize) / nonCoinbase : 0n,
    blockhash: block.hash,
    feerate_percentiles: percentilesByWeight(t.rates, totalWeight),
    height,
    ins: inputs,
    maxfee: t.maxFee,
    maxfeerate: t.maxRate,
    maxtxsize: t.maxTxSize,
    medianfee: truncatedMedian(t.fees),
    ...(mediantime === undefined ? {} : { mediantime }),
    mediantxsize: truncatedMedian(t.sizes),
    minfee: t.minFee ?? 0n,
    minfeerate: t.minRate ?? 0n,
    mintxsize: t.minTxSize ?? 0,
    outs: outputs,
    subsidy: blockSubsidy(height, network),
    swtotal_size: t.swSize,
    swtotal_weight: t.swWeight,
    swtxs: t.swtxs,
    time: block.time,
    total_out: t.totalOut,
    total_size: totalSize,
    total_weight: totalWeight,
    totalfee: totalFee,
    txs: block.transactions.length,
    utxo_increase: outputs - inputs,
    utxo_size_inc: t.utxoSizeInc,
    utxo_increase_actual: utxos - inputs,
    utxo_size_inc_actual: t.utxoSizeIncActual,
  };
}

/** What getblockstats adds up over a block's transactions, as Core's loop does. */
class Tally {
  inputs = 0;
  outputs = 0;
  utxos = 0;
  totalOut = 0n;
  totalSize = 0;
  totalWeight = 0;
  swtxs = 0;
  swSize = 0;
  swWeight = 0;
  utxoSizeInc = 0;
  utxoSizeIncActual = 0;
  maxTxSize = 0;
  minTxSize: number | undefined;
  totalFee = 0n;
  maxFee = 0n;
  minFee: bigint | undefined;
  maxRate = 0n;
  minRate: bigint | undefined;
  readonly sizes: bigint[] = [];
  readonly fees: bigint[] = [];
  readonly rates: [bigint, number][] = [];

  /** Every transaction's outputs (the coinbase's too); returns their sum. */
  outputsOf(tx: Transaction, height: number): bigint {
    this.outputs += tx.outputs.length;
    let txOut = 0n;
    for (const out of tx.outputs) {
      txOut += out.value;
      const size = outputSize(out.scriptPubKey) + PER_UTXO_OVERHEAD;
      this.utxoSizeInc += size;
      // Genesis outputs never enter the UTXO set (and devnet holds neither BIP30 repeat).
      if (height === 0 || unspendable(out.scriptPubKey)) continue;
      this.utxos++;
      this.utxoSizeIncActual += size;
    }
    return txOut;
  }

  /** A non-coinbase transaction's inputs and sizes. */
  sizesOf(tx: Transaction, txOut: bigint): void {
    this.inputs += tx.inputs.length;
    this.totalOut += txOut;
    this.sizes.push(BigInt(tx.size));
    this.maxTxSize = Math.max(this.maxTxSize, tx.size);
    this.minTxSize = Math.min(this.minTxSize ?? tx.size, tx.size);
    this.totalSize += tx.size;
    this.totalWeight += tx.weight;
    if (tx.hasWitness) {
      this.swtxs++;
      this.swSize += tx.size;
      this.swWeight += tx.weight;
    }
  }

  /** A non-coinbase transaction's fee and feerate, from the outputs it spends. */
  feesOf(tx: Transaction, txOut: bigint, prevouts: Prevout[]): void {
    let txIn = 0n;
    for (const p of prevouts) {
      txIn += p.valueSats;
      const size = outputSize(p.scriptPubKey) + PER_UTXO_OVERHEAD;
      this.utxoSizeInc -= size;
      this.utxoSizeIncActual -= size;
    }
    const fee = txIn - txOut;
    this.fees.push(fee);
    this.maxFee = fee > this.maxFee ? fee : this.maxFee;
    this.minFee = this.minFee === undefined || fee < this.minFee ? fee : this.minFee;
    this.totalFee += fee;
    const rate = (fee * 4n) / BigInt(tx.weight);
    this.rates.push([rate, tx.weight]);
    this.maxRate = rate > this.maxRate ? rate : this.maxRate;
    this.minRate = this.minRate === undefined || rate < this.minRate ? rate : this.minRate;
  }
}
