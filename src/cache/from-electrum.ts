import { parseTransaction, type Transaction, toHex } from "../bitcoin/index.ts";
import { electrumScripthash, isUnspendable } from "../bitcoin/scripthash.ts";
import type { Config, NetworkName } from "../config/schema.ts";
import { type BlockPosition, readTxHex } from "../protocol/core/decoded-tx.ts";
import { DAEMON_ERROR } from "../protocol/electrum/params.ts";
import { type GatewayError, gatewayError } from "../protocol/errors/codes.ts";
import { isJsonObject, jsonInteger } from "../protocol/json/json.ts";
import type { RpcErrorObject } from "../protocol/json/types.ts";
import type { Verified } from "../protocol/verified.ts";
import { confirmationsOn } from "../upstreams/chain-view.ts";
import { headerAt } from "../upstreams/electrum/headers.ts";
import type { ElectrumPool } from "../upstreams/electrum/pool.ts";
import type { TxStore } from "./tx-store.ts";

/** What a look-up needs: the network's servers and the confirmed-transaction cache. */
export interface ElectrumTxSource {
  network: NetworkName;
  pool: ElectrumPool | undefined;
  cache: TxStore;
  /** Confirmations from which a transaction is immutable enough to cache. */
  minConfirmations: number;
}

/** The services a look-up is built from: each network's Electrum pool and the cache. */
export interface ElectrumTxServices {
  config: Config;
  electrum: ReadonlyMap<NetworkName, ElectrumPool>;
  txCache: TxStore;
}

/** What the Electrum transaction look-up needs of a running gateway, for one network. */
export function electrumTxSource(
  services: ElectrumTxServices,
  network: NetworkName,
): ElectrumTxSource {
  return {
    network,
    pool: services.electrum.get(network),
    cache: services.txCache,
    minConfirmations: services.config.cache.minConfirmations,
  };
}

/**
 * A transaction as the Electrum servers gave it: the bytes (checked to be the transaction asked
 * for) and where it was mined. Each protocol renders it (the Electrum route as hex or Core's
 * decoded form, the unified API as its Transaction type). `position` is null for a mempool
 * transaction, and also when it was not asked for (`located: false`).
 */
export interface ElectrumTx {
  kind: "tx";
  /** The parsed transaction; parsed on first use for a cache hit served as hex. */
  tx(): Transaction;
  hex(): string;
  position: BlockPosition | null;
  located: boolean;
  /** Who answered, for the audit record ("cache" for a hit). */
  upstream: string;
  /** How far it was checked: its bytes always; its block against the verified chain (proven()). */
  verified?: Verified;
}

/** The outcomes of a look-up: the transaction, the server's own JSON-RPC refusal, or a failure. */
export type ElectrumTxResult =
  | ElectrumTx
  | { kind: "refused"; error: RpcErrorObject; upstream: string }
  | { kind: "failure"; error: GatewayError };

const METHOD = "blockchain.transaction.get";

/**
 * blockchain.transaction.get through the gateway, always in the spec's shape whatever the Electrum
 * server sends. The server is asked for the verbose form (the bytes and where the transaction was
 * mined, in one trip); only the bytes and block position are kept, and the decoded forms are built
 * from the bytes with the codec, since servers differ (ElectrumX's float amounts, electrs's extra
 * fields, no `blockheight` anywhere). `blockheight` is the height whose header hashes to the
 * answer's `blockhash` (tried first at tip − confirmations + 1). A server that refuses the verbose
 * form is asked for the hex and the block found through its script history; what cannot be placed
 * fails (502, not charged) rather than guess.
 */
export async function electrumTransaction(
  source: ElectrumTxSource,
  txHash: string,
  locate: boolean,
): Promise<ElectrumTxResult> {
  const out = await lookUp(source, txHash, locate);
  return out.kind === "tx" && source.pool ? proven(source, source.pool, out) : out;
}

