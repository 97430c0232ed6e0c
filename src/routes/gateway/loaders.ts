import DataLoader from "dataloader";
import { GraphQLError, type GraphQLResolveInfo } from "graphql";
import { priceOf } from "../../billing/pricing/prices.ts";
import { fromHex, type Prevout, parseAmount } from "../../bitcoin/index.ts";
import { rememberFromCore, type VerboseAnswer } from "../../cache/from-core.ts";
import { electrumTransaction, electrumTxSource } from "../../cache/from-electrum.ts";
import type { ParsedTxs } from "../../cache/parsed-txs.ts";
import type { NetworkName } from "../../config/schema.ts";
import { gatewayError } from "../../protocol/errors/codes.ts";
import { isJsonNumber, isJsonObject, type Json } from "../../protocol/json/json.ts";
import { resultScalars } from "../../protocol/json/raw-answer.ts";
import type { Verified } from "../../protocol/verified.ts";
import type { CoreBlockClaims } from "../../upstreams/bitcoin-core/block-claims.ts";
import { proofOn } from "../../upstreams/chain-view.ts";
import type { LruMap } from "../../util/lru.ts";
import type { GraphQLContext, Meter, RequestState } from "./context.ts";
import { codedError, fromGatewayError, fromNodeError } from "./errors.ts";
import { delegateToIndexer } from "./indexer.ts";
import type { BlockPosition, TransactionModel } from "./models.ts";
import type { GatewayServices } from "./services.ts";
import { recordCalls } from "./upstream-calls.ts";

/** A number from an upstream answer (a kept literal) or from our own codec (a JS number). */
const num = (v: Json | undefined): number | undefined =>
  typeof v === "number" ? v : isJsonNumber(v) ? Number(v.value) : undefined;

/**
 * What getrawtransaction verbosity 1 or 2 says about `txid`, turned into the Transaction type's
 * model; its hex decoded through `parsed`, so that a transaction asked again is not decoded again.
 * Only its scalar members are read (resultScalars gives those), and `vin` for prevouts.
 */
export function modelFromVerbose(
  result: Json,
  network: NetworkName,
  txid: string,
  parsed: ParsedTxs,
): TransactionModel {
  if (!isJsonObject(result) || typeof result.hex !== "string") {
    throw new GraphQLError("the full node's answer has no hex", {
      extensions: { code: "UPSTREAM_BAD_RESPONSE" },
    });
  }
  const model = modelFromHex(result.hex, network, txid, parsed);
  let block: BlockPosition | null = null;
  if (typeof result.blockhash === "string") {
    block = {
      hash: result.blockhash,
      confirmations: num(result.confirmations) ?? 0,
      time: num(result.time) ?? 0,
      blocktime: num(result.blocktime) ?? 0,
    };
  }
  let prevouts: (Prevout | undefined)[] | null = null;
  if (Array.isArray(result.vin)) {
    prevouts = result.vin.map((vin) => {
      if (!isJsonObject(vin) || !isJsonObject(vin.prevout)) return undefined;
      const p = vin.prevout;
      const spk = isJsonObject(p.scriptPubKey) ? p.scriptPubKey.hex : undefined;
      if (!isJsonNumber(p.value) || typeof spk !== "string") return undefined;
      return {
        valueSats: parseAmount(p.value.value),
        scriptPubKey: fromHex(spk),
        height: num(p.height) ?? 0,
        coinbase: p.generated === true,
      };
    });
    if (prevouts.every((p) => p === undefined)) prevouts = null;
  }
  return { ...model, block, prevouts };
}

/**
 * Transactions from the full node, per request: keys deduplicated, each batch of up to `batchSize`
 * one JSON-RPC batch. Every call the node answered (a -5 miss included) is metered. Each is asked
 * at the least verbosity the operation reads (2 for prevouts, 1 for where it was mined, else 0,
 * the hex, far cheaper for the node); a transaction a cache could keep is asked at 1 when asked
 * again (`seenAtHex`), since an answer without its block cannot be kept.
 */
