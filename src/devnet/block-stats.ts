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
  let inputs = 0;
  let outputs = 0;
  let utxos = 0;
  let totalOut = 0n;
  let totalSize = 0;
  let totalWeight = 0;
  let swtxs = 0;
  let swSize = 0;
  let swWeight = 0;
  let utxoSizeInc = 0;
  let utxoSizeIncActual = 0;
  let maxTxSize = 0;
  let minTxSize: number | undefined;
  let totalFee = 0n;
  let maxFee = 0n;
  let minFee: bigint | undefined;
  let maxRate = 0n;
  let minRate: bigint | undefined;
  const sizes: bigint[] = [];
  const fees: bigint[] = [];
  const rates: [bigint, number][] = [];
  for (const tx of block.transactions) {
    outputs += tx.outputs.length;
    let txOut = 0n;
    for (const out of tx.outputs) {
      txOut += out.value;
      const size = outputSize(out.scriptPubKey) + PER_UTXO_OVERHEAD;
      utxoSizeInc += size;
      // Genesis outputs never enter the UTXO set (and devnet holds neither BIP30 repeat).
      if (height === 0 || unspendable(out.scriptPubKey)) continue;
      utxos++;
      utxoSizeIncActual += size;
    }
    if (tx.isCoinbase) continue;
    inputs += tx.inputs.length;
    totalOut += txOut;
    sizes.push(BigInt(tx.size));
    maxTxSize = Math.max(maxTxSize, tx.size);
    minTxSize = Math.min(minTxSize ?? tx.size, tx.size);
    totalSize += tx.size;
    totalWeight += tx.weight;
    if (tx.hasWitness) {
      swtxs++;
      swSize += tx.size;
      swWeight += tx.weight;
    }
    if (!spent) continue;
    let txIn = 0n;
    for (const p of spent(tx)) {
      txIn += p.valueSats;
      const size = outputSize(p.scriptPubKey) + PER_UTXO_OVERHEAD;
      utxoSizeInc -= size;
      utxoSizeIncActual -= size;
    }
    const fee = txIn - txOut;
    fees.push(fee);
    maxFee = fee > maxFee ? fee : maxFee;
    minFee = minFee === undefined || fee < minFee ? fee : minFee;
    totalFee += fee;
    const rate = (fee * 4n) / BigInt(tx.weight);
    rates.push([rate, tx.weight]);
    maxRate = rate > maxRate ? rate : maxRate;
    minRate = minRate === undefined || rate < minRate ? rate : minRate;
  }
  const nonCoinbase = BigInt(block.transactions.length - 1);
  return {
    avgfee: nonCoinbase > 0n ? totalFee / nonCoinbase : 0n,
    avgfeerate: totalWeight ? (totalFee * 4n) / BigInt(totalWeight) : 0n,
    avgtxsize: nonCoinbase > 0n ? BigInt(totalSize) / nonCoinbase : 0n,
    blockhash: block.hash,
    feerate_percentiles: percentilesByWeight(rates, totalWeight),
    height,
    ins: inputs,
    maxfee: maxFee,
    maxfeerate: maxRate,
    maxtxsize: maxTxSize,
    medianfee: truncatedMedian(fees),
    ...(mediantime === undefined ? {} : { mediantime }),
    mediantxsize: truncatedMedian(sizes),
    minfee: minFee ?? 0n,
    minfeerate: minRate ?? 0n,
    mintxsize: minTxSize ?? 0,
    outs: outputs,
    subsidy: blockSubsidy(height, network),
    swtotal_size: swSize,
    swtotal_weight: swWeight,
    swtxs,
    time: block.time,
    total_out: totalOut,
    total_size: totalSize,
    total_weight: totalWeight,
    totalfee: totalFee,
    txs: block.transactions.length,
    utxo_increase: outputs - inputs,
    utxo_size_inc: utxoSizeInc,
    utxo_increase_actual: utxos - inputs,
    utxo_size_inc_actual: utxoSizeIncActual,
  };
}