async function lookUp(
  source: ElectrumTxSource,
  txHash: string,
  locate: boolean,
): Promise<ElectrumTxResult> {
  const { pool, cache, minConfirmations } = source;
  if (!pool) {
    return failure(gatewayError("UPSTREAM_UNAVAILABLE", "no Electrum server for this network"));
  }
  // Only a plain txid is looked up: ElectrumX also takes hex with spaces, which the server answers.
  const txid = /^[0-9a-fA-F]{64}$/.test(txHash) ? txHash.toLowerCase() : null;
  if (txid) {
    const cached = await fromCache(source, pool, txid, locate);
    if (cached) return cached;
  }

  const out = await pool.request(METHOD, [txHash, true]);
  if (!out.ok) return failure(out.error);
  if ("error" in out.answer) {
    if (out.answer.error.code === DAEMON_ERROR) {
      return { kind: "refused", error: out.answer.error, upstream: out.upstream };
    }
    // Not the daemon's refusal but the server's: it will not give the verbose form.
    return withoutVerbose(source, pool, txHash, txid, locate, out.answer.error.message);
  }
  const bad = (why: string) =>
    failure(
      gatewayError("UPSTREAM_BAD_RESPONSE", "the Electrum server sent an answer we cannot read", {
        detail: `${out.upstream}: ${why}`,
      }),
    );
  const result = out.answer.result;
  if (!isJsonObject(result) || typeof result.hex !== "string") {
    return bad("no hex in the verbose answer");
  }
  const tx = readTxHex(result.hex);
  if (!tx) return bad("hex is not a transaction");
  if (txid && tx.txid !== txid) return bad(`asked for ${txid}, got ${tx.txid}`);
  const found = (position: BlockPosition | null, located: boolean) =>
    parsed(tx, position, located, out.upstream);

  // In the mempool: no block position, and never cached.
  if (typeof result.blockhash !== "string") return found(null, true);
  const confirmations = jsonInteger(result.confirmations);
  const deep = confirmations !== undefined && confirmations >= minConfirmations;
  if (!locate && !(deep && txid && cache.enabled)) return found(null, false);
  const position = await locateBlock(
    pool,
    result.blockhash,
    confirmations,
    jsonInteger(result.blockheight),
  );
  if (!position) {
    if (!locate) return found(null, false);
    return bad(`cannot find the height of block ${result.blockhash}`);
  }
  // With a verified chain, kept once its block is proven (proven()).
  if (deep && txid && !pool.chain) {
    cache.remember(source.network, txid, { ...position, bytes: tx.bytes });
  }
  return found(position, true);
}

/**
 * A cached confirmed transaction, vouched for on the best chain by the network's chain guard, with
 * confirmations from the Electrum servers' live tip (what a miss would have counted from); null to
 * ask upstream.
 */
async function fromCache(
  source: ElectrumTxSource,
  pool: ElectrumPool,
  txid: string,
  locate: boolean,
): Promise<ElectrumTxResult | null> {
  const cached = await source.cache.lookup(source.network, [txid]);
  const entry = cached?.found[0];
  if (!entry) return null;
  let tx: Transaction | undefined;
  const hit = (position: BlockPosition | null): ElectrumTx => ({
    kind: "tx",
    tx: () => {
      tx ??= parseTransaction(entry.bytes);
      return tx;
    },
    hex: () => toHex(entry.bytes),
    position,
    located: position !== null,
    upstream: "cache",
  });
  if (!locate) return hit(null);
  // No live headers subscription, no vouched-for tip: confirmations would be a guess.
  const tip = pool.tip();
  if (!tip || tip.height < entry.height) return null;
  return hit({ ...entry, confirmations: tip.height - entry.height + 1 });
}

/** A transaction parsed from an upstream's hex, as a look-up's result. */
function parsed(
  tx: Transaction,
  position: BlockPosition | null,
  located: boolean,
  upstream: string,
): ElectrumTx {
  return { kind: "tx", tx: () => tx, hex: () => tx.hex, position, located, upstream };
}

/**
 * The height and time of the block `blockhash`: the header at the expected height must hash to it.
 * The expected height is the server's `blockheight` if it gives one, else tip − confirmations + 1;
 * the next height is tried too, for an index a block behind its daemon.
 */
async function locateBlock(
  pool: ElectrumPool,
  blockhash: string,
  confirmations: number | undefined,
  blockheight: number | undefined,
): Promise<BlockPosition | null> {
  const tip = pool.tip();
  const expected =
    blockheight ??
    (tip && confirmations !== undefined ? tip.height - confirmations + 1 : undefined);
  if (expected === undefined) return null;
  for (const height of [expected, expected + 1, expected - 1]) {
    if (height < 0) continue;
    const header = await headerAt(pool, height);
    if (header?.hash !== blockhash.toLowerCase()) continue;
    // A server that gives blockheight but no confirmations: count them from the live tip.
    const count = confirmations ?? (tip ? tip.height - height + 1 : undefined);
    if (count === undefined) return null;
    return { blockhash: header.hash, height, blocktime: header.time, confirmations: count };
  }
  return null;
}

/**
 * For a server that refuses the verbose form (ElectrumX answers `response too large` when the
 * decoded transaction exceeds its MAX_SEND; some servers have no verbose form at all): the hex
 * alone, and for a located request the block found through the Electrum index itself — the
 * history of a script the transaction pays to lists it with its height (0 or -1: mempool), and
 * the header at that height gives the block hash and time.
 */