export function nodeTransactionLoader(
  app: GatewayServices,
  network: NetworkName,
  state: Pick<RequestState, "meter" | "asks" | "keep">,
  /** Transactions asked lately at verbosity 0, kept by the executor across requests. */
  seen: LruMap<string, true>,
): DataLoader<string, TransactionModel | GraphQLError | null> {
  const { meter } = state;
  const price = priceOf(app.config, "getrawtransaction", network) ?? 0;
  return new DataLoader(
    async (txids) => {
      const pool = app.nodes.get(network);
      if (!pool) {
        const err = fromGatewayError(
          gatewayError("UPSTREAM_UNAVAILABLE", "no full node for this network"),
        );
        return txids.map(() => err);
      }
      const needed = state.asks.prevouts ? 2 : state.asks.position ? 1 : 0;
      // Verbosity 2 needs the node's undo data (fee, prevouts): the cache answers 1 and 0 only.
      const cached = needed < 2 ? await cachedModels(app, network, txids, pool.claims) : null;
      const results: (TransactionModel | GraphQLError | null)[] = txids.map(() => null);
      const missing = txids.flatMap((_, i) => (cached?.[i] ? [] : [i]));
      let answered = txids.length - missing.length;
      meter.cacheHits += answered;
      for (let i = 0; i < txids.length; i++) {
        const hit = cached?.[i];
        if (!hit) continue;
        results[i] = hit;
        meter.verified.push(hit.verification?.status ?? "unchecked");
      }
      if (missing.length > 0) {
        const keepable = app.txCache.enabled || state.keep.key !== undefined;
        const verbosities = missing.map((i) =>
          needed === 0 && keepable && seenAtHex(seen, network, txids[i]!) ? 1 : needed,
        );
        const out = await pool.batch(
          missing.map((i, k) => ({
            method: "getrawtransaction",
            params: [txids[i]!, verbosities[k]!],
          })),
        );
        if (!out.ok) {
          for (const i of missing) results[i] = fromGatewayError(out.error);
        } else {
          answered += missing.length;
          const verbose: VerboseAnswer[] = [];
          out.answers.forEach((answer, k) => {
            const i = missing[k]!;
            const status = out.verified[k]!;
            meter.verified.push(status);
            if ("error" in answer) {
              results[i] = answer.error.code === -5 ? null : fromNodeError(answer.error);
              return;
            }
            const txid = txids[i]!.toLowerCase();
            results[i] = modelOfAnswer(app, network, pool.claims, {
              txid,
              answer,
              verbosity: verbosities[k]!,
              status,
              verbose,
            });
          });
          await rememberFromCore(app.txCache, pool, network, verbose);
        }
      }
      if (answered > 0) {
        recordCalls(meter, "getrawtransaction", price, answered);
      }
      return results;
    },
    { maxBatchSize: app.config.graphql.batchSize },
  );
}

/**
 * One transaction of the node's batch as the loader answers it: the model (with what was checked
 * of it), or the error its bytes give. A verbose answer checked in full joins `verbose`, to be kept.
 */
function modelOfAnswer(
  app: GatewayServices,
  network: NetworkName,
  claims: CoreBlockClaims,
  a: {
    txid: string;
    /** The node's answer itself: its raw text is found by it (resultScalars). */
    answer: { result: Json };
    verbosity: number;
    status: Verified;
    verbose: VerboseAnswer[];
  },
): TransactionModel | GraphQLError {
  try {
    if (a.verbosity === 0) {
      const model = modelFromHex(a.answer.result, network, a.txid, app.parsedTxs);
      return { ...model, verification: { status: a.status, proof: null } };
    }
    // Without prevouts, what is read of the answer is its scalar members: the rest (vin, vout) is
    // not built (most of the work of reading it).
    const result = a.verbosity === 1 ? resultScalars(a.answer) : a.answer.result;
    // Kept only once checked in full (its block proven against a verified chain).
    if (a.status === "chain" || !claims.checking) a.verbose.push({ txid: a.txid, result });
    const model = modelFromVerbose(result, network, a.txid, app.parsedTxs);
    const proof = model.block ? claims.proof(a.txid, model.block.hash) : null;
    return { ...model, verification: { status: a.status, proof } };
  } catch (err) {
    return err instanceof GraphQLError ? err : badAnswer("full node's");
  }
}

/**
 * What getrawtransaction verbosity 0 says about `txid` (its hex), as the Transaction type's model:
 * `block` is null, as for the mempool, which no field the operation selects reads (the loader asks
 * at this verbosity only then).
 */
function modelFromHex(
  result: Json,
  network: NetworkName,
  txid: string,
  parsed: ParsedTxs,
): TransactionModel {
  if (typeof result !== "string") {
    throw new GraphQLError("the full node's answer is not hex", {
      extensions: { code: "UPSTREAM_BAD_RESPONSE" },
    });
  }
  const { tx, scripts } = parsed.fromHex(network, txid, result);
  return { tx, network, origin: "FULL_NODE", block: null, prevouts: null, scripts };
}

/**
 * The transactions asked at verbosity 0 lately, by process: the doorkeeper of the caches (as in
 * TinyLFU), so that a transaction asked once costs the node its hex alone and one asked again is
 * asked verbose, to be kept. Bounded by count; a key is some 80 bytes.
 */
