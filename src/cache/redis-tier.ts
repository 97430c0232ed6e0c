import { hash } from "node:crypto";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import type { NetworkName } from "../config/schema.ts";
import type { BlockRef } from "./chain-guard.ts";
import type { CachedTx } from "./tx-cache.ts";

export interface RedisTierOptions {
  url: string;
  keyPrefix: string;
  timeoutMs: number;
  ttlMs: number;
}

/** Fixed part of a stored entry: height (4 bytes), block time (4), block hash (32). */
const HEADER_BYTES = 40;

/** The most keys one MGET asks for (a look-up asking more goes alone). */
const READ_KEYS_MAX = 4_096;

/**
 * The response cache's shared tier: confirmed transactions in Redis, so every process serves what
 * any fetched. Redis may lose anything: a failed or slow command (timeoutMs) is a miss, never an
 * error to the client, and with Redis unreachable commands fail at once. Values are bytes (height,
 * block time, block hash, raw transaction). An entry is served only after the reader's chain guard
 * vouches for its block (chain-guard.ts); a stale one is deleted; unread entries expire (ttlMs).
 */
export class RedisTier {
  private readonly redis: Redis;
  /** Failures seen (commands that failed or timed out): misses, for tests and logs. */
  failures = 0;
  private warned = false;
  /** Look-ups waiting to be sent, together, by `read`. */
  private lookups: { keys: string[]; done: (found: (CachedTx | undefined)[]) => void }[] = [];
  private readScheduled = false;
  /** An MGET waiting for its answer: look-ups meanwhile go with the next. */
  private reading = false;

  constructor(
    private readonly opts: RedisTierOptions,
    private readonly log: Logger,
  ) {
    this.redis = new Redis(opts.url, {
      commandTimeout: opts.timeoutMs,
      // Concurrent requests' look-ups go as one write per turn of the event loop (as the limits').
      enableAutoPipelining: true,
      connectTimeout: Math.max(opts.timeoutMs, 1_000),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Reconnect forever, backing off to 2 s: Redis may come back at any time.
      retryStrategy: (times) => Math.min(times * 100, 2_000),
    });
    this.redis.on("error", (err: Error) => this.failed(err));
    this.redis.on("ready", () => {
      this.warned = false;
    });
  }

  /** Connected: until then (and while reconnecting) every command is a miss. */
  get ready(): boolean {
    return this.redis.status === "ready";
  }

  private key(network: NetworkName, txid: string): string {
    return `${this.opts.keyPrefix}${network}:tx:${txid}`;
  }

  /**
   * The entries stored for these txids; undefined for misses, and for all of them on failure. The
   * look-ups wait for the turn of the event loop that asked to handle its I/O (setImmediate) and go
   * as one MGET; while one MGET waits for its answer, the look-ups of the turns that follow gather
   * for the next (as the limits' admissions do: decision 0067). A command costs this process and
   * Redis more than the keys it reads, and a loaded gateway handles few calls a turn.
   */
  getMany(network: NetworkName, txids: readonly string[]): Promise<(CachedTx | undefined)[]> {
    if (txids.length === 0) return Promise.resolve([]);
    return new Promise((done) => {
      this.lookups.push({ keys: txids.map((t) => this.key(network, t)), done });
      this.scheduleRead();
    });
  }

  private scheduleRead(): void {
    if (this.readScheduled || this.reading || this.lookups.length === 0) return;
    this.readScheduled = true;
    setImmediate(() => void this.read());
  }

  /** The look-ups waiting, in one MGET, each given its own entries. */
  private async read(): Promise<void> {
    this.readScheduled = false;
    // Bounded: Redis serves no one else while it answers one MGET; the rest go with the next.
    let take = 0;
    for (let keys = 0; take < this.lookups.length; take++) {
      keys += this.lookups[take]!.keys.length;
      if (take > 0 && keys > READ_KEYS_MAX) break;
    }
    const lookups = this.lookups.splice(0, take);
    this.reading = true;
    let values: (Buffer | null)[] | null = null;
    try {
      values = await this.redis.mgetBuffer(...lookups.flatMap((l) => l.keys));
    } catch (err) {
      this.failed(err);
    }
    this.reading = false;
    this.scheduleRead();
    let at = 0;
    for (const { keys, done } of lookups) {
      const mine = values?.slice(at, at + keys.length);
      at += keys.length;
      done(keys.map((_, i) => (mine?.[i] ? decode(mine[i]) : undefined)));
    }
  }

