import type { NetworkName } from "../config/schema.ts";
import { isJsonObject, type Json, parseJson, stringifyJson } from "../protocol/json/json.ts";
import type { BlockAnswerCache } from "./block-answers.ts";
import type { BlockRef, ChainGuard } from "./chain-guard.ts";
import type { AnswerKind, RedisTier } from "./redis-tier.ts";
import type { CachedTx, TxCache } from "./tx-cache.ts";

/** Told of each look-up's result per tier (for metrics). */
export type CacheObserver = (
  network: NetworkName,
  tier: "memory" | "redis",
  result: "hit" | "miss",
  count: number,
) => void;

/** What a look-up found: entries vouched for on the best chain, and the tip they were checked at. */
export interface CacheLookup {
  /** The node's block count: confirmations are tip − height + 1. */
  tip: number;
  /** One per txid asked, in order; undefined: not cached (or no longer on the best chain). */
  found: (CachedTx | undefined)[];
}

/**
 * The finality-aware response cache of confirmed transactions, in two tiers:
 * this process's byte-bounded LRU (tx-cache.ts), then Redis when REDIS_URL is set
 * (redis-tier.ts), shared by every process. Only what cannot change goes in — transactions at
 * least cache.minConfirmations deep — and nothing is served that the network's chain guard
 * (chain-guard.ts) does not vouch is still on the best chain: a reorganisation evicts what it
 * touched, here and in Redis.
 */
export class TxStore {
  constructor(
    readonly memory: TxCache,
    readonly redis: RedisTier | null,
    private readonly guards: ReadonlyMap<NetworkName, ChainGuard>,
    readonly minConfirmations: number,
    private readonly observe: CacheObserver = () => {},
    /** Indexer answers about deep blocks (Redis too, when there is one); none: not cached. */
    readonly blocks: BlockAnswerCache | null = null,
  ) {}

  get enabled(): boolean {
    return this.memory.bytesMax > 0 || this.redis !== null;
  }

  guard(network: NetworkName): ChainGuard | undefined {
    return this.guards.get(network);
  }

  /**
   * The cached entries of these txids (lower-case hex), each checked against the best chain.
   * null: the cache can vouch for nothing now (off, or the node could not be asked), so every
   * answer comes from the upstream.
   */
  async lookup(network: NetworkName, txids: readonly string[]): Promise<CacheLookup | null> {
    const guard = this.guards.get(network);
    if (!this.enabled || !guard || txids.length === 0) return null;
    const found = txids.map((t) => this.memory.get(network, t));
    const inMemory = found.filter((f) => f !== undefined).length;
    this.observe(network, "memory", "hit", inMemory);
    this.observe(network, "memory", "miss", txids.length - inMemory);
    if (this.redis && inMemory < txids.length) {
      const missing = txids.flatMap((_, i) => (found[i] ? [] : [i]));
      const shared = await this.redis.getMany(
        network,
        missing.map((i) => txids[i]!),
      );
      let hits = 0;
      missing.forEach((i, k) => {
        const entry = shared[k];
        if (!entry) return;
        hits += 1;
        found[i] = entry;
        this.memory.set(network, txids[i]!, entry);
      });
      this.observe(network, "redis", "hit", hits);
      this.observe(network, "redis", "miss", missing.length - hits);
    }
    if (found.every((f) => f === undefined)) return { tip: 0, found };
    const tip = await guard.tip();
    if (tip === null) return null;
    const present = found.flatMap((f, i) => (f ? [i] : []));
    const onChain = await guard.onBestChain(present.map((i) => found[i]!));
    const stale: string[] = [];
    present.forEach((i, k) => {
      const entry = found[i]!;
      if (onChain[k] && entry.height <= tip) return;
      this.memory.evict(network, txids[i]!);
      stale.push(txids[i]!);
      found[i] = undefined;
    });
    this.redis?.delete(network, stale);
    return { tip, found };
  }

  /** Keeps a transaction the upstream just placed at least minConfirmations deep. */
  remember(network: NetworkName, txid: string, entry: CachedTx): void {
    if (!this.enabled) return;
    this.memory.set(network, txid, entry);
    this.redis?.set(network, txid, entry);
    this.guards.get(network)?.anchor(entry.height, entry.blockhash);
  }