/** Whether `txid` was asked lately (and notes that it now is). */
function seenAtHex(seen: LruMap<string, true>, network: NetworkName, txid: string): boolean {
  const key = `${network}:${txid.toLowerCase()}`;
  if (seen.get(key)) return true;
  seen.set(key, true);
  return false;
}

/**
 * Transactions the response cache holds, as the Transaction type's model (what getrawtransaction
 * verbosity 1 would have said: confirmations from the node's tip); null where it holds none.
 */
async function cachedModels(
  app: GatewayServices,
  network: NetworkName,
  txids: readonly string[],
  claims: CoreBlockClaims,
): Promise<(TransactionModel | null)[] | null> {
  const lookup = await app.txCache.lookup(
    network,
    txids.map((t) => t.toLowerCase()),
  );
  if (!lookup) return null;
  return lookup.found.map((entry, i) => {
    if (!entry) return null;
    const txid = txids[i]!.toLowerCase();
    const { tx, scripts } = app.parsedTxs.fromBytes(network, txid, entry.bytes);
    // Its block looked up again on the verified chain: kept once proven, served while on it.
    const onChain = claims.confirmationsOf(entry.blockhash, entry.height);
    const status = onChain === undefined ? "partial" : "chain";
    return {
      tx,
      scripts,
      network,
      origin: "FULL_NODE",
      block: {
        hash: entry.blockhash,
        confirmations: onChain ?? lookup.tip - entry.height + 1,
        time: entry.blocktime,
        blocktime: entry.blocktime,
      },
      prevouts: null,
      verification: { status, proof: claims.proof(txid, entry.blockhash) },
    };
  });
}

/**
 * Transactions from the network's Electrum servers, per request: deduplicated, and sent
 * concurrently so that they travel pipelined on the pool's persistent connections. The service is
 * the Electrum route's (bytes checked, block position verified, cache included) and its model — the
 * bytes and the position — becomes the Transaction type's directly; a cache hit is metered like a
 * miss (spec §8.2).
 */
export function electrumTransactionLoader(
  app: GatewayServices,
  network: NetworkName,
  meter: Meter,
): DataLoader<string, TransactionModel | GraphQLError | null> {
  const price = priceOf(app.config, ELECTRUM_METHOD, network) ?? 0;
  const source = electrumTxSource(app, network);
  return new DataLoader(
    (txids) =>
      Promise.all(
        txids.map(async (txid) => {
          const out = await electrumTransaction(source, txid, true);
          if (out.kind === "failure") return fromGatewayError(out.error);
          if (out.upstream === "cache") meter.cacheHits += 1;
          recordCalls(meter, ELECTRUM_METHOD, price);
          if (out.kind === "refused") {
            meter.verified.push("unchecked");
            // ElectrumX wraps the node's refusal: code 2, `daemon error: … -5 …`.
            return /'code': -5\b|"code": ?-5\b/.test(out.error.message)
              ? null
              : codedErrorFromElectrum(out.error.message);
          }
          const at = out.position;
          const status = out.verified ?? "unchecked";
          meter.verified.push(status);
          const pool = source.pool;
          const proof =
            at && pool ? proofOn(pool.chain, pool.proven, out.tx().txid, at.blockhash) : null;
          return {
            tx: out.tx(),
            network,
            origin: "FULL_NODE",
            block: at
              ? {
                  hash: at.blockhash,
                  confirmations: at.confirmations,
                  time: at.blocktime,
                  blocktime: at.blocktime,
                }
              : null,
            prevouts: null,
            verification: { status, proof },
          } satisfies TransactionModel;
        }),
      ),
    { maxBatchSize: app.config.graphql.batchSize },
  );
}

const ELECTRUM_METHOD = "blockchain.transaction.get";

function codedErrorFromElectrum(message: string): GraphQLError {
  return codedError("UPSTREAM_ERROR", message);
}

function badAnswer(source: string): GraphQLError {
  return codedError("UPSTREAM_BAD_RESPONSE", `the ${source} transaction could not be decoded`);
}

/**
 * Blocks by hash from the indexer, for one Transaction.block site of a request (`info` is the
 * site's first resolution; every resolution of a site shares its selection). The hashes asked in
 * one tick are deduplicated and each delegated as block_by_pk; the subschema's batching merges
 * those delegations into one indexer query. Each distinct block is one metered lookup.
 */
export function blockLoader(
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
): DataLoader<string, unknown> {
  return new DataLoader((hashes) =>
    Promise.all(hashes.map((hash) => delegateToIndexer(ctx, info, "block_by_pk", { hash }))),
  );
}
