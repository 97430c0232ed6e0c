import { LosslessNumber } from "lossless-json";
import type { Prevout } from "../../bitcoin/prevouts.ts";
import { pyFloatRepr } from "../../protocol/electrum/python-text.ts";
import { isJsonObject, type Json, jsonNumber } from "../../protocol/json/json.ts";
import type { DevnetChain } from "../chain.ts";
import { checked, daemonRequest, type ElectrumBackend, type Handler } from "./handler.ts";

/** mempool.py refreshes its histogram with tranches of at least this many vbytes. */
const HISTOGRAM_BIN_VBYTES = 100_000;

/**
 * Fees: estimatefee and relayfee ask the daemon as ElectrumX does (estimatesmartfee's feerate in
 * BTC/kB or -1, getnetworkinfo's relayfee); the fee histogram is built from devnet's mempool, as
 * ElectrumX builds it from its own copy of the daemon's.
 */
export function feeMethods({ chain, daemon, prevouts }: ElectrumBackend): Record<string, Handler> {
  return {
    "blockchain.estimatefee": checked("blockchain.estimatefee", async (session, [n, mode]) => {
      const target = jsonNumber(feeTarget(Number(n)));
      const params = mode === undefined ? [target] : [target, mode];
      const estimate = await daemonRequest(daemon, session, "estimatesmartfee", params);
      // daemon.estimatefee: `estimate.get('feerate', -1)`.
      return isJsonObject(estimate) && estimate.feerate !== undefined
        ? estimate.feerate
        : jsonNumber(-1);
    }),
    "blockchain.relayfee": checked("blockchain.relayfee", async (session) => {
      const info = await daemonRequest(daemon, session, "getnetworkinfo", []);
      return isJsonObject(info) ? (info.relayfee ?? null) : null;
    }),
    "mempool.get_fee_histogram": checked("mempool.get_fee_histogram", () =>
      compactHistogram(chain, prevouts),
    ),
  };
}

/** BitcoinMixin.bucket_estimatefee_block_target: the targets Core's estimator distinguishes. */
function feeTarget(n: number): number {
  if (n <= 1) return 1;
  if (n <= 12) return n;
  if (n === 25) return n;
  if (n <= 48) return Math.floor(n / 2) * 2;
  if (n <= 1008) return Math.floor(n / 24) * 24;
  return 1008;
}

/**
 * mempool._update_histogram: vsize per fee rate (sat/vB to 0.1, rounded down; a Python float)
 * over the mempool, then compressed. devnet counts only mempool transactions whose every spent
 * output it knows (ElectrumX knows them all).
 */
function compactHistogram(
  chain: DevnetChain,
  prevouts: (txid: string, vout: number) => Prevout | undefined,
): Json {
  const histogram = new Map<number, number>();
  for (const tx of chain.mempool.values()) {
    let fee = 0n;
    let known = true;
    for (const input of tx.inputs) {
      const spent = prevouts(input.prevTxid, input.vout)?.valueSats ?? mempoolOutput(chain, input);
      if (spent === undefined) known = false;
      else fee += spent;
    }
    if (!known) continue;
    for (const o of tx.outputs) fee -= o.value;
    // 0.1 sat/vB resolution, rounded down so a transaction lands in the tranche its rate is in.
    const rate = Math.floor(10 * (Number(fee) / tx.vsize)) / 10;
    histogram.set(rate, (histogram.get(rate) ?? 0) + tx.vsize);
  }
  return compressHistogram(histogram, HISTOGRAM_BIN_VBYTES).map(([rate, size]) => [
    new LosslessNumber(pyFloatRepr(rate)),
    jsonNumber(size),
  ]);
}

/**
 * mempool._compress_histogram over fee rate → vsize: from the highest rate down, a tranche is
 * closed once it holds more than the bin size, which then grows by 10%; a lump over twice the bin
 * size first closes the tranche before it. What is left below the bin size is not reported.
 */
export function compressHistogram(
  histogram: ReadonlyMap<number, number>,
  binVbytes: number,
): [number, number][] {
  const compact: [number, number][] = [];
  let binSize = binVbytes;
  let cumSize = 0;
  let prevRate: number | null = null;
  for (const [rate, size] of [...histogram].sort((a, b) => b[0] - a[0])) {
    if (size > 2 * binSize && prevRate !== null && cumSize > 0) {
      compact.push([prevRate, cumSize]);
      cumSize = 0;
      binSize *= 1.1;
    }
    cumSize += size;
    if (cumSize > binSize) {
      compact.push([rate, cumSize]);
      cumSize = 0;
      binSize *= 1.1;
    }
    prevRate = rate;
  }
  return compact;
}

/** The value of an output of another mempool transaction, which Core's prevouts do not hold. */
function mempoolOutput(
  chain: DevnetChain,
  input: { prevTxid: string; vout: number },
): bigint | undefined {
  return chain.mempool.get(input.prevTxid)?.outputs[input.vout]?.value;
}
