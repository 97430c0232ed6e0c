import type { Transaction } from "../../bitcoin/index.ts";
import { type EsploraReply, rustFloat } from "./reply.ts";
import { type EsploraView, feeOf } from "./view.ts";

/** electrs' VSIZE_BIN_WIDTH (vbytes per histogram bin) and its list of recent transactions. */
const VSIZE_BIN_WIDTH = 50_000;
const RECENT_MAX = 10;

interface FeeInfo {
  fee: number;
  /** electrs' vsize: weight / 4, rounded down. */
  vsize: number;
  /** An f32, as electrs keeps it. */
  rate: number;
}

function feeInfo(view: EsploraView, tx: Transaction): FeeInfo {
  const fee = Number(feeOf(view, tx));
  const vsize = Math.floor(tx.weight / 4);
  return { fee, vsize, rate: Math.fround(Math.fround(fee) / Math.fround(vsize)) };
}

/** electrs' make_fee_histogram: from the highest feerate down, a bin each 50,000 vbytes. */
function histogram(infos: FeeInfo[]): [number, number][] {
  const sorted = infos.slice().sort((a, b) => b.rate - a.rate);
  const out: [number, number][] = [];
  let bin = 0;
  let last = 0;
  for (const e of sorted) {
    if (bin > VSIZE_BIN_WIDTH && last !== e.rate) {
      out.push([last, bin]);
      bin = 0;
    }
    last = e.rate;
    bin += e.vsize;
  }
  if (bin > 0) out.push([last, bin]);
  return out;
}

/** `/mempool`: electrs' BacklogStats, its feerates written as the f32s they are. */
export function mempoolStats(view: EsploraView): EsploraReply {
  const infos = [...view.chain.mempool.values()].map((tx) => feeInfo(view, tx));
  const vsize = infos.reduce((s, i) => s + i.vsize, 0);
  const fees = infos.reduce((s, i) => s + i.fee, 0);
  const bins = histogram(infos)
    .map(([rate, size]) => `[${rustFloat(rate, true)},${size}]`)
    .join(",");
  return {
    status: 200,
    type: "application/json",
    body: `{"count":${infos.length},"vsize":${vsize},"total_fee":${fees},"fee_histogram":[${bins}]}`,
  };
}

/** `/mempool/recent`: the last transactions to enter, newest first, in electrs' overview. */
export function recentTxs(view: EsploraView): EsploraReply {
  const recent = [...view.chain.mempool.values()].slice(-RECENT_MAX).reverse();
  const out = recent.map((tx) => {
    const { fee, vsize } = feeInfo(view, tx);
    const value = tx.outputs.reduce((s, o) => s + o.value, 0n);
    return { txid: tx.txid, fee, vsize, value: Number(value) };
  });
  return { status: 200, type: "application/json", body: JSON.stringify(out) };
}
