import { gatewayError } from "../../protocol/errors/codes.ts";
import type {
  BlockParts,
  CoreBlockStats,
  EsploraBlock,
  EsploraCoinbase,
} from "../../protocol/esplora/block-extended.ts";
import { toPlainJson } from "../../protocol/json/json.ts";
import type { PoolFailure } from "../../upstreams/failover.ts";
import type { EsploraContext } from "./services.ts";

/**
 * What mempool's backend asks its upstreams to extend one block of the best chain, asked of the
 * network's pools: Esplora's block, its coinbase (txid 0, then the transaction) and, from Core,
 * getblockstats (not for the genesis block, as mempool) and the header in hex. Anything but the
 * answers expected is a failure (not charged); Esplora's 404 for the block is an answer.
 */
export type PartsOutcome =
  | { ok: true; parts: BlockParts; upstream: string }
  | { ok: true; notFound: true; upstream: string }
  | PoolFailure;

/** An Esplora answer read as expected: JSON (or text) with status 200, a 404, or a failure. */
type Read<T> =
  | { ok: true; value: T; upstream: string }
  | { ok: true; missing: true; upstream: string }
  | PoolFailure;

function unusable(what: string, detail: string): PoolFailure {
  return {
    ok: false,
    error: gatewayError("UPSTREAM_BAD_RESPONSE", `unexpected answer to ${what}`, { detail }),
  };
}

/** One Esplora read; `json` false for a text answer (a hash). */
export async function esploraRead<T>(
  ctx: EsploraContext,
  path: string,
  json = true,
): Promise<Read<T>> {
  const pool = ctx.services.esplora.get(ctx.network);
  if (!pool) {
    const error = gatewayError("UPSTREAM_UNAVAILABLE", "no Esplora server for this network");
    return { ok: false, error };
  }
  const out = await pool.request({ method: "GET", path });
  if (!out.ok) return out;
  if (out.status === 404) return { ok: true, missing: true, upstream: out.upstream };
  const text = out.body.toString("utf8");
  if (out.status !== 200) return unusable(path, `HTTP ${out.status}: ${text.slice(0, 200)}`);
  try {
    return { ok: true, value: (json ? JSON.parse(text) : text) as T, upstream: out.upstream };
  } catch {
    return unusable(path, "not JSON");
  }
}

/** Core's getblockstats (all of it, as mempool asks) and `getblockheader <hash> false`. */
async function coreParts(
  ctx: EsploraContext,
  hash: string,
  genesis: boolean,
): Promise<{ ok: true; stats?: CoreBlockStats; header: string } | PoolFailure> {
  const pool = ctx.services.nodes.get(ctx.network);
  if (!pool) {
    const error = gatewayError("UPSTREAM_UNAVAILABLE", "no Bitcoin Core node for this network");
    return { ok: false, error };
  }
  const header = { method: "getblockheader", params: [hash, false] };
  const calls = genesis ? [header] : [header, { method: "getblockstats", params: [hash] }];
  const out = await pool.batch(calls);
  if (!out.ok) return out;
  const [head, stats] = out.answers;
  if (!head || "error" in head || typeof head.result !== "string") {
    return unusable("getblockheader", JSON.stringify(head ?? null).slice(0, 200));
  }
  if (genesis) return { ok: true, header: head.result };
  if (!stats || "error" in stats || typeof stats.result !== "object" || stats.result === null) {
    return unusable("getblockstats", JSON.stringify(stats ?? null).slice(0, 200));
  }
  // Core's numbers as doubles, as mempool's JSON.parse reads them.
  return { ok: true, header: head.result, stats: toPlainJson(stats.result) as CoreBlockStats };
}

/** Everything BlockExtended is made of, for the block with this hash. */
export async function blockParts(ctx: EsploraContext, hash: string): Promise<PartsOutcome> {
  const block = await esploraRead<EsploraBlock>(ctx, `/block/${hash}`);
  if (!block.ok) return block;
  if ("missing" in block) return { ok: true, notFound: true, upstream: block.upstream };
  if (typeof block.value?.height !== "number") return unusable(`/block/${hash}`, "no height");
  const [coinbase, core] = await Promise.all([
    coinbaseOf(ctx, hash),
    coreParts(ctx, hash, block.value.height === 0),
  ]);
  if (!coinbase.ok) return coinbase;
  if (!core.ok) return core;
  const parts: BlockParts = {
    block: block.value,
    coinbase: coinbase.value,
    header: core.header,
    ...(core.stats ? { stats: core.stats } : {}),
  };
  return { ok: true, parts, upstream: block.upstream };
}

/** The block's first transaction, as Esplora's `/tx/:txid` answers it. */
async function coinbaseOf(
  ctx: EsploraContext,
  hash: string,
): Promise<{ ok: true; value: EsploraCoinbase } | PoolFailure> {
  const txid = await esploraRead<string>(ctx, `/block/${hash}/txid/0`, false);
  if (!txid.ok) return txid;
  if ("missing" in txid || !/^[0-9a-f]{64}$/.test(txid.value)) {
    return unusable(`/block/${hash}/txid/0`, JSON.stringify("value" in txid ? txid.value : 404));
  }
  const tx = await esploraRead<EsploraCoinbase>(ctx, `/tx/${txid.value}`);
  if (!tx.ok) return tx;
  if ("missing" in tx) return unusable(`/tx/${txid.value}`, "HTTP 404");
  return { ok: true, value: tx.value };
}