async function withoutVerbose(
  source: ElectrumTxSource,
  pool: ElectrumPool,
  txHash: string,
  txid: string | null,
  locate: boolean,
  refusal: string,
): Promise<ElectrumTxResult> {
  const out = await pool.request(METHOD, [txHash, false]);
  if (!out.ok) return failure(out.error);
  if ("error" in out.answer) {
    return { kind: "refused", error: out.answer.error, upstream: out.upstream };
  }
  const bad = (why: string) =>
    failure(
      gatewayError("UPSTREAM_BAD_RESPONSE", "the Electrum server sent an answer we cannot read", {
        detail: `${out.upstream}: ${why} (verbose refused: ${refusal.slice(0, 200)})`,
      }),
    );
  const hex = out.answer.result;
  const tx = typeof hex === "string" ? readTxHex(hex) : null;
  if (!tx || (txid && tx.txid !== txid)) return bad(`the hex is not transaction ${txid ?? txHash}`);
  if (!locate) return parsed(tx, null, false, out.upstream);
  const height = await historyHeight(pool, tx);
  if (height === null) return bad(`${tx.txid} is in none of its scripts' histories`);
  if (height <= 0) return parsed(tx, null, true, out.upstream);
  const tip = pool.tip();
  const header = await headerAt(pool, height);
  if (!tip || !header || tip.height < height) return bad(`no header at height ${height}`);
  const position = {
    blockhash: header.hash,
    height,
    blocktime: header.time,
    confirmations: tip.height - height + 1,
  };
  if (position.confirmations >= source.minConfirmations && !pool.chain) {
    source.cache.remember(source.network, tx.txid, { ...position, bytes: tx.bytes });
  }
  return parsed(tx, position, true, out.upstream);
}

/** Outputs whose script histories are looked at before giving up (a history may be too large). */
const HISTORY_TRIES = 3;

/** The height an Electrum index gives the transaction, from its outputs' script histories. */
async function historyHeight(pool: ElectrumPool, tx: Transaction): Promise<number | null> {
  const scripts = tx.outputs
    .map((o) => o.scriptPubKey)
    .filter((s) => !isUnspendable(s))
    .slice(0, HISTORY_TRIES);
  for (const script of scripts) {
    const out = await pool.request("blockchain.scripthash.get_history", [
      electrumScripthash(script),
    ]);
    if (!out.ok || !("result" in out.answer) || !Array.isArray(out.answer.result)) continue;
    for (const item of out.answer.result) {
      if (isJsonObject(item) && item.tx_hash === tx.txid) {
        const height = jsonInteger(item.height);
        if (height !== undefined) return height;
      }
    }
  }
  return null;
}

function failure(error: GatewayError): ElectrumTxResult {
  return { kind: "failure", error };
}

/**
 * The transaction's block claim checked against the verified chain: the block on it at the
 * claimed height, and the server's merkle branch (blockchain.transaction.get_merkle, checked by
 * the pool against that header) putting the transaction in it; confirmations then count from the
 * verified tip. Proven memberships are kept by the pool. A server that cannot prove the claim
 * fails the look-up; with no verified chain (or the block not on it yet) the claim is unchecked.
 */
async function proven(
  source: ElectrumTxSource,
  pool: ElectrumPool,
  out: ElectrumTx,
): Promise<ElectrumTxResult> {
  const { position } = out;
  if (!position) return { ...out, verified: "bytes" };
  const chain = pool.chain;
  const header = chain?.byHash(position.blockhash);
  if (!chain || header?.height !== position.height) return { ...out, verified: "partial" };
  const txid = out.tx().txid;
  const key = `${txid}${position.blockhash}`;
  if (!pool.proven.get(key)) {
    const merkle = await pool.request("blockchain.transaction.get_merkle", [txid, position.height]);
    if (!merkle.ok) return { ...out, verified: "partial" };
    const result = "result" in merkle.answer ? merkle.answer.result : null;
    const at = isJsonObject(result) ? jsonInteger(result.block_height) : undefined;
    const pos = isJsonObject(result) ? jsonInteger(result.pos) : undefined;
    if (at !== position.height || pos === undefined || !isJsonObject(result)) {
      return failure(
        gatewayError(
          "UPSTREAM_BAD_RESPONSE",
          "the Electrum server's block claim failed verification",
          {
            detail: `${merkle.upstream}: no proof that ${txid} is in block ${position.blockhash}`,
          },
        ),
      );
    }
    pool.proven.set(key, { blockhash: position.blockhash, pos, branch: result.merkle as string[] });
  }
  const confirmations = confirmationsOn(chain, header);
  const checked = { ...position, confirmations };
  if (confirmations >= source.minConfirmations && out.upstream !== "cache") {
    source.cache.remember(source.network, txid, { ...checked, bytes: out.tx().bytes });
  }
  return { ...out, position: checked, verified: "chain" };
}