  /**
   * A cached indexer answer about deep blocks, served only while the guard vouches for each of its
   * blocks on the best chain; null to ask the indexer.
   */
  async blockAnswer(network: NetworkName, key: string): Promise<{ [key: string]: Json } | null> {
    if (!this.blocks) return null;
    return this.answer(network, "graph", key, this.blocks, {
      decode: parsedObject,
      bytes: (text) => text.length + key.length,
    });
  }

  /**
   * An answer about blocks from `cache` (this process's), else from Redis (another process's),
   * served only while this process's guard vouches for each of its blocks on the best chain, as a
   * transaction is; a stale one is dropped from where it was found. What Redis gave is kept in
   * `cache` too. `decode` reads Redis's text back (null: not an answer of this kind); `askRedis`
   * false skips Redis for this key.
   */
  async answer<T>(
    network: NetworkName,
    kind: AnswerKind,
    key: string,
    cache: BlockAnswerCache<T>,
    read: {
      decode(text: string): T | null;
      bytes(text: string, data: T): number;
      askRedis?: () => boolean;
    },
  ): Promise<T | null> {
    const entry = cache.get(key);
    if (entry) {
      if (await this.vouches(network, entry.blocks)) return entry.data;
      cache.delete(key);
      return null;
    }
    if (cache.bytesMax === 0 || !this.redis || read.askRedis?.() === false) return null;
    const shared = await this.redis.getAnswer(network, kind, key);
    const data = shared ? read.decode(shared.text) : null;
    if (!shared || data === null) return null;
    if (!(await this.vouches(network, shared.blocks))) {
      this.redis.deleteAnswer(network, kind, key);
      return null;
    }
    cache.set(key, {
      network,
      data,
      blocks: shared.blocks,
      bytes: read.bytes(shared.text, data),
    });
    return data;
  }

  /**
   * Keeps an indexer answer about these blocks when every one is at least minConfirmations deep
   * and on the best chain now (the guard asks the node for heights it has not seen), here and in
   * Redis when there is one.
   */
  async rememberBlockAnswer(
    network: NetworkName,
    key: string,
    data: { [key: string]: Json },
    blocks: readonly BlockRef[],
  ): Promise<void> {
    if (!this.blocks || this.blocks.bytesMax === 0) return;
    if (!(await this.final(network, blocks))) return;
    const text = stringifyJson(data);
    this.blocks.set(key, { network, data, blocks: [...blocks], bytes: text.length + key.length });
    this.redis?.setAnswer(network, "graph", key, text, blocks);
  }

  /**
   * Whether an answer about these blocks may be served now: the network's guard vouches that each
   * is still on the best chain, at or below its tip. False when it cannot tell (no node, or the
   * node could not be asked): the caller asks the upstream.
   */
  async vouches(network: NetworkName, blocks: readonly BlockRef[]): Promise<boolean> {
    const guard = this.guards.get(network);
    if (!guard) return false;
    const tip = await guard.tip();
    if (tip === null) return false;
    const onChain = await guard.onBestChain(blocks);
    return onChain.every(Boolean) && blocks.every((b) => b.height <= tip);
  }

  /**
   * Whether an answer about these blocks is final, so worth keeping: every one at least
   * minConfirmations deep and on the best chain now (the guard asks the node for heights it has
   * not seen).
   */
  async final(network: NetworkName, blocks: readonly BlockRef[]): Promise<boolean> {
    const guard = this.guards.get(network);
    if (!guard || blocks.length === 0) return false;
    const tip = await guard.tip();
    if (tip === null) return false;
    if (!blocks.every((b) => tip - b.height + 1 >= this.minConfirmations)) return false;
    return (await guard.onBestChain(blocks)).every(Boolean);
  }

  async close(): Promise<void> {
    await this.redis?.close();
  }
}

/** A JSON object's text read back with its number literals kept; null if it is not one. */
function parsedObject(text: string): { [key: string]: Json } | null {
  try {
    const data = parseJson(text);
    return isJsonObject(data) ? data : null;
  } catch {
    return null;
  }
}