  /** Stores an entry; not awaited by callers (a failure only means another process misses). */
  set(network: NetworkName, txid: string, entry: CachedTx): void {
    this.redis
      .set(this.key(network, txid), encode(entry), "PX", this.opts.ttlMs)
      .catch((err: unknown) => this.failed(err));
  }

  /** Deletes entries whose block left the best chain. */
  delete(network: NetworkName, txids: readonly string[]): void {
    if (txids.length === 0) return;
    this.redis
      .del(...txids.map((t) => this.key(network, t)))
      .catch((err: unknown) => this.failed(err));
  }

  /**
   * Keys of answers about blocks: the SHA-256 of the cache key (a request body can be long), the
   * key itself kept in the value and compared on reading.
   */
  private answerKey(network: NetworkName, kind: AnswerKind, key: string): string {
    return `${this.opts.keyPrefix}${network}:${kind}:${hash("sha256", key)}`;
  }

  /** The answer stored for this key, and the blocks it is about; undefined for a miss or failure. */
  async getAnswer(
    network: NetworkName,
    kind: AnswerKind,
    key: string,
  ): Promise<{ text: string; blocks: BlockRef[] } | undefined> {
    try {
      const value = await this.redis.get(this.answerKey(network, kind, key));
      return value === null ? undefined : decodeAnswer(value, key);
    } catch (err) {
      this.failed(err);
      return undefined;
    }
  }

  /** Stores an answer as text; not awaited by callers, as set(). */
  setAnswer(
    network: NetworkName,
    kind: AnswerKind,
    key: string,
    text: string,
    blocks: readonly BlockRef[],
  ): void {
    this.redis
      .set(
        this.answerKey(network, kind, key),
        JSON.stringify({ key, blocks, text }),
        "PX",
        this.opts.ttlMs,
      )
      .catch((err: unknown) => this.failed(err));
  }

  /** Deletes an answer one of whose blocks left the best chain. */
  deleteAnswer(network: NetworkName, kind: AnswerKind, key: string): void {
    this.redis.del(this.answerKey(network, kind, key)).catch((err: unknown) => this.failed(err));
  }

  private failed(err: unknown): void {
    this.failures += 1;
    // One warning per outage, not one per command.
    if (this.warned) return;
    this.warned = true;
    this.log.warn(
      { err: err instanceof Error ? err.message : String(err) },
      "Redis cache unavailable: answering from the upstreams",
    );
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

/**
 * Which cache an answer about blocks belongs to: the graph route's indexer answers, or the unified
 * API's whole answers. Their keys are made differently, so they are kept apart.
 */
export type AnswerKind = "graph" | "gateway";

/** A stored answer, when it is one and is this key's (else a miss). */
function decodeAnswer(
  value: string,
  key: string,
): { text: string; blocks: BlockRef[] } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { key: stored, blocks, text } = parsed as Record<string, unknown>;
  if (stored !== key || typeof text !== "string" || !Array.isArray(blocks)) return undefined;
  const refs = blocks.filter(
    (b): b is BlockRef =>
      typeof b === "object" &&
      b !== null &&
      Number.isInteger((b as BlockRef).height) &&
      typeof (b as BlockRef).blockhash === "string",
  );
  return refs.length === blocks.length && refs.length > 0 ? { text, blocks: refs } : undefined;
}

function encode(entry: CachedTx): Buffer {
  const out = Buffer.allocUnsafe(HEADER_BYTES + entry.bytes.length);
  out.writeUInt32BE(entry.height, 0);
  out.writeUInt32BE(entry.blocktime, 4);
  out.write(entry.blockhash, 8, 32, "hex");
  out.set(entry.bytes, HEADER_BYTES);
  return out;
}

function decode(value: Buffer): CachedTx | undefined {
  if (value.length <= HEADER_BYTES) return undefined;
  return {
    height: value.readUInt32BE(0),
    blocktime: value.readUInt32BE(4),
    blockhash: value.toString("hex", 8, 40),
    // A copy: the entry outlives the reply buffer, and the codec keeps views into its bytes.
    bytes: new Uint8Array(value.subarray(HEADER_BYTES)),
  };
}
