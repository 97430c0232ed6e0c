// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.
import {
  LedgerError,
  SettleQueue,
  TargetPolicy,
  auditCsv,
  available,
  grantCredits,
  insertAudit,
  openDatabase,
  reserve,
  runDbCommand,
  usageCsv,
  voidStaleHolds
} from "./chunks/chunk-TCTIOHP2.js";
import {
  adminAuthorized,
  writeAdminFile,
  writesAdminFile
} from "./chunks/chunk-GIQUGMH5.js";
import {
  lostCreateRace
} from "./chunks/chunk-VNIG4S7Q.js";
import {
  BAD_REQUEST,
  ByteLru,
  Cancel,
  DAEMON_ERROR,
  JSON_DEPTH_MAX,
  LruMap,
  answerForReply,
  auditOnly,
  bindArgs,
  checkGraphLimits,
  checkGraphQuery,
  checkScope,
  decodedTx,
  decodedTxBaseText,
  decodedTxFromBase,
  electrumScripthash,
  electrumTransaction,
  electrumTxSource,
  eventPrice,
  fillConfirmations,
  fromHasuraCode,
  fromRpcRefusal,
  gatewayError,
  graphComplexity,
  graphPrice,
  graphqlFailure,
  hash32Hex,
  hasuraError,
  hasuraErrorObject,
  headerAt,
  headerOf,
  httpStatusOf,
  indexerSchema,
  isPyBool,
  isUnspendable,
  jsonDepthOver,
  jsonRpcFailure,
  meter,
  parseCanonical,
  plainFailure,
  priceOf,
  pyBoolValue,
  rawResultAnswer,
  rememberFromCore,
  resultScalars,
  rpcErrorObject,
  scanBatchAnswer,
  sendReply,
  sendText
} from "./chunks/chunk-X6BKHTWW.js";
import {
  addressActivityOf,
  confirmationsOf,
  createAccount,
  createMessage,
  cycleAt,
  cycleContaining,
  endEndpoint,
  feesOf,
  findAccount,
  liveEndpoints,
  newBlocks,
  pendingMessage,
  projectPath,
  recordAttempt,
  signedHeaders
} from "./chunks/chunk-UUT7BSOM.js";
import {
  COIN,
  MAX_SCRIPT_SIZE,
  OP_RETURN,
  addressToScript,
  allPlainScalars,
  amountToJson,
  blockToUniv,
  computeMerkleRoot,
  decodeScriptToUniv,
  deriveTarget,
  fromHex,
  fromHexReversed,
  getDifficulty,
  isJsonNumber,
  isJsonObject,
  jsonInteger,
  jsonNumber,
  loadPrevoutsFile,
  parseAmount,
  parseBlock,
  parseJson,
  parseTransaction,
  readBlockRecords,
  scriptPubKeyToJson,
  serializeTransaction,
  sha256,
  sha256d,
  solve,
  stringifyJson,
  toHex,
  toHexReversed,
  txFee,
  txToUniv,
  uint256Hex,
  univalueDouble
} from "./chunks/chunk-A5KRFPS2.js";
import {
  operatorAuthorized
} from "./chunks/chunk-LLDYJS6Y.js";
import {
  ConfigError,
  loadConfig
} from "./chunks/chunk-PCU6IYAE.js";
import {
  tokenOfDnsLabel
} from "./chunks/chunk-7VYBGATG.js";
import {
  authenticate,
  compileScope,
  isTokenShaped,
  issueToken,
  liveOwner,
  originAllowed,
  requestOutOfScope,
  tokenCacheKey,
  tokenHint
} from "./chunks/chunk-BUEEPKH6.js";
import {
  CORE_COALESCE_CALLS_MAX_DEFAULT,
  NETWORK_NAMES
} from "./chunks/chunk-M6ZRZKCO.js";

// src/admin/devnet-control.ts
var DEVNET_BLOCKS_MAX = 1e3;
var producersOf = /* @__PURE__ */ new WeakMap();
function attachDevnet(app, producers) {
  producersOf.set(app, producers);
}
function runsDevnet(app) {
  return (producersOf.get(app)?.size ?? 0) > 0;
}
function positive(value, fallback) {
  if (value === void 0) return fallback;
  return Number.isSafeInteger(value) && value >= 1 ? value : null;
}
function runDevnetAction(app, action, body, reply3) {
  let input;
  try {
    const parsed2 = JSON.parse(body === "" ? "{}" : body);
    if (typeof parsed2 !== "object" || parsed2 === null || Array.isArray(parsed2))
      throw new SyntaxError();
    input = parsed2;
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return refuse(reply3, "BAD_REQUEST", "expected a JSON object");
  }
  const network = input.network ?? "regtest";
  if (typeof network !== "string" || !NETWORK_NAMES.includes(network)) {
    return refuse(reply3, "BAD_REQUEST", `network: one of ${NETWORK_NAMES.join(", ")}`);
  }
  const producer = producersOf.get(app)?.get(network);
  if (!producer) return refuse(reply3, "NOT_FOUND", `devnet does not serve ${network} here`);
  const key = action === "mine" ? "blocks" : "depth";
  const count = positive(input[key], 1);
  if (count === null || count + (action === "reorg" ? 1 : 0) > DEVNET_BLOCKS_MAX) {
    return refuse(
      reply3,
      "BAD_REQUEST",
      `${key}: an integer from 1 to ${DEVNET_BLOCKS_MAX - (action === "reorg" ? 1 : 0)}`
    );
  }
  const change = action === "mine" ? producer.mine(count) : producer.reorg(count);
  if ("refused" in change) return refuse(reply3, "BAD_REQUEST", change.refused);
  app.log.info(
    {
      network,
      action,
      height: change.tip.height,
      connected: change.connected.length,
      disconnected: change.disconnected.length
    },
    "devnet: blocks produced on command"
  );
  return sendReply(reply3, { status: 200, body: { network, ...change } });
}
function refuse(reply3, code, message) {
  return sendReply(reply3, plainFailure(gatewayError(code, message)));
}

// src/app/app.ts
import { randomUUID as randomUUID7 } from "node:crypto";
import { hostname } from "node:os";

// src/auth/token-cache.ts
import { EventEmitter } from "node:events";
var TokenCache = class {
  constructor(db, opts = {}) {
    this.db = db;
    this.maxEntries = opts.maxEntries ?? 1e4;
    this.ttlMs = opts.ttlMs ?? 6e4;
    this.onRevoked = opts.onRevoked ?? (() => {
    });
    this.watchers.setMaxListeners(0);
    db.listen("token_revoked", (payload) => this.revoked(Number(payload)));
  }
  db;
  entries = /* @__PURE__ */ new Map();
  /** Sessions of a token waiting to hear of its revocation, by token id. */
  watchers = new EventEmitter();
  /** Revocations seen; a lookup that raced one is not cached. */
  revocations = 0;
  maxEntries;
  ttlMs;
  /** Told of each revocation signal as it arrives (logged: operators and tests see when). */
  onRevoked;
  async authenticate(token) {
    if (!isTokenShaped(token) || this.maxEntries === 0) return authenticate(this.db, token);
    const key = tokenCacheKey(token);
    const now = Date.now();
    const hit = this.live(key, now);
    this.entries.delete(key);
    if (hit) {
      this.entries.set(key, hit);
      return hit.owner;
    }
    const seen = this.revocations;
    const owner = await authenticate(this.db, token);
    if (owner && seen === this.revocations && this.db.listening()) {
      const expires = owner.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY;
      this.entries.set(key, { owner, until: Math.min(now + this.ttlMs, expires) });
      if (this.entries.size > this.maxEntries) {
        this.entries.delete(this.entries.keys().next().value);
      }
    }
    return owner;
  }
  /** The owner of a token this process holds in its cache, without asking the database. */
  cached(token) {
    if (!isTokenShaped(token)) return null;
    return this.live(tokenCacheKey(token), Date.now())?.owner ?? null;
  }
  /** An entry that may be used: within its time, and while revocations can be heard. */
  live(key, now) {
    const hit = this.entries.get(key);
    return hit && hit.until > now && this.db.listening() ? hit : void 0;
  }
  get size() {
    return this.entries.size;
  }
  revoked(tokenId) {
    this.revocations += 1;
    let dropped = 0;
    for (const [key, entry] of this.entries) {
      if (entry.owner.tokenId === tokenId || !Number.isFinite(tokenId)) {
        this.entries.delete(key);
        dropped += 1;
      }
    }
    this.onRevoked(tokenId, dropped);
    this.watchers.emit(String(tokenId));
  }
  /**
   * Calls `fn` once the token `tokenId` is revoked (the signal reaches every process): what ends a
   * long-lived session of it (a subscription) at once. Returns the way to stop watching.
   */
  watchRevocation(tokenId, fn) {
    this.watchers.once(String(tokenId), fn);
    return () => this.watchers.off(String(tokenId), fn);
  }
};

// src/cache/block-answers.ts
var BlockAnswerCache = class {
  constructor(bytesMax) {
    this.bytesMax = bytesMax;
    this.lru = new ByteLru(bytesMax, (entry) => entry.bytes);
  }
  bytesMax;
  lru;
  get stats() {
    return this.lru.stats;
  }
  get(key) {
    return this.lru.get(key);
  }
  set(key, entry) {
    this.lru.set(key, entry);
  }
  delete(key) {
    this.lru.delete(key);
  }
  /** Drops every answer about a block at `height` on `network` (a scan: reorgs are rare). */
  dropHeight(network, height) {
    return this.lru.dropWhere(
      (_key, entry) => entry.network === network && entry.blocks.some((b) => b.height === height)
    );
  }
};

// src/cache/chain-guard.ts
var ANCHORS_MAX = 1e4;
var CHECKS_PER_TRIP = 8;
var ChainGuard = class {
  constructor(pool, ttlMs, onStale) {
    this.pool = pool;
    this.ttlMs = ttlMs;
    this.onStale = onStale;
  }
  pool;
  ttlMs;
  onStale;
  height = null;
  at = 0;
  refreshing = null;
  anchors = /* @__PURE__ */ new Map();
  /** The node's block count, refreshed (and the anchors re-checked) when older than ttlMs. */
  tip() {
    if (this.height !== null && Date.now() - this.at < this.ttlMs) {
      return Promise.resolve(this.height);
    }
    this.refreshing ??= this.refresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }
  /** A height learned on the side (a node answer that implies the tip), kept if newer. */
  note(height) {
    if (this.height === null || height >= this.height) {
      this.height = height;
      this.at = Date.now();
    }
  }
  /**
   * For each block, whether it is on the best chain as far as the guard knows now: remembered
   * heights are compared, others asked of the node in one batch. A block found replaced is
   * reported stale (evicting what the cache holds of it) and answered false.
   */
  async onBestChain(blocks) {
    const unknown = [...new Set(blocks.map((b) => b.height))].filter((h) => !this.anchors.has(h));
    if (unknown.length > 0) {
      const hashes = await this.hashesAt(unknown);
      if (hashes === null) return blocks.map(() => false);
      unknown.forEach((h, i) => {
        const hash4 = hashes[i];
        if (hash4) this.anchor(h, hash4);
      });
    }
    return blocks.map((b) => {
      const hash4 = this.anchors.get(b.height);
      if (hash4 === void 0) return false;
      if (hash4 === b.blockhash) return true;
      return false;
    });
  }
  /** Remembers a block the caller knows is on the best chain now (an answer the node just gave). */
  anchor(height, blockhash) {
    const known = this.anchors.get(height);
    if (known !== void 0 && known !== blockhash) this.onStale(height);
    this.anchors.delete(height);
    this.anchors.set(height, blockhash);
    if (this.anchors.size > ANCHORS_MAX) {
      const oldest = this.anchors.keys().next().value;
      if (oldest !== void 0) this.anchors.delete(oldest);
    }
  }
  async refresh() {
    const heights = [...this.anchors.keys()].sort((a, b) => b - a);
    let checked2 = 0;
    let tip = null;
    while (true) {
      const batch = heights.slice(checked2, checked2 + CHECKS_PER_TRIP);
      const first = tip === null;
      const out = await this.pool.batch([
        ...first ? [{ method: "getblockcount", params: [] }] : [],
        ...batch.map((h) => ({ method: "getblockhash", params: [jsonNumber(h)] }))
      ]);
      if (!out.ok) return null;
      const answers = first ? out.answers.slice(1) : out.answers;
      if (first) {
        const count = out.answers[0];
        const height = count && "result" in count ? jsonInteger(count.result) : void 0;
        if (height === void 0) return null;
        tip = height;
      }
      let matched = false;
      batch.forEach((h, i) => {
        if (matched) return;
        const answer3 = answers[i];
        const hash4 = answer3 && "result" in answer3 ? answer3.result : void 0;
        if (hash4 === this.anchors.get(h)) {
          matched = true;
          return;
        }
        this.anchors.delete(h);
        this.onStale(h);
      });
      checked2 += batch.length;
      if (matched || checked2 >= heights.length) break;
    }
    this.height = tip;
    this.at = Date.now();
    return tip;
  }
  /** The best chain's block hashes at these heights (undefined where it has none); null: no node. */
  async hashesAt(heights) {
    const out = await this.pool.batch(
      heights.map((h) => ({ method: "getblockhash", params: [jsonNumber(h)] }))
    );
    if (!out.ok) return null;
    return out.answers.map(
      (a) => "result" in a && typeof a.result === "string" ? a.result : void 0
    );
  }
};

// src/cache/gateway-answers.ts
import { hash } from "node:crypto";
import { z } from "zod";
var GatewayAnswers = class {
  constructor(bytesMax, store) {
    this.store = store;
    this.lru = new BlockAnswerCache(bytesMax);
  }
  store;
  lru;
  keeping = /* @__PURE__ */ new Set();
  /**
   * Keys (their SHA-256) of requests this process executed and did not keep: not looked up in
   * Redis again, so a query that is never final (the tip, an account) pays its round trip once.
   */
  notKept = /* @__PURE__ */ new Map();
  get enabled() {
    return this.lru.bytesMax > 0;
  }
  get stats() {
    return this.lru.stats;
  }
  /**
   * The answer kept for this key while its blocks are still on the best chain; else null. Kept by
   * this process, or by another in Redis (REDIS_URL): checked by this process's guard before it is
   * served, as transactions are, and deleted there when one of its blocks left the best chain.
   */
  async get(network, key) {
    const answer3 = await this.store.answer(network, "gateway", key, this.lru, {
      decode: storedAnswer,
      bytes: (_text, data) => bytesOf(key, data),
      askRedis: () => !this.notKept.has(digest(key))
    });
    return answer3 ? this.filled(network, answer3) : null;
  }
  /** The answer as of now: its confirmations written in from the guard's tip, if it has any. */
  async filled(network, answer3) {
    if (!answer3.heights) return answer3;
    const tip = await this.store.guard(network)?.tip();
    if (tip === void 0 || tip === null) return null;
    const dataText = fillConfirmations(
      answer3.dataText,
      answer3.heights.map((h) => tip - h + 1)
    );
    return dataText === null ? null : { ...answer3, dataText };
  }
  /** This request was executed and its answer not kept (see notKept). */
  executed(key) {
    if (!this.enabled || !this.store.redis) return;
    if (this.notKept.size >= NOT_KEPT_MAX) {
      const oldest = this.notKept.keys().next();
      if (!oldest.done) this.notKept.delete(oldest.value);
    }
    this.notKept.set(digest(key), true);
  }
  /**
   * Keeps an answer when its blocks are final now (deep enough, on the best chain). The route does
   * not wait for it (the guard may ask the node); idle() does.
   */
  remember(network, key, answer3, about) {
    const keeping = this.keep(network, key, answer3, about).finally(() => {
      this.keeping.delete(keeping);
    });
    this.keeping.add(keeping);
    return keeping;
  }
  /** Resolves once every answer being kept now is kept (or found not final): for tests. */
  async idle() {
    await Promise.allSettled([...this.keeping]);
  }
  async keep(network, key, answer3, about) {
    if (!this.enabled) return;
    const tip = await this.store.guard(network)?.tip();
    if (tip === void 0 || tip === null) return;
    const blocks = "blocks" in about ? about.blocks : placed(tip, about.mined);
    if (!blocks || !await this.store.final(network, blocks)) return;
    const { confirmations, ...rest } = answer3;
    const kept = confirmations ? { ...rest, heights: confirmations.map((c) => tip - c + 1) } : rest;
    this.lru.set(key, { network, data: kept, blocks: [...blocks], bytes: bytesOf(key, kept) });
    this.store.redis?.setAnswer(network, "gateway", key, JSON.stringify(kept), blocks);
  }
  dropHeight(network, height) {
    return this.lru.dropHeight(network, height);
  }
};
function placed(tip, mined) {
  const heights = /* @__PURE__ */ new Map();
  for (const { blockhash, confirmations } of mined) {
    const height = tip - confirmations + 1;
    const known = heights.get(blockhash);
    if (known !== void 0 && known !== height) return null;
    heights.set(blockhash, height);
  }
  return [...heights].map(([blockhash, height]) => ({ height, blockhash }));
}
var NOT_KEPT_MAX = 1e4;
var digest = (key) => hash("sha256", key);
function bytesOf(key, answer3) {
  return key.length + answer3.dataText.length + JSON.stringify(answer3.lines).length + JSON.stringify(answer3.headers).length;
}
var StoredAnswer = z.object({
  dataText: z.string(),
  estimated: z.number().int().nonnegative(),
  estimatedComplexity: z.number().nullable(),
  actual: z.number().int().nonnegative(),
  complexity: z.number().nullable(),
  lines: z.array(
    z.object({
      method: z.string(),
      count: z.number(),
      unitPrice: z.number().optional(),
      subtotal: z.number()
    })
  ),
  answered: z.number().int().nonnegative(),
  headers: z.record(z.string(), z.string()),
  heights: z.array(z.number().int().nonnegative()).optional()
});
function storedAnswer(text) {
  try {
    const parsed2 = StoredAnswer.safeParse(JSON.parse(text));
    return parsed2.success ? parsed2.data : null;
  } catch {
    return null;
  }
}

// src/cache/parsed-txs.ts
var costOf = (entry) => (entry.hex?.length ?? 0) + entry.tx.bytes.length * 5 + 256;
var ParsedTxs = class {
  lru;
  constructor(bytesMax) {
    this.lru = bytesMax > 0 ? new ByteLru(bytesMax, costOf) : null;
  }
  get stats() {
    return this.lru?.stats ?? null;
  }
  /** The transaction `hex` decodes to (throws as fromHex and parseTransaction do). */
  fromHex(network, txid, hex) {
    const key = `${network}:${txid}`;
    if (!this.lru) return decoded(void 0, parseTransaction(fromHex(hex)));
    const kept = this.lru.get(key);
    if (kept !== void 0 && kept.hex === hex) return kept;
    const parsed2 = decoded(hex, parseTransaction(new Uint8Array(fromHex(hex))));
    this.lru.set(key, parsed2);
    return parsed2;
  }
  /** The transaction `bytes` holds (the response cache's entry; throws as parseTransaction). */
  fromBytes(network, txid, bytes) {
    const key = `${network}:${txid}`;
    if (!this.lru) return decoded(void 0, parseTransaction(bytes));
    const kept = this.lru.get(key);
    if (kept !== void 0 && sameBytes(kept.tx.bytes, bytes)) return kept;
    const parsed2 = decoded(void 0, parseTransaction(bytes));
    this.lru.set(key, parsed2);
    return parsed2;
  }
};
function decoded(hex, tx) {
  return { hex, tx, scripts: new Array(tx.outputs.length) };
}
function sameBytes(a, b) {
  return a === b || Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}

// src/cache/redis-tier.ts
import { hash as hash2 } from "node:crypto";
import { Redis } from "ioredis";
var HEADER_BYTES = 40;
var RedisTier = class {
  constructor(opts, log) {
    this.opts = opts;
    this.log = log;
    this.redis = new Redis(opts.url, {
      commandTimeout: opts.timeoutMs,
      connectTimeout: Math.max(opts.timeoutMs, 1e3),
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Reconnect forever, backing off to 2 s: Redis may come back at any time.
      retryStrategy: (times) => Math.min(times * 100, 2e3)
    });
    this.redis.on("error", (err) => this.failed(err));
    this.redis.on("ready", () => {
      this.warned = false;
    });
  }
  opts;
  log;
  redis;
  /** Failures seen (commands that failed or timed out): misses, for tests and logs. */
  failures = 0;
  warned = false;
  /** Connected: until then (and while reconnecting) every command is a miss. */
  get ready() {
    return this.redis.status === "ready";
  }
  key(network, txid) {
    return `${this.opts.keyPrefix}${network}:tx:${txid}`;
  }
  /** The entries stored for these txids; undefined for misses, and for all of them on failure. */
  async getMany(network, txids) {
    if (txids.length === 0) return [];
    try {
      const values = await this.redis.mgetBuffer(...txids.map((t) => this.key(network, t)));
      return values.map((v) => v ? decode(v) : void 0);
    } catch (err) {
      this.failed(err);
      return txids.map(() => void 0);
    }
  }
  /** Stores an entry; not awaited by callers (a failure only means another process misses). */
  set(network, txid, entry) {
    this.redis.set(this.key(network, txid), encode(entry), "PX", this.opts.ttlMs).catch((err) => this.failed(err));
  }
  /** Deletes entries whose block left the best chain. */
  delete(network, txids) {
    if (txids.length === 0) return;
    this.redis.del(...txids.map((t) => this.key(network, t))).catch((err) => this.failed(err));
  }
  /**
   * Keys of answers about blocks: the SHA-256 of the cache key (a request body can be long), the
   * key itself kept in the value and compared on reading.
   */
  answerKey(network, kind, key) {
    return `${this.opts.keyPrefix}${network}:${kind}:${hash2("sha256", key)}`;
  }
  /** The answer stored for this key, and the blocks it is about; undefined for a miss or failure. */
  async getAnswer(network, kind, key) {
    try {
      const value = await this.redis.get(this.answerKey(network, kind, key));
      return value === null ? void 0 : decodeAnswer(value, key);
    } catch (err) {
      this.failed(err);
      return void 0;
    }
  }
  /** Stores an answer as text; not awaited by callers, as set(). */
  setAnswer(network, kind, key, text, blocks) {
    this.redis.set(
      this.answerKey(network, kind, key),
      JSON.stringify({ key, blocks, text }),
      "PX",
      this.opts.ttlMs
    ).catch((err) => this.failed(err));
  }
  /** Deletes an answer one of whose blocks left the best chain. */
  deleteAnswer(network, kind, key) {
    this.redis.del(this.answerKey(network, kind, key)).catch((err) => this.failed(err));
  }
  failed(err) {
    this.failures += 1;
    if (this.warned) return;
    this.warned = true;
    this.log.warn(
      { err: err instanceof Error ? err.message : String(err) },
      "Redis cache unavailable: answering from the upstreams"
    );
  }
  async close() {
    this.redis.disconnect();
  }
};
function decodeAnswer(value, key) {
  let parsed2;
  try {
    parsed2 = JSON.parse(value);
  } catch {
    return void 0;
  }
  if (typeof parsed2 !== "object" || parsed2 === null) return void 0;
  const { key: stored, blocks, text } = parsed2;
  if (stored !== key || typeof text !== "string" || !Array.isArray(blocks)) return void 0;
  const refs = blocks.filter(
    (b) => typeof b === "object" && b !== null && Number.isInteger(b.height) && typeof b.blockhash === "string"
  );
  return refs.length === blocks.length && refs.length > 0 ? { text, blocks: refs } : void 0;
}
function encode(entry) {
  const out = Buffer.allocUnsafe(HEADER_BYTES + entry.bytes.length);
  out.writeUInt32BE(entry.height, 0);
  out.writeUInt32BE(entry.blocktime, 4);
  out.write(entry.blockhash, 8, 32, "hex");
  out.set(entry.bytes, HEADER_BYTES);
  return out;
}
function decode(value) {
  if (value.length <= HEADER_BYTES) return void 0;
  return {
    height: value.readUInt32BE(0),
    blocktime: value.readUInt32BE(4),
    blockhash: value.toString("hex", 8, 40),
    // A copy: the entry outlives the reply buffer, and the codec keeps views into its bytes.
    bytes: new Uint8Array(value.subarray(HEADER_BYTES))
  };
}

// src/cache/tx-cache.ts
var ENTRY_OVERHEAD_BYTES = 200;
var TxCache = class {
  constructor(bytesMax) {
    this.bytesMax = bytesMax;
    this.lru = new ByteLru(bytesMax, costOf2);
  }
  bytesMax;
  lru;
  get stats() {
    return this.lru.stats;
  }
  get(network, txid) {
    return this.lru.get(`${network}:${txid}`);
  }
  has(network, txid) {
    return this.lru.has(`${network}:${txid}`);
  }
  set(network, txid, entry) {
    this.lru.set(`${network}:${txid}`, entry);
  }
  /**
   * The entry's memoised rendering, made by `render` the first time. Kept only while the entry is
   * still the cached one, and its size counted: a budget that ignored it would be off by the
   * decoded form's 3–4× the raw bytes.
   */
  rendered(network, txid, entry, render2) {
    if (entry.text !== void 0) return entry.text;
    const text = render2();
    this.lru.grow(`${network}:${txid}`, entry, () => {
      entry.text = text;
    });
    return text;
  }
  /** Drops an entry that can no longer be trusted (its block left the best chain). */
  evict(network, txid) {
    this.lru.delete(`${network}:${txid}`);
  }
  /**
   * Drops every entry mined at `height` on `network`: a reorganisation replaced that block. A
   * scan, not an index: reorganisations that reach cached depths are rare, and an index per
   * height would cost memory on every entry for them.
   */
  dropHeight(network, height) {
    const prefix = `${network}:`;
    return this.lru.dropWhere((key, entry) => entry.height === height && key.startsWith(prefix));
  }
};
function costOf2(entry) {
  return entry.bytes.length + (entry.text?.length ?? 0) + ENTRY_OVERHEAD_BYTES;
}

// src/cache/tx-store.ts
var TxStore = class {
  constructor(memory, redis, guards, minConfirmations, observe2 = () => {
  }, blocks = null) {
    this.memory = memory;
    this.redis = redis;
    this.guards = guards;
    this.minConfirmations = minConfirmations;
    this.observe = observe2;
    this.blocks = blocks;
  }
  memory;
  redis;
  guards;
  minConfirmations;
  observe;
  blocks;
  get enabled() {
    return this.memory.bytesMax > 0 || this.redis !== null;
  }
  guard(network) {
    return this.guards.get(network);
  }
  /**
   * The cached entries of these txids (lower-case hex), each checked against the best chain.
   * null: the cache can vouch for nothing now (off, or the node could not be asked), so every
   * answer comes from the upstream.
   */
  async lookup(network, txids) {
    const guard = this.guards.get(network);
    if (!this.enabled || !guard || txids.length === 0) return null;
    const found = txids.map((t) => this.memory.get(network, t));
    const inMemory = found.filter((f) => f !== void 0).length;
    this.observe(network, "memory", "hit", inMemory);
    this.observe(network, "memory", "miss", txids.length - inMemory);
    if (this.redis && inMemory < txids.length) {
      const missing = txids.flatMap((_, i) => found[i] ? [] : [i]);
      const shared = await this.redis.getMany(
        network,
        missing.map((i) => txids[i])
      );
      let hits = 0;
      missing.forEach((i, k) => {
        const entry = shared[k];
        if (!entry) return;
        hits += 1;
        found[i] = entry;
        this.memory.set(network, txids[i], entry);
      });
      this.observe(network, "redis", "hit", hits);
      this.observe(network, "redis", "miss", missing.length - hits);
    }
    if (found.every((f) => f === void 0)) return { tip: 0, found };
    const tip = await guard.tip();
    if (tip === null) return null;
    const present = found.flatMap((f, i) => f ? [i] : []);
    const onChain = await guard.onBestChain(present.map((i) => found[i]));
    const stale = [];
    present.forEach((i, k) => {
      const entry = found[i];
      if (onChain[k] && entry.height <= tip) return;
      this.memory.evict(network, txids[i]);
      stale.push(txids[i]);
      found[i] = void 0;
    });
    this.redis?.delete(network, stale);
    return { tip, found };
  }
  /** Keeps a transaction the upstream just placed at least minConfirmations deep. */
  remember(network, txid, entry) {
    if (!this.enabled) return;
    this.memory.set(network, txid, entry);
    this.redis?.set(network, txid, entry);
    this.guards.get(network)?.anchor(entry.height, entry.blockhash);
  }
  /**
   * A cached indexer answer about deep blocks, served only while the guard vouches for each of its
   * blocks on the best chain; null to ask the indexer.
   */
  async blockAnswer(network, key) {
    if (!this.blocks) return null;
    return this.answer(network, "graph", key, this.blocks, {
      decode: parsedObject,
      bytes: (text) => text.length + key.length
    });
  }
  /**
   * An answer about blocks from `cache` (this process's), else from Redis (another process's),
   * served only while this process's guard vouches for each of its blocks on the best chain, as a
   * transaction is; a stale one is dropped from where it was found. What Redis gave is kept in
   * `cache` too. `decode` reads Redis's text back (null: not an answer of this kind); `askRedis`
   * false skips Redis for this key.
   */
  async answer(network, kind, key, cache, read) {
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
    if (!await this.vouches(network, shared.blocks)) {
      this.redis.deleteAnswer(network, kind, key);
      return null;
    }
    cache.set(key, {
      network,
      data,
      blocks: shared.blocks,
      bytes: read.bytes(shared.text, data)
    });
    return data;
  }
  /**
   * Keeps an indexer answer about these blocks when every one is at least minConfirmations deep
   * and on the best chain now (the guard asks the node for heights it has not seen), here and in
   * Redis when there is one.
   */
  async rememberBlockAnswer(network, key, data, blocks) {
    if (!this.blocks || this.blocks.bytesMax === 0) return;
    if (!await this.final(network, blocks)) return;
    const text = stringifyJson(data);
    this.blocks.set(key, { network, data, blocks: [...blocks], bytes: text.length + key.length });
    this.redis?.setAnswer(network, "graph", key, text, blocks);
  }
  /**
   * Whether an answer about these blocks may be served now: the network's guard vouches that each
   * is still on the best chain, at or below its tip. False when it cannot tell (no node, or the
   * node could not be asked): the caller asks the upstream.
   */
  async vouches(network, blocks) {
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
  async final(network, blocks) {
    const guard = this.guards.get(network);
    if (!guard || blocks.length === 0) return false;
    const tip = await guard.tip();
    if (tip === null) return false;
    if (!blocks.every((b) => tip - b.height + 1 >= this.minConfirmations)) return false;
    return (await guard.onBestChain(blocks)).every(Boolean);
  }
  async close() {
    await this.redis?.close();
  }
};
function parsedObject(text) {
  try {
    const data = parseJson(text);
    return isJsonObject(data) ? data : null;
  } catch {
    return null;
  }
}

// src/events/bus.ts
function databaseBus(db) {
  return {
    publish: (payload) => db.notify("chain_event", payload),
    subscribe: (fn) => db.listen("chain_event", fn),
    ready: async () => {
    },
    close: async () => {
    }
  };
}

// src/events/chain-events.ts
import { EventEmitter as EventEmitter2 } from "node:events";

// src/events/headers-source.ts
function coreHeaders(pool) {
  const call = async (method, params) => {
    const out = await pool.batch([{ method, params }]);
    if (!out.ok) throw new Error(out.error.message);
    const answer3 = out.answers[0];
    if ("error" in answer3) throw new Error(answer3.error.message);
    return answer3.result;
  };
  const header = async (hash4) => {
    const answer3 = await call("getblockheader", [hash4, true]);
    if (!isJsonObject(answer3) || !isJsonNumber(answer3.height) || !isJsonNumber(answer3.time)) {
      throw new Error(`getblockheader ${hash4} answered no header`);
    }
    return {
      height: Number(answer3.height.value),
      hash: hash4,
      previousHash: typeof answer3.previousblockhash === "string" ? answer3.previousblockhash : null,
      time: Number(answer3.time.value)
    };
  };
  return {
    async tip(knownHash) {
      const best = await call("getbestblockhash", []);
      if (typeof best !== "string") throw new Error("getbestblockhash answered no hash");
      return best === knownHash ? null : header(best);
    },
    parent: (child) => header(child.previousHash)
  };
}
var NO_PARENT = "0".repeat(64);
function electrumHeaders(pool) {
  return {
    async tip(knownHash) {
      const tip = pool.tip();
      const header = tip ? headerOf(tip.hex) : null;
      if (!tip || !header) throw new Error("no live headers subscription");
      if (header.hash === knownHash) return null;
      return {
        height: tip.height,
        hash: header.hash,
        previousHash: header.previousblockhash === NO_PARENT ? null : header.previousblockhash,
        time: header.time
      };
    },
    async parent(child) {
      const header = await headerAt(pool, child.height - 1);
      if (!header) throw new Error(`no header at height ${child.height - 1}`);
      if (header.hash !== child.previousHash) throw new Error("the chain moved during the walk");
      return {
        height: child.height - 1,
        hash: header.hash,
        previousHash: header.previousblockhash === NO_PARENT ? null : header.previousblockhash,
        time: header.time
      };
    }
  };
}

// src/events/types.ts
import { randomUUID } from "node:crypto";
function chainEventId() {
  return randomUUID();
}

// src/events/tip-follower.ts
var TipFollower = class {
  constructor(network, source, depthMax) {
    this.network = network;
    this.source = source;
    this.depthMax = depthMax;
  }
  network;
  source;
  depthMax;
  /** height → the best chain's block there, for the last `depthMax` heights seen. */
  known = /* @__PURE__ */ new Map();
  tip = null;
  /** One look at the source: the events since the last look (none on the first). */
  async poll() {
    const head = await this.source.tip(this.tip?.hash ?? null);
    if (!head) return [];
    if (!this.tip) {
      this.remember([head]);
      return [];
    }
    const connected = [];
    const floor = this.tip.height - this.depthMax;
    let cursor = head;
    while (cursor && this.known.get(cursor.height)?.hash !== cursor.hash) {
      connected.push(cursor);
      const previousHash = cursor.previousHash;
      cursor = previousHash !== null && cursor.height - 1 > floor ? await this.source.parent({ ...cursor, previousHash }) : null;
    }
    const forkHeight = cursor ? cursor.height : connected[connected.length - 1].height - 1;
    const disconnected = [...this.known.values()].filter((h) => h.height > forkHeight).sort((a, b) => b.height - a.height);
    connected.reverse();
    for (const h of disconnected) this.known.delete(h.height);
    this.remember(connected);
    if (connected.length === 0) this.tip = head;
    return [
      ...disconnected.map((h) => this.event("disconnected", h)),
      ...connected.map((h) => this.event("connected", h))
    ];
  }
  remember(headers) {
    for (const h of headers) this.known.set(h.height, h);
    this.tip = headers[headers.length - 1] ?? this.tip;
    const below = (this.tip?.height ?? 0) - this.depthMax;
    for (const height of this.known.keys()) if (height <= below) this.known.delete(height);
  }
  event(kind, h) {
    const e = { network: this.network, kind, ...h };
    return { id: chainEventId(), ...e };
  }
};

// src/events/chain-events.ts
var SEEN_MAX = 1e4;
var ChainEvents = class {
  constructor(db, bus, nodes, electrum, config, log, counted = () => {
  }) {
    this.db = db;
    this.bus = bus;
    this.config = config;
    this.log = log;
    this.counted = counted;
    this.local.setMaxListeners(0);
    this.roles.setMaxListeners(0);
    this.electrum = electrum;
    const networks = /* @__PURE__ */ new Set([...nodes.keys(), ...electrum.keys()]);
    this.followers = [...networks].map((network) => {
      const node = nodes.get(network);
      const source = node ? coreHeaders(node) : electrumHeaders(electrum.get(network));
      return new TipFollower(network, source, config.reorgDepthMax);
    });
  }
  db;
  bus;
  config;
  log;
  counted;
  local = new EventEmitter2();
  /** "leading" and "following", as this process gains and loses the lead. */
  roles = new EventEmitter2();
  seen = /* @__PURE__ */ new Set();
  observers = /* @__PURE__ */ new Set();
  followers;
  electrum;
  stopTips = [];
  leadership = null;
  timer = null;
  polling = null;
  closed = false;
  start() {
    this.bus.subscribe((payload) => this.deliver(payload));
    if (this.config.pollMs === 0 || this.followers.length === 0) return;
    this.leadership = this.db.lead(
      "chain-follower",
      (leader) => {
        this.log.info(
          { leader },
          leader ? "following the chains" : "no longer following the chains"
        );
        if (leader) {
          this.schedule(0);
          this.hearTips();
        } else {
          if (this.timer) clearTimeout(this.timer);
          this.deafToTips();
        }
        this.roles.emit(leader ? "leading" : "following");
      },
      this.config.leaderRetryMs
    );
  }
  /**
   * Resolves once this process hears what is published (the bus is subscribed), or after
   * `boundMs`: startup waits for it so that a gateway that answers hears every block from then
   * on, but an unreachable Redis must not hold startup (NOTIFY carries events meanwhile).
   */
  async hearing(boundMs) {
    let timer;
    const bound = new Promise((resolve) => {
      timer = setTimeout(resolve, boundMs);
    });
    await Promise.race([this.bus.ready().catch(() => {
    }), bound]);
    clearTimeout(timer);
  }
  /** Whether this process leads (follows the chains), once its first try at the lead is over. */
  async leading() {
    if (!this.leadership) return false;
    await this.leadership.firstTry;
    return this.leadership.leading();
  }
  /** Resolves when this process leads: at once if it does, else when it takes the lead over. */
  async untilLeading() {
    if (await this.leading()) return;
    await new Promise((resolve) => this.roles.once("leading", () => resolve()));
  }
  /** Calls `fn` with each event of `network` from now on; returns the way to stop. */
  subscribe(network, fn) {
    this.local.on(network, fn);
    return () => this.local.off(network, fn);
  }
  /**
   * Calls `fn` with every network's events, as the gateway's own consumer (webhook dispatch):
   * not a subscriber (not counted in `subscribers`, not ended by `close`'s listeners).
   */
  observe(fn) {
    this.observers.add(fn);
    return () => this.observers.delete(fn);
  }
  /** Subscribers now listening, over all networks (for metrics and tests). */
  subscribers() {
    return this.local.eventNames().reduce((n2, name) => n2 + this.local.listenerCount(name), 0);
  }
  /**
   * One look at every chain now, or at `network`'s (the leader's poll; an Electrum server's new
   * tip; what tests and devnet's `mine` command use to announce a block at once rather than at the
   * next poll). Resolves once the events are published. A process that does not lead does nothing.
   */
  async pollNow(network) {
    if (!this.leadership?.leading()) return;
    while (this.polling) await this.polling;
    this.polling = this.pollOnce(network).finally(() => {
      this.polling = null;
    });
    await this.polling;
  }
  /** Calls `fn` when the gateway stops announcing (its shutdown): what ends subscriptions. */
  onClose(fn) {
    this.roles.once("closed", fn);
    return () => this.roles.off("closed", fn);
  }
  async close() {
    this.closed = true;
    this.roles.emit("closed");
    if (this.timer) clearTimeout(this.timer);
    this.deafToTips();
    await this.leadership?.stop();
    await this.bus.close();
    this.local.removeAllListeners();
  }
  /** One look at `network`'s chain, or at every chain. */
  async pollOnce(network) {
    for (const follower of this.followers) {
      if (network !== void 0 && follower.network !== network) continue;
      let events;
      try {
        events = await follower.poll();
      } catch (err) {
        this.log.warn({ err, network: follower.network }, "following the chain: the node failed");
        continue;
      }
      for (const event of events) {
        if (this.closed) return;
        await this.bus.publish(JSON.stringify(event));
      }
    }
  }
  /** The leader looks at once when an Electrum server announces a new tip. */
  hearTips() {
    for (const [network, pool] of this.electrum) {
      this.stopTips.push(
        pool.onTip(() => {
          this.pollNow(network).catch(
            (err) => this.log.warn({ err }, "announcing the tip")
          );
        })
      );
    }
  }
  deafToTips() {
    for (const stop of this.stopTips.splice(0)) stop();
  }
  schedule(delayMs) {
    if (this.closed) return;
    this.timer = setTimeout(() => {
      void this.pollNow().finally(() => {
        if (this.leadership?.leading()) this.schedule(this.config.pollMs);
      });
    }, delayMs);
    this.timer.unref();
  }
  deliver(payload) {
    let event;
    try {
      event = JSON.parse(payload);
    } catch {
      return;
    }
    if (this.seen.has(event.id)) return;
    this.seen.add(event.id);
    if (this.seen.size > SEEN_MAX) this.seen.delete(this.seen.values().next().value);
    this.counted(event);
    for (const fn of this.observers) fn(event);
    this.local.emit(event.network, event);
  }
};

// src/events/redis-bus.ts
import { EventEmitter as EventEmitter3 } from "node:events";
import { Redis as Redis2 } from "ioredis";
var RedisBus = class {
  constructor(opts, fallback, log) {
    this.opts = opts;
    this.fallback = fallback;
    this.log = log;
    this.local.setMaxListeners(0);
    const common = {
      connectTimeout: 1e3,
      // Reconnect forever, backing off to 2 s: Redis may come back at any time.
      retryStrategy: (times) => Math.min(times * 100, 2e3)
    };
    this.sub = new Redis2(opts.url, {
      ...common,
      autoResubscribe: true,
      maxRetriesPerRequest: null
    });
    this.pub = new Redis2(opts.url, {
      ...common,
      commandTimeout: opts.timeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0
    });
    const failed = (err) => {
      if (!this.warned) {
        log.warn({ err: err.message }, "chain events: Redis unreachable, NOTIFY carries them");
      }
      this.warned = true;
    };
    this.sub.on("error", failed);
    this.pub.on("error", failed);
    this.pub.on("ready", () => {
      this.warned = false;
    });
    this.sub.on("message", (channel, payload) => {
      if (channel === opts.channel) this.local.emit("payload", payload);
    });
    this.listening = new Promise((resolve, reject) => {
      this.sub.once("ready", () => this.sub.subscribe(opts.channel).then(resolve, reject));
    });
    this.listening.catch(failed);
  }
  opts;
  fallback;
  log;
  /** Subscriber mode takes a connection to itself; PUBLISH goes on another. */
  sub;
  pub;
  local = new EventEmitter3();
  warned = false;
  listening;
  async publish(payload) {
    this.local.emit("payload", payload);
    try {
      await this.pub.publish(this.opts.channel, payload);
    } catch (err) {
      this.log.warn(
        { err: err instanceof Error ? err.message : String(err) },
        "chain event: Redis refused it, published through NOTIFY"
      );
      await this.fallback.publish(payload);
    }
  }
  subscribe(fn) {
    this.local.on("payload", fn);
    this.fallback.subscribe(fn);
  }
  /**
   * Subscribed, and the publishing connection up (until then events go through NOTIFY); rejects
   * at the first connection error, so that startup does not wait on a Redis that is down.
   */
  async ready() {
    const up = (async () => {
      await this.listening;
      if (this.pub.status !== "ready") await new Promise((r) => this.pub.once("ready", r));
    })();
    const down = new Promise((_, reject) => {
      this.sub.once("error", reject);
      this.pub.once("error", reject);
    });
    down.catch(() => {
    });
    await Promise.race([up, down]);
  }
  async close() {
    this.local.removeAllListeners();
    this.sub.disconnect();
    this.pub.disconnect();
    await this.fallback.close();
  }
};

// src/limits/auth-throttle.ts
var AuthThrottle = class {
  constructor(opts) {
    this.opts = opts;
    this.addresses = new LruMap(opts.addressesMax ?? 1e5);
  }
  opts;
  addresses;
  get enabled() {
    return this.opts.baseMs > 0;
  }
  /** Before authenticating: whether the address is locked out, and until when. */
  verdict(address, now = Date.now()) {
    const entry = this.current(address, now);
    if (!entry || entry.failures < this.opts.free + this.delaySteps()) return { locked: false };
    return { locked: true, retryAfterMs: entry.since + this.opts.windowMs - now };
  }
  /** After a failed authentication: how long to wait before answering it. */
  failed(address, now = Date.now()) {
    if (!this.enabled) return 0;
    const entry = this.current(address, now) ?? { failures: 0, since: now };
    entry.failures += 1;
    this.addresses.set(address, entry);
    const k = entry.failures - this.opts.free;
    if (k <= 0) return 0;
    return Math.min(this.opts.baseMs * 2 ** (k - 1), this.opts.maxMs);
  }
  /** Delays from baseMs doubling up to maxMs: how many failures are delayed before a lock-out. */
  delaySteps() {
    const { baseMs, maxMs } = this.opts;
    if (baseMs <= 0) return Number.POSITIVE_INFINITY;
    return Math.max(1, Math.floor(Math.log2(Math.max(maxMs, baseMs) / baseMs)) + 1);
  }
  current(address, now) {
    const entry = this.addresses.get(address);
    if (!entry) return void 0;
    if (now - entry.since >= this.opts.windowMs) {
      this.addresses.delete(address);
      return void 0;
    }
    return entry;
  }
};

// src/limits/limits.ts
import { Redis as Redis3 } from "ioredis";

// src/limits/concurrency.ts
import { randomUUID as randomUUID2 } from "node:crypto";

// src/util/in-flight-map.ts
var RENEW_AFTER = 1024;
var InFlightMap = class {
  map = /* @__PURE__ */ new Map();
  deletions = 0;
  get size() {
    return this.map.size;
  }
  get(key) {
    return this.map.get(key);
  }
  has(key) {
    return this.map.has(key);
  }
  set(key, value) {
    this.map.set(key, value);
    return this;
  }
  delete(key) {
    if (!this.map.delete(key)) return false;
    this.deletions += 1;
    if (this.map.size === 0) {
      this.map = /* @__PURE__ */ new Map();
      this.deletions = 0;
    } else if (this.deletions >= RENEW_AFTER) {
      this.map = new Map(this.map);
      this.deletions = 0;
    }
    return true;
  }
  keys() {
    return this.map.keys();
  }
  values() {
    return this.map.values();
  }
  entries() {
    return this.map.entries();
  }
  [Symbol.iterator]() {
    return this.map.entries();
  }
};

// src/limits/concurrency.ts
var MemorySlots = class {
  counts = new InFlightMap();
  async acquire(key, max) {
    const n2 = this.counts.get(key) ?? 0;
    if (n2 >= max) return null;
    this.counts.set(key, n2 + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const left = (this.counts.get(key) ?? 1) - 1;
      if (left <= 0) this.counts.delete(key);
      else this.counts.set(key, left);
    };
    return { inFlight: n2 + 1, release };
  }
};
var ACQUIRE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local n = redis.call('ZCARD', KEYS[1])
if n >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return n + 1`;
var RedisSlots = class {
  constructor(redis, prefix, leaseMs, fallback = new MemorySlots()) {
    this.redis = redis;
    this.prefix = prefix;
    this.leaseMs = leaseMs;
    this.fallback = fallback;
  }
  redis;
  prefix;
  leaseMs;
  fallback;
  async acquire(key, max) {
    const redisKey = `${this.prefix}slots:${key}`;
    const member = randomUUID2();
    const now = Date.now();
    let taken;
    try {
      if (this.redis.status !== "ready") throw new Error("redis not ready");
      taken = await this.redis.eval(
        ACQUIRE,
        1,
        redisKey,
        now,
        now + this.leaseMs,
        max,
        member,
        this.leaseMs
      );
    } catch {
      return this.fallback.acquire(key, max);
    }
    if (typeof taken !== "number" || taken < 1) return null;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.redis.zrem(redisKey, member).catch(() => {
      });
    };
    return { inFlight: taken, release };
  }
};

// src/limits/headers.ts
function rateLimitHeaders(states) {
  if (states.length === 0) return {};
  const policy = states.map(
    (s) => `${s.name};q=${s.quota}${s.windowSeconds === void 0 ? "" : `;w=${s.windowSeconds}`}${s.unit && s.unit !== "requests" ? `;qu="${s.unit}"` : ""}`
  ).join(", ");
  let lowest = states[0];
  for (const s of states) {
    if (s.remaining < lowest.remaining) lowest = s;
    else if (s.remaining === lowest.remaining && s.resetSeconds > lowest.resetSeconds) lowest = s;
  }
  return {
    "ratelimit-policy": policy,
    ratelimit: `${lowest.name};r=${Math.max(0, lowest.remaining)};t=${Math.max(0, lowest.resetSeconds)}`
  };
}

// src/limits/plans.ts
function planOf(config, accountPlan) {
  if (accountPlan !== null) {
    const plan3 = config.plans[accountPlan];
    if (plan3) return { name: accountPlan, plan: plan3 };
  }
  const fallback = config.limits.defaultPlan;
  if (fallback === null) return null;
  const plan2 = config.plans[fallback];
  return plan2 ? { name: fallback, plan: plan2 } : null;
}
function plansInForce(config) {
  return Object.keys(config.plans).length > 0;
}

// src/limits/request-rates.ts
import { RateLimiterRes } from "rate-limiter-flexible";
var RequestRate = class {
  constructor(store, scope, rule, burstWindowSeconds, keyPrefix) {
    this.scope = scope;
    this.rule = rule;
    this.burstWindowSeconds = burstWindowSeconds;
    this.rate = store.limiter({
      keyPrefix: `${keyPrefix}:rate`,
      points: rule.requestsPerSecond,
      duration: 1
    });
    this.reserve = rule.burst > 0 ? store.limiter({
      keyPrefix: `${keyPrefix}:burst`,
      points: rule.burst,
      duration: burstWindowSeconds
    }) : null;
  }
  scope;
  rule;
  burstWindowSeconds;
  rate;
  reserve;
  async take(key) {
    const [rate, reserve2] = await Promise.all([
      settle(this.rate.consume(key)),
      this.reserve ? this.reserve.get(key) : Promise.resolve(null)
    ]);
    const states = [
      {
        name: this.scope,
        quota: this.rule.requestsPerSecond,
        windowSeconds: 1,
        remaining: rate.res.remainingPoints,
        resetSeconds: Math.ceil(rate.res.msBeforeNext / 1e3)
      }
    ];
    if (rate.ok) {
      if (this.reserve) states.push(this.reserveState(reserve2));
      return { ok: true, states, retryAfterMs: 0 };
    }
    if (!this.reserve) return { ok: false, states, retryAfterMs: rate.res.msBeforeNext };
    const burst = await settle(this.reserve.consume(key));
    states.push(this.reserveState(burst.res));
    return burst.ok ? { ok: true, states, retryAfterMs: 0 } : (
      // The rate's next window comes first, whatever is left of the burst window.
      {
        ok: false,
        states,
        retryAfterMs: Math.min(rate.res.msBeforeNext, burst.res.msBeforeNext)
      }
    );
  }
  reserveState(res) {
    return {
      name: `${this.scope}-burst`,
      quota: this.rule.burst,
      windowSeconds: this.burstWindowSeconds,
      remaining: res ? res.remainingPoints : this.rule.burst,
      resetSeconds: res ? Math.ceil(res.msBeforeNext / 1e3) : 0
    };
  }
};
async function settle(p) {
  try {
    return { ok: true, res: await p };
  } catch (err) {
    if (err instanceof RateLimiterRes) return { ok: false, res: err };
    throw err;
  }
}

// src/limits/spending-caps.ts
import { RateLimiterRes as RateLimiterRes2 } from "rate-limiter-flexible";
var SpendingCaps = class {
  constructor(store, spentSince) {
    this.store = store;
    this.spentSince = spentSince;
  }
  store;
  spentSince;
  limiters = /* @__PURE__ */ new Map();
  /** Counters known to exist, until when: their start from the ledger is not read again. */
  started = new LruMap(1e4);
  async spend(accountId, windows, amount) {
    if (amount <= 0) return { ok: true };
    const outcomes = await Promise.allSettled(
      windows.map(async (w2) => {
        const { limiter, key } = await this.counter(accountId, w2);
        return limiter.consume(key, amount, { customDuration: secondsLeft(w2) });
      })
    );
    const refused2 = outcomes.findIndex((o) => o.status === "rejected");
    if (refused2 < 0) return { ok: true };
    await this.refund(accountId, windows, amount);
    const reason = outcomes[refused2].reason;
    if (!(reason instanceof RateLimiterRes2)) throw reason;
    const w = windows[refused2];
    return {
      ok: false,
      window: w,
      spent: Math.max(0, reason.consumedPoints - amount),
      retryAfterMs: Math.max(0, w.end.getTime() - Date.now())
    };
  }
  /** What a call was estimated at but did not cost goes back to its windows. */
  async refund(accountId, windows, amount) {
    if (amount <= 0) return;
    await Promise.all(
      windows.map(async (w) => {
        const { limiter, key } = await this.counter(accountId, w);
        await limiter.reward(key, amount);
      })
    );
  }
  async counter(accountId, w) {
    const name = `${w.kind}:${w.cap}`;
    let limiter = this.limiters.get(name);
    if (!limiter) {
      limiter = this.store.limiter({ keyPrefix: `cap:${name}`, points: w.cap, duration: 86400 });
      this.limiters.set(name, limiter);
    }
    const key = `${accountId}:${w.start.getTime()}`;
    const known = `${name}:${key}`;
    const now = Date.now();
    if ((this.started.get(known) ?? 0) <= now) {
      const res = await limiter.get(key);
      if (res === null) {
        const spent = await this.spentSince(accountId, w.start);
        await limiter.set(key, spent, secondsLeft(w));
        this.started.set(known, now + secondsLeft(w) * 1e3);
      } else {
        this.started.set(known, now + res.msBeforeNext);
      }
    }
    return { limiter, key };
  }
};
var COUNTER_SECONDS_MAX = 20 * 86400;
function secondsLeft(w) {
  const left = Math.ceil((w.end.getTime() - Date.now()) / 1e3);
  return Math.max(1, Math.min(left, COUNTER_SECONDS_MAX));
}
var DAY_MS = 864e5;
function dayWindow(at, cap) {
  const start = new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
  return { kind: "day", cap, start, end: new Date(start.getTime() + DAY_MS) };
}

// src/limits/stores.ts
import {
  RateLimiterMemory,
  RateLimiterRedis
} from "rate-limiter-flexible";
var memoryStore = {
  kind: "memory",
  limiter: (shape) => new RateLimiterMemory(shape)
};
function redisStore(client, prefix) {
  return {
    kind: "redis",
    limiter: (shape) => new RateLimiterRedis({
      ...shape,
      keyPrefix: `${prefix}${shape.keyPrefix}`,
      storeClient: client,
      rejectIfRedisNotReady: true,
      insuranceLimiter: new RateLimiterMemory(shape)
    })
  };
}

// src/limits/limits.ts
var ADMITTED = { ok: true, headers: {}, release: null };
var TERMS_TTL_MS = 6e4;
var Limits = class _Limits {
  constructor(config, db, store, slots, redis) {
    this.config = config;
    this.db = db;
    this.store = store;
    this.slots = slots;
    this.redis = redis;
    this.inForce = plansInForce(config);
    this.caps = new SpendingCaps(store, async (accountId, since) => {
      const { rows } = await db.query(
        "SELECT coalesce(sum(charged_cc), 0)::text AS spent FROM audit_records WHERE account_id = $1 AND at >= $2",
        [accountId, since]
      );
      return Number(rows[0]?.spent ?? 0);
    });
    db.listen("account_changed", (payload) => this.terms.delete(Number(payload)));
  }
  config;
  db;
  store;
  slots;
  redis;
  rates = /* @__PURE__ */ new Map();
  terms = new LruMap(1e4);
  caps;
  inForce;
  static create(config, db, log, redisUrl) {
    if (!redisUrl || !plansInForce(config)) {
      return new _Limits(config, db, memoryStore, new MemorySlots(), null);
    }
    const redis = new Redis3(redisUrl, {
      commandTimeout: config.limits.redisTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: (times) => Math.min(times * 100, 2e3)
    });
    let warned = false;
    redis.on("error", (err) => {
      if (!warned)
        log.warn({ err: err.message }, "rate limits: Redis unreachable, limits held per process");
      warned = true;
    });
    redis.on("ready", () => {
      warned = false;
    });
    const leaseMs = config.server.requestTimeoutMs + 5e3;
    return new _Limits(
      config,
      db,
      redisStore(redis, config.limits.redisKeyPrefix),
      new RedisSlots(redis, config.limits.redisKeyPrefix, leaseMs),
      redis
    );
  }
  /** Request rates and calls in flight, before anything of the request is read or priced. */
  async admit(owner) {
    if (!this.inForce) return ADMITTED;
    const chosen = planOf(this.config, (await this.termsOf(owner.accountId)).plan);
    if (!chosen) return ADMITTED;
    const { name, plan: plan2 } = chosen;
    const states = [];
    const scopes = [
      ["token", plan2.token, owner.tokenId],
      ["account", plan2.account, owner.accountId]
    ].flatMap(([scope, rule, key]) => rule ? [{ scope, rule, key }] : []);
    const verdicts = await Promise.all(
      scopes.map(({ scope, rule, key }) => this.rate(name, scope, rule).take(String(key)))
    );
    for (const v of verdicts) states.push(...v.states);
    const refusedAt = verdicts.findIndex((v) => !v.ok);
    if (refusedAt >= 0) {
      const { scope, rule } = scopes[refusedAt];
      return this.refused(
        states,
        verdicts[refusedAt].retryAfterMs,
        `rate limit of plan "${name}": ${rule.requestsPerSecond} requests per second per ${scope}, burst ${rule.burst}`
      );
    }
    if (plan2.concurrentCalls === void 0) {
      return { ok: true, headers: rateLimitHeaders(states), release: null };
    }
    const slot = await this.slots.acquire(String(owner.accountId), plan2.concurrentCalls);
    const inFlight = slot ? slot.inFlight : plan2.concurrentCalls;
    states.push({
      name: "concurrency",
      quota: plan2.concurrentCalls,
      unit: "concurrent-requests",
      remaining: plan2.concurrentCalls - inFlight,
      resetSeconds: 0
    });
    if (!slot) {
      return this.refused(
        states,
        1e3,
        `plan "${name}" allows ${plan2.concurrentCalls} calls in flight per account`
      );
    }
    return { ok: true, headers: rateLimitHeaders(states), release: slot.release };
  }
  /**
   * Takes a request's estimate from the account's spending caps before it is reserved: null when
   * within them, else the refusal. What the request did not cost is given back by `refund`.
   */
  async spend(owner, estimate) {
    if (!this.inForce || estimate <= 0) return null;
    const windows = await this.windowsOf(owner.accountId);
    if (windows.length === 0) return null;
    const verdict = await this.caps.spend(owner.accountId, windows, estimate);
    if (verdict.ok) return null;
    const { window } = verdict;
    const per = window.kind === "day" ? "per day (UTC)" : "per billing cycle";
    return {
      error: gatewayError(
        "CREDIT_CAP_REACHED",
        `Credit cap reached: ${window.cap} CC ${per}, ${verdict.spent} CC spent, ${estimate} CC required`,
        {
          data: { cap: window.cap, spent: verdict.spent, required: estimate, window: window.kind }
        }
      ),
      retryAfterSeconds: Math.ceil(verdict.retryAfterMs / 1e3)
    };
  }
  async refund(owner, amount) {
    if (!this.inForce || amount <= 0) return;
    const windows = await this.windowsOf(owner.accountId);
    await this.caps.refund(owner.accountId, windows, amount);
  }
  async close() {
    this.redis?.disconnect();
  }
  refused(states, retryAfterMs, message) {
    const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1e3));
    return {
      ok: false,
      headers: { ...rateLimitHeaders(states), "retry-after": String(retryAfterSeconds) },
      error: gatewayError("RATE_LIMITED", message, { data: { retryAfter: retryAfterSeconds } }),
      retryAfterSeconds
    };
  }
  rate(plan2, scope, rule) {
    const name = `${plan2}:${scope}`;
    let rate = this.rates.get(name);
    if (!rate) {
      rate = new RequestRate(this.store, scope, rule, this.config.limits.burstWindowSeconds, name);
      this.rates.set(name, rate);
    }
    return rate;
  }
  async windowsOf(accountId) {
    const terms = await this.termsOf(accountId);
    const plan2 = planOf(this.config, terms.plan)?.plan;
    const windows = [];
    if (!plan2) return windows;
    const now = /* @__PURE__ */ new Date();
    if (plan2.creditsPerDay !== void 0) windows.push(dayWindow(now, plan2.creditsPerDay));
    if (plan2.creditsPerCycle !== void 0) {
      const cycle = cycleContaining(terms.createdAt, now, this.config.billing.cycle);
      windows.push({
        kind: "cycle",
        cap: plan2.creditsPerCycle,
        start: cycle.start,
        end: cycle.end
      });
    }
    return windows;
  }
  async termsOf(accountId) {
    const now = Date.now();
    const known = this.terms.get(accountId);
    if (known && known.until > now && this.db.listening()) return known;
    const { rows } = await this.db.query(
      "SELECT plan, created_at FROM accounts WHERE id = $1",
      [accountId]
    );
    const terms = { plan: rows[0]?.plan ?? null, createdAt: rows[0]?.created_at ?? /* @__PURE__ */ new Date(0) };
    this.terms.set(accountId, { ...terms, until: now + TERMS_TTL_MS });
    return terms;
  }
};

// src/log/logger.ts
import { pino } from "pino";
function createLogger(level, destination) {
  return pino(
    {
      level,
      base: { service: "blockgate" },
      redact: {
        paths: [
          "token",
          "*.token",
          "authorization",
          "*.authorization",
          "headers.authorization",
          "url",
          "*.url"
        ],
        censor: "[redacted]"
      }
    },
    destination
  );
}

// src/log/metrics.ts
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
var BREAKER_VALUE = { closed: 0, "half-open": 1, open: 2 };
var Metrics = class {
  registry = new Registry();
  requests = new Counter({
    name: "blockgate_http_requests_total",
    help: "HTTP requests answered, by route kind and status.",
    labelNames: ["route", "network", "status"],
    registers: [this.registry]
  });
  latency = new Histogram({
    name: "blockgate_http_request_duration_seconds",
    help: "Time to answer, by route kind.",
    labelNames: ["route"],
    buckets: [5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry]
  });
  credits = new Counter({
    name: "blockgate_credits_charged_total",
    help: "Credits (CC) charged, by route kind and network.",
    labelNames: ["route", "network"],
    registers: [this.registry]
  });
  connectionsRefused = new Counter({
    name: "blockgate_connections_refused_total",
    help: "Connections answered 429 and closed: their address had server.connectionsPerAddressMax open.",
    registers: [this.registry]
  });
  authFailures = new Counter({
    name: "blockgate_auth_failures_total",
    help: "Requests refused for a missing, unknown or revoked token, by route kind.",
    labelNames: ["route"],
    registers: [this.registry]
  });
  chainEvents = new Counter({
    name: "blockgate_chain_events_total",
    help: "Chain events this process heard (blocks connected, and disconnected by reorganisations), by network and kind.",
    labelNames: ["network", "kind"],
    registers: [this.registry]
  });
  webhookAttempts = new Counter({
    name: "blockgate_webhook_attempts_total",
    help: "Webhook delivery attempts this process made, by result (delivered, retry, failed, refused).",
    labelNames: ["result"],
    registers: [this.registry]
  });
  webhookLatency = new Histogram({
    name: "blockgate_webhook_attempt_seconds",
    help: "How long webhook endpoints took to answer an attempt (sent attempts only).",
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry]
  });
  rateLimited = new Counter({
    name: "blockgate_rate_limited_total",
    help: "Requests refused 429 RATE_LIMITED by their plan's request rate or calls in flight, by route kind.",
    labelNames: ["route"],
    registers: [this.registry]
  });
  outOfScope = new Counter({
    name: "blockgate_out_of_scope_total",
    help: "Requests refused 403 for using a token outside its scope, by route kind and scope.",
    labelNames: ["route", "scope"],
    registers: [this.registry]
  });
  creditCapped = new Counter({
    name: "blockgate_credit_capped_total",
    help: "Requests refused 429 CREDIT_CAP_REACHED by their plan's credit cap per day or cycle, by route kind.",
    labelNames: ["route"],
    registers: [this.registry]
  });
  ledgerFailures = new Counter({
    name: "blockgate_ledger_failures_total",
    help: "Ledger operations that failed (the request got a 500 and was not answered with data).",
    registers: [this.registry]
  });
  upstreamLatency = new Histogram({
    name: "blockgate_upstream_request_duration_seconds",
    help: "Upstream attempts, by backend, network, upstream and outcome (ok, failed, timeout, outpaced: abandoned for a later attempt that answered first, cancelled: abandoned otherwise).",
    labelNames: ["backend", "network", "upstream", "outcome"],
    buckets: [1e-3, 5e-3, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry]
  });
  upstreamUp = new Gauge({
    name: "blockgate_upstream_up",
    help: "1 when the upstream's last round trip succeeded, 0 when it failed.",
    labelNames: ["backend", "network", "upstream"],
    registers: [this.registry]
  });
  upstreamBreaker = new Gauge({
    name: "blockgate_upstream_breaker_state",
    help: "The upstream's circuit breaker: 0 closed, 1 half-open (one trial call may pass), 2 open (passed over).",
    labelNames: ["backend", "network", "upstream"],
    registers: [this.registry]
  });
  upstreamBreakerOpens = new Counter({
    name: "blockgate_upstream_breaker_opens_total",
    help: "Times the upstream's circuit breaker opened.",
    labelNames: ["backend", "network", "upstream"],
    registers: [this.registry]
  });
  upstreamRetries = new Counter({
    name: "blockgate_upstream_retries_total",
    help: "Attempts sent to this upstream after another upstream failed or timed out on the same call.",
    labelNames: ["backend", "network", "upstream"],
    registers: [this.registry]
  });
  upstreamHedges = new Counter({
    name: "blockgate_upstream_hedges_total",
    help: "Attempts sent to this upstream because another was slow to answer the same read (hedging).",
    labelNames: ["backend", "network", "upstream"],
    registers: [this.registry]
  });
  coalescedRequests = new Histogram({
    name: "blockgate_node_coalesced_requests",
    help: "Requests whose calls went to the full node as one combined JSON-RPC batch, per batch.",
    labelNames: ["network"],
    buckets: [2, 4, 8, 16, 32, 64, 128],
    registers: [this.registry]
  });
  coalescedCalls = new Histogram({
    name: "blockgate_node_coalesced_calls",
    help: "Calls in each JSON-RPC batch that combined several requests to the full node.",
    labelNames: ["network"],
    buckets: [2, 4, 8, 16, 32, 64, 128, 256, 512, 1e3],
    registers: [this.registry]
  });
  sharedTrips = new Counter({
    name: "blockgate_upstream_shared_total",
    help: "Upstream calls not sent because an identical one was in flight (its answer shared).",
    labelNames: ["backend", "network"],
    registers: [this.registry]
  });
  cacheLookups = new Counter({
    name: "blockgate_cache_lookups_total",
    help: "Response cache look-ups, by network, tier (memory, redis) and result (hit, miss, error).",
    labelNames: ["network", "tier", "result"],
    registers: [this.registry]
  });
  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: "blockgate_" });
  }
  /** What one pool of upstreams reports: attempts, retries, hedges, breaker states. */
  pool(backend, network) {
    return {
      attempt: (upstream, outcome, seconds) => {
        this.upstreamLatency.observe({ backend, network, upstream, outcome }, seconds);
        if (outcome !== "cancelled" && outcome !== "outpaced") {
          this.upstreamUp.set({ backend, network, upstream }, outcome === "ok" ? 1 : 0);
        }
      },
      retried: (upstream) => this.upstreamRetries.inc({ backend, network, upstream }),
      hedged: (upstream) => this.upstreamHedges.inc({ backend, network, upstream }),
      breaker: (upstream, state) => {
        this.upstreamBreaker.set({ backend, network, upstream }, BREAKER_VALUE[state]);
        if (state === "open") this.upstreamBreakerOpens.inc({ backend, network, upstream });
      }
    };
  }
  /** A caller that joined an identical upstream request in flight. */
  shared(backend, network) {
    this.sharedTrips.inc({ backend, network });
  }
  /** One JSON-RPC batch to a full node that combined `requests` requests' `calls` calls. */
  coalesced(network, requests, calls) {
    this.coalescedRequests.observe({ network }, requests);
    this.coalescedCalls.observe({ network }, calls);
  }
};

// src/metering/auth-failures.ts
import { randomUUID as randomUUID3 } from "node:crypto";
var REFUSALS = {
  unauthenticated: {
    method: "(unauthenticated)",
    outcome: "unauthenticated",
    errorCode: "UNAUTHENTICATED",
    httpStatus: 401
  },
  // An address locked out after too many failures: refused 429 before its token is looked up.
  auth_locked: {
    method: "(unauthenticated)",
    outcome: "unauthenticated",
    errorCode: "RATE_LIMITED",
    httpStatus: 429
  },
  rate_limited: {
    method: "(rate limited)",
    outcome: "rate_limited",
    errorCode: "RATE_LIMITED",
    httpStatus: 429
  },
  // Outside the token's scope; the record's code names which (SCOPE_ORIGIN, …).
  forbidden: {
    method: "(out of scope)",
    outcome: "forbidden",
    errorCode: "SCOPE_BACKEND",
    httpStatus: 403
  }
};
var AuthFailures = class {
  constructor(db, onError, bucketsMax = 1e4) {
    this.db = db;
    this.onError = onError;
    this.bucketsMax = bucketsMax;
  }
  db;
  onError;
  bucketsMax;
  buckets = /* @__PURE__ */ new Map();
  timer = null;
  start() {
    this.timer = setInterval(() => void this.flush(false), 5e3);
    this.timer.unref();
  }
  record(f) {
    const minute = Math.floor(Date.now() / 6e4);
    const key = [
      minute,
      f.refusal ?? "unauthenticated",
      f.errorCode ?? "",
      f.source,
      f.backendSegment,
      f.network,
      f.tokenId ?? ""
    ].join("\0");
    const bucket = this.buckets.get(key);
    if (bucket) {
      bucket.calls += 1;
      return;
    }
    this.buckets.set(key, { ...f, minute, calls: 1 });
    if (this.buckets.size > this.bucketsMax) void this.flush(false, this.buckets.size / 2);
  }
  /** Writes the buckets of minutes that are over (all of them with `all`, or the `oldest` n). */
  async flush(all, oldest = 0) {
    const now = Math.floor(Date.now() / 6e4);
    let early = oldest;
    const due = [];
    for (const [key, b] of this.buckets) {
      if (all || b.minute < now || early-- > 0) {
        due.push(b);
        this.buckets.delete(key);
      }
    }
    for (const b of due) {
      const refusal2 = b.refusal ?? "unauthenticated";
      await insertAudit(this.db, {
        requestId: randomUUID3(),
        accountId: b.accountId,
        tokenId: b.tokenId,
        backend: b.backendSegment,
        network: b.network,
        method: REFUSALS[refusal2].method,
        outcome: REFUSALS[refusal2].outcome,
        errorCode: b.errorCode ?? REFUSALS[refusal2].errorCode,
        source: b.source,
        httpStatus: REFUSALS[refusal2].httpStatus,
        estimatedCc: 0,
        chargedCc: 0,
        calls: b.calls
      }).catch(this.onError);
    }
  }
  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush(true);
  }
};

// src/ledger/leases.ts
async function takeLease(db, accountId, amount, keep, processId) {
  try {
    const { rows } = await db.query(
      `WITH taken AS (
         UPDATE accounts SET leased = leased + $2
         WHERE id = $1 AND balance - held - leased >= $2::int8 + $3::int8
         RETURNING balance - held AS available
       ), lease AS (
         INSERT INTO ledger_entries(account_id, kind, amount, process_id)
         SELECT $1, 'lease', -($2::int8), $4 FROM taken RETURNING id
       )
       SELECT (SELECT id FROM lease) AS lease_id, (SELECT available FROM taken) AS available`,
      [accountId, amount, keep, processId]
    );
    const row = rows[0];
    if (!row || row.lease_id === null || row.available === null) return null;
    return { lease: { id: Number(row.lease_id), accountId, amount }, available: row.available };
  } catch (err) {
    throw new LedgerError("lease", err);
  }
}
async function returnLease(db, leaseId) {
  const { rows } = await db.query(
    `${RETURN_LEASES}
     SELECT (SELECT available FROM acc LIMIT 1) AS available`,
    [[leaseId]]
  );
  return rows[0]?.available ?? null;
}
var RETURN_LEASES = `WITH open AS (
     SELECT e.id, e.account_id, e.kind, -e.amount AS size,
       COALESCE((SELECT -sum(c.amount) FROM ledger_entries c
                 WHERE c.kind = 'charge' AND c.hold_id = e.id), 0) AS used
     FROM ledger_entries e
     WHERE e.id = ANY($1::int8[]) AND e.kind IN ('lease', 'hold')
       AND NOT EXISTS (SELECT 1 FROM ledger_entries x
                       WHERE x.hold_id = e.id AND x.kind IN ('lease_return', 'release'))
   ), closed AS (
     INSERT INTO ledger_entries(account_id, kind, amount, hold_id)
     SELECT account_id, CASE kind WHEN 'lease' THEN 'lease_return' ELSE 'release' END,
       CASE kind WHEN 'lease' THEN size - used ELSE size END, id
     FROM open RETURNING account_id, kind, amount
   ), acc AS (
     UPDATE accounts a SET held = a.held - s.released, leased = a.leased - s.returned
     FROM (SELECT account_id,
             sum(CASE kind WHEN 'release' THEN amount ELSE 0 END) AS released,
             sum(CASE kind WHEN 'lease_return' THEN amount ELSE 0 END) AS returned
           FROM closed GROUP BY account_id) s
     WHERE a.id = s.account_id
     RETURNING a.id, a.balance - a.held AS available
   )`;
async function registerProcess(db, processId, instance) {
  return db.transaction(async (tx) => {
    const { rows: dead } = await tx.query(
      `UPDATE gateway_processes SET stopped_at = now()
       WHERE instance = $1 AND stopped_at IS NULL RETURNING id`,
      [instance]
    );
    const voided = await voidOpenOf(
      tx,
      dead.map((d) => d.id)
    );
    await tx.query("INSERT INTO gateway_processes(id, instance) VALUES ($1, $2)", [
      processId,
      instance
    ]);
    return { voided };
  });
}
async function heartbeat(db, processId) {
  const { rows } = await db.query(
    `UPDATE gateway_processes SET heartbeat_at = now()
     WHERE id = $1 AND stopped_at IS NULL RETURNING id`,
    [processId]
  );
  return rows.length > 0;
}
async function unregisterProcess(db, processId) {
  await db.query("UPDATE gateway_processes SET stopped_at = now() WHERE id = $1", [processId]);
}
async function sweepDeadProcesses(db, ttlMs) {
  return db.transaction(async (tx) => {
    const { rows: dead } = await tx.query(
      `UPDATE gateway_processes SET stopped_at = now()
       WHERE stopped_at IS NULL
         AND heartbeat_at < now() - make_interval(secs => $1::double precision / 1000)
       RETURNING id`,
      [ttlMs]
    );
    return voidOpenOf(
      tx,
      dead.map((d) => d.id)
    );
  });
}
async function voidOpenOf(tx, processIds) {
  if (processIds.length === 0) return 0;
  const { rows: open } = await tx.query(
    `SELECT e.id FROM ledger_entries e
     WHERE e.kind IN ('lease', 'hold') AND e.process_id = ANY($1::text[])
       AND NOT EXISTS (SELECT 1 FROM ledger_entries x
                       WHERE x.hold_id = e.id AND x.kind IN ('lease_return', 'release'))`,
    [processIds]
  );
  if (open.length === 0) return 0;
  await tx.query(`${RETURN_LEASES} SELECT 1`, [open.map((o) => Number(o.id))]);
  return open.length;
}

// src/metering/credits.ts
var RECALL_COOLDOWN_MS = 5e3;
var RECALL_WAIT_MS = 250;
var RATE_HALF_LIFE_MS = 1e3;
var LEASE_RETRY_MS = 1e3;
var Credits = class {
  constructor(db, log, opts) {
    this.db = db;
    this.log = log;
    this.opts = opts;
    this.queue = new SettleQueue(db, {
      batchRowsMax: opts.batchRowsMax,
      pendingRowsMax: opts.pendingRowsMax,
      gatherMaxUs: opts.settleGatherUs ?? 0
    });
    db.listen("lease_recall", (payload) => this.recalled(Number(payload)));
  }
  db;
  log;
  opts;
  queue;
  accounts = /* @__PURE__ */ new Map();
  timer = null;
  alive = true;
  /** Set by stop() while it waits for the last retiring lease to be given back. */
  allReturned = null;
  stopped = false;
  /** Registers the process (voiding a dead predecessor's leases) and starts the heartbeat. */
  async start() {
    const out = await registerProcess(this.db, this.opts.processId, this.opts.instance);
    const every = Math.max(50, Math.floor(this.opts.ttlMs / 4));
    this.timer = setInterval(() => {
      this.tick().catch((err) => this.log.warn({ err }, "credit lease upkeep failed"));
    }, every);
    this.timer.unref();
    return out;
  }
  /** Heartbeat, the sweep of dead processes, and giving back idle or old leases. */
  async tick() {
    this.alive = await heartbeat(this.db, this.opts.processId);
    if (!this.alive) {
      this.log.error("this process was declared dead: its credit leases are void");
      for (const acct of this.accounts.values()) acct.current = null;
    }
    await sweepDeadProcesses(this.db, this.opts.ttlMs);
    const now = Date.now();
    for (const acct of this.accounts.values()) {
      const l = acct.current;
      if (l && (now - l.lastUse >= this.opts.leaseIdleMs || now - l.takenAt >= this.opts.ttlMs / 2)) {
        this.retire(acct, l);
      }
    }
  }
  /** Reserves `amount` CC for one request of `accountId`. */
  async reserve(accountId, amount) {
    if (this.opts.leaseMinCalls === 0) return this.hold(accountId, amount);
    if (amount === 0) {
      return { ok: true, claim: { kind: "none" }, available: await available(this.db, accountId) };
    }
    const acct = this.account(accountId);
    this.observe(acct, amount);
    for (let tries = 0; tries < 3; tries++) {
      const fromLease = this.fromLease(acct, amount);
      if (fromLease) return fromLease;
      if (this.stopped || !this.alive || Date.now() < acct.noLeaseUntil) break;
      acct.waiting += amount;
      try {
        await this.acquire(acct, accountId, amount);
      } finally {
        acct.waiting -= amount;
      }
    }
    return this.hold(accountId, amount);
  }
  /**
   * A per-call hold: exact, one guarded statement per call. Short of credits while some are
   * leased (to this process or another), the leases are recalled and the hold tried once more:
   * across processes, exactly the affordable number of calls succeed.
   */
  async hold(accountId, amount) {
    const acct = this.account(accountId);
    let r = await reserve(this.db, accountId, amount, this.opts.processId);
    if (!r.ok && await this.recall(accountId)) {
      r = await reserve(this.db, accountId, amount, this.opts.processId);
    }
    if (!r.ok) return r;
    acct.lastAvailable = r.available;
    return {
      ok: true,
      claim: r.hold ? { kind: "hold", hold: r.hold } : { kind: "none" },
      available: r.available
    };
  }
  /**
   * Settles what `claim` reserved: the records (charges included) go into the next batch, and
   * this resolves once it is committed. A failed settle charges nothing and frees the credits it
   * reserved at once: a hold is released in its own statement, a lease's credits go back to it.
   */
  async settle(accountId, claim, records, idempotencyKey = null) {
    const acct = this.account(accountId);
    if (claim.kind === "lease") {
      const l = claim.lease;
      try {
        const out = await this.queue.settle({
          accountId,
          hold: null,
          leaseId: l.lease.id,
          records,
          idempotencyKey
        });
        l.free += claim.amount - out.charged;
        acct.lastAvailable = out.available;
        return out;
      } catch (err) {
        l.free += claim.amount;
        throw err;
      } finally {
        l.inFlight -= 1;
        if (l.retired && l.inFlight === 0) this.giveBack(acct, l);
      }
    }
    const hold = claim.kind === "hold" ? claim.hold : null;
    try {
      const out = await this.queue.settle({
        accountId,
        hold,
        leaseId: null,
        records,
        idempotencyKey
      });
      acct.lastAvailable = out.available;
      return out;
    } catch (err) {
      if (hold) {
        await this.queue.settle({ accountId, hold, leaseId: null, records: [] }).catch((e) => this.log.error({ err: e }, "releasing a failed settle's hold"));
      }
      throw err;
    }
  }
  /**
   * Shutdown without the database (a drain that timed out closes it first): nothing more is
   * written; the leases are given back by the next start of this instance or by the sweep.
   */
  abandon() {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
  /** Shutdown: no new leases; every lease given back once its calls have settled. */
  async stop() {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const pending = [];
    for (const acct of this.accounts.values()) {
      if (acct.current) this.retire(acct, acct.current);
      if (acct.acquiring) pending.push(acct.acquiring);
    }
    await Promise.all(pending);
    for (const acct of this.accounts.values()) if (acct.current) this.retire(acct, acct.current);
    await this.queue.flushed();
    if (this.retiringCount() > 0) {
      await new Promise((resolve) => {
        this.allReturned = resolve;
      });
    }
    await unregisterProcess(this.db, this.opts.processId).catch(() => {
    });
  }
  /**
   * Asks every process (this one too) to give back the account's leases, and waits — briefly —
   * until they have. False when nothing was leased, so a caller is refused at once.
   */
  async recall(accountId) {
    if (await this.leasedOf(accountId) === 0) return false;
    await this.db.notify("lease_recall", String(accountId));
    const deadline2 = Date.now() + RECALL_WAIT_MS;
    while (Date.now() < deadline2) {
      if (await this.leasedOf(accountId) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return true;
  }
  /** A recall reached this process: the account's lease goes back; per-call holds for a while. */
  recalled(accountId) {
    const acct = this.accounts.get(accountId);
    if (!acct) return;
    acct.noLeaseUntil = Date.now() + RECALL_COOLDOWN_MS;
    if (acct.current) this.retire(acct, acct.current);
  }
  async leasedOf(accountId) {
    const { rows } = await this.db.query(
      "SELECT leased FROM accounts WHERE id = $1",
      [accountId]
    );
    return rows[0]?.leased ?? 0;
  }
  account(accountId) {
    let acct = this.accounts.get(accountId);
    if (!acct) {
      acct = {
        current: null,
        retiring: /* @__PURE__ */ new Set(),
        acquiring: null,
        rate: 0,
        rateAt: Date.now(),
        noLeaseUntil: 0,
        lastAvailable: 0,
        waiting: 0
      };
      this.accounts.set(accountId, acct);
    }
    return acct;
  }
  observe(acct, amount) {
    const now = Date.now();
    const dt = Math.max(1, now - acct.rateAt);
    const decay = 0.5 ** (dt / RATE_HALF_LIFE_MS);
    acct.rate = acct.rate * decay + amount * 1e3 / RATE_HALF_LIFE_MS;
    acct.rateAt = now;
  }
  fromLease(acct, amount) {
    const l = acct.current;
    if (!l || l.retired || l.free < amount) return null;
    l.free -= amount;
    l.inFlight += 1;
    l.lastUse = Date.now();
    if (l.free < l.lease.amount / 4 && !acct.acquiring && Date.now() >= acct.noLeaseUntil) {
      void this.acquire(acct, l.lease.accountId, amount);
    }
    return {
      ok: true,
      claim: { kind: "lease", lease: l, amount },
      available: acct.lastAvailable
    };
  }
  /** Takes a new lease sized for the account's recent rate; coalesced per account. */
  acquire(acct, accountId, amount) {
    if (acct.acquiring) return acct.acquiring;
    const size = Math.max(
      amount * this.opts.leaseMinCalls,
      Math.ceil(acct.rate * this.opts.leaseWindowMs / 1e3),
      2 * acct.waiting
    );
    acct.acquiring = takeLease(
      this.db,
      accountId,
      size,
      size * this.opts.leaseKeepFactor,
      this.opts.processId
    ).then((taken) => {
      if (!taken || this.stopped || !this.alive || Date.now() < acct.noLeaseUntil) {
        acct.noLeaseUntil = Date.now() + LEASE_RETRY_MS;
        if (taken) void returnLease(this.db, taken.lease.id).catch(() => {
        });
        return;
      }
      acct.lastAvailable = taken.available;
      const previous = acct.current;
      const now = Date.now();
      acct.current = {
        lease: taken.lease,
        free: taken.lease.amount,
        inFlight: 0,
        retired: false,
        takenAt: now,
        lastUse: now
      };
      if (previous) this.retire(acct, previous);
    }).catch((err) => {
      acct.noLeaseUntil = Date.now() + LEASE_RETRY_MS;
      this.log.warn({ err }, "taking a credit lease failed; per-call holds meanwhile");
    }).finally(() => {
      acct.acquiring = null;
    });
    return acct.acquiring;
  }
  retire(acct, l) {
    if (acct.current === l) acct.current = null;
    if (l.retired) return;
    l.retired = true;
    acct.retiring.add(l);
    if (l.inFlight === 0) this.giveBack(acct, l);
  }
  giveBack(acct, l) {
    returnLease(this.db, l.lease.id).then((avail) => {
      if (avail !== null) acct.lastAvailable = avail;
    }).catch(
      (err) => this.log.warn({ err: new LedgerError("lease return", err) }, "left to the sweep")
    ).finally(() => {
      acct.retiring.delete(l);
      if (this.allReturned && this.retiringCount() === 0) {
        this.allReturned();
        this.allReturned = null;
      }
    });
  }
  retiringCount() {
    let n2 = 0;
    for (const acct of this.accounts.values()) n2 += acct.retiring.size;
    return n2;
  }
};

// src/util/cached-check.ts
var CachedCheck = class {
  constructor(run) {
    this.run = run;
  }
  run;
  last = null;
  running = null;
  /** The latest result, or undefined before the first. */
  get lastOk() {
    return this.last?.ok;
  }
  /** Evidence from elsewhere, as fresh as a check made now. */
  note(ok) {
    this.last = { at: Date.now(), ok };
  }
  async get(timeoutMs, cacheMs) {
    if (this.last && Date.now() - this.last.at < cacheMs) return this.last.ok;
    if (!this.running) {
      this.running = this.run(timeoutMs).catch(() => false).then((ok) => {
        this.running = null;
        this.note(ok);
        return ok;
      });
    }
    return within(this.running, timeoutMs, false);
  }
};
function within(promise, ms, fallback) {
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve(fallback), Math.max(0, ms));
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

// src/upstreams/breaker.ts
var Breaker = class {
  constructor(opts, onChange = () => {
  }, now = Date.now) {
    this.opts = opts;
    this.onChange = onChange;
    this.now = now;
  }
  opts;
  onChange;
  now;
  current = "closed";
  consecutive = 0;
  openUntil = 0;
  trialInFlight = false;
  /** The last `windowCalls` outcomes, true for a failure, as a ring. */
  window = [];
  windowNext = 0;
  windowFailures = 0;
  get state() {
    if (this.current === "open" && this.now() >= this.openUntil) this.become("half-open");
    return this.current;
  }
  /** Whether a call may go now, without taking the trial slot (for choosing among upstreams). */
  get available() {
    const state = this.state;
    return state === "closed" || state === "half-open" && !this.trialInFlight;
  }
  /** Lets a call go, taking the trial slot when half-open; null when none may go now. */
  admit() {
    const state = this.state;
    if (state === "closed") return "call";
    if (state === "half-open" && !this.trialInFlight) {
      this.trialInFlight = true;
      return "trial";
    }
    return null;
  }
  success() {
    this.consecutive = 0;
    this.record(false);
    if (this.current !== "closed") this.close();
  }
  failure() {
    this.consecutive += 1;
    this.record(true);
    if (this.current === "half-open") {
      this.open();
      return;
    }
    if (this.current !== "closed") return;
    const full = this.window.length >= this.opts.windowCalls;
    if (this.consecutive >= this.opts.failuresMax || full && this.windowFailures / this.window.length >= this.opts.failureRate) {
      this.open();
    }
  }
  /** A call that ended without telling anything about the upstream (cancelled because another answered). */
  neutral(admission) {
    if (admission === "trial") this.trialInFlight = false;
  }
  /** A background probe's outcome: an answer closes the breaker; no answer counts as a failure. */
  probed(ok) {
    if (ok) this.success();
    else if (this.current === "closed") this.failure();
    else this.open();
  }
  record(failed) {
    if (this.window.length < this.opts.windowCalls) {
      this.window.push(failed);
    } else {
      if (this.window[this.windowNext]) this.windowFailures -= 1;
      this.window[this.windowNext] = failed;
      this.windowNext = (this.windowNext + 1) % this.opts.windowCalls;
    }
    if (failed) this.windowFailures += 1;
  }
  open() {
    this.openUntil = this.now() + this.opts.openMs;
    this.trialInFlight = false;
    this.become("open");
  }
  close() {
    this.trialInFlight = false;
    this.consecutive = 0;
    this.window.length = 0;
    this.windowNext = 0;
    this.windowFailures = 0;
    this.become("closed");
  }
  become(state) {
    if (this.current === state) return;
    this.current = state;
    this.onChange(state);
  }
};

// src/upstreams/deadline.ts
var undiciSignal = (signal) => signal;
function deadline(ms, outer) {
  const cancel = new Cancel();
  const timer = setTimeout(
    () => cancel.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")),
    ms
  );
  if (!outer) return { signal: cancel, clear: () => clearTimeout(timer) };
  const follow = () => cancel.abort(outer.reason);
  if (outer.aborted) follow();
  else outer.addEventListener("abort", follow, { once: true });
  return {
    signal: cancel,
    clear: () => {
      clearTimeout(timer);
      outer.removeEventListener("abort", follow);
    }
  };
}
async function withDeadline(ms, work) {
  const d = deadline(ms);
  try {
    return await work(d.signal);
  } finally {
    d.clear();
  }
}

// src/upstreams/hedge-delay.ts
var SAMPLES_MAX = 256;
var SAMPLES_MIN = 20;
var RECOMPUTE_EVERY = 32;
var HedgeDelay = class {
  constructor(opts) {
    this.opts = opts;
    this.delay = opts.maxMs;
  }
  opts;
  samples = [];
  next = 0;
  sinceComputed = 0;
  delay;
  /** One answer's time, in ms. */
  add(ms) {
    if (this.samples.length < SAMPLES_MAX) this.samples.push(ms);
    else {
      this.samples[this.next] = ms;
      this.next = (this.next + 1) % SAMPLES_MAX;
    }
    this.sinceComputed += 1;
    if (this.samples.length >= SAMPLES_MIN && this.sinceComputed >= RECOMPUTE_EVERY) {
      this.sinceComputed = 0;
      const sorted = [...this.samples].sort((a, b) => a - b);
      const at = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * this.opts.quantile))];
      this.delay = Math.min(this.opts.maxMs, Math.max(this.opts.minMs, Math.ceil(at)));
    }
  }
  get ms() {
    return this.delay;
  }
};

// src/upstreams/failover.ts
var NO_OBSERVER = {
  attempt: () => {
  },
  retried: () => {
  },
  hedged: () => {
  },
  breaker: () => {
  }
};
var DEFAULT_POLICY = {
  attemptTimeoutMs: 2e3,
  attemptsMax: 3,
  hedge: { enabled: true, quantile: 0.95, minMs: 50, maxMs: 500 },
  breaker: { failuresMax: 5, failureRate: 0.5, windowCalls: 20, openMs: 5e3 },
  healthCheckIntervalMs: 2e3
};
var PROBE_TIMEOUT_MS_MAX = 2e3;
var ABANDONED = new DOMException("another upstream answered first", "AbortError");
var FailoverPool = class {
  members;
  cursor = 0;
  policy;
  observer;
  hedgeDelay;
  budgetMs;
  what;
  healthTimer;
  constructor(clients, opts) {
    this.policy = opts.policy ?? DEFAULT_POLICY;
    this.observer = opts.observer ?? NO_OBSERVER;
    this.budgetMs = opts.budgetMs;
    this.what = opts.what;
    this.hedgeDelay = new HedgeDelay(this.policy.hedge);
    this.members = clients.map((client) => {
      const member = {
        client,
        breaker: new Breaker(
          this.policy.breaker,
          (state) => this.observer.breaker(client.name, state)
        ),
        // A probe counts like a call: one that fails counts against the breaker, one that
        // answers closes it.
        health: new CachedCheck(async (timeoutMs) => {
          const ok = await client.probe(timeoutMs);
          member.breaker.probed(ok);
          return ok;
        })
      };
      return member;
    });
    for (const m of this.members) this.observer.breaker(m.client.name, "closed");
    const every = this.policy.healthCheckIntervalMs;
    if (every > 0) {
      this.healthTimer = setInterval(() => this.checkHealth(every), every);
      this.healthTimer.unref();
    }
  }
  /**
   * Probes each member whose breaker is not closed, or whose latest call or probe failed: so that a
   * recovered upstream is back before its cool-down ends, and a failing one is found failing
   * without a client's call paying for it. A member that answers its calls is not probed: the
   * calls are the evidence (and /readyz probes an idle one when asked).
   */
  checkHealth(every) {
    for (const m of this.members) {
      if (m.breaker.state === "closed" && m.health.lastOk !== false) continue;
      void m.health.get(Math.min(every, PROBE_TIMEOUT_MS_MAX), 0);
    }
  }
  /** The member an upstream event vouches for (a reconnected Electrum server): its breaker closes. */
  recovered(client) {
    const m = this.members.find((x) => x.client === client);
    if (m && m.breaker.state !== "closed") m.breaker.success();
  }
  run(call, opts = {}) {
    const idempotent2 = opts.idempotent ?? false;
    const several = this.members.length > 1;
    const attemptsMax = idempotent2 ? this.policy.attemptsMax : this.members.length;
    const started = performance.now();
    const attempts = [];
    const tried = /* @__PURE__ */ new Set();
    return new Promise((resolve, reject) => {
      let settled = false;
      let last;
      let hedgeTimer;
      const outer = opts.signal;
      const finish = (out) => {
        if (settled) return;
        settled = true;
        clearTimeout(hedgeTimer);
        outer?.removeEventListener("abort", onOuter);
        resolve(out);
      };
      const abandon = (winner) => {
        for (const a of attempts) {
          if (a.done) continue;
          a.done = true;
          a.cancel.abort(ABANDONED);
          const seconds = (performance.now() - a.startedAt) / 1e3;
          if (winner && a.startedAt < winner.startedAt) {
            a.member.breaker.failure();
            this.observer.attempt(a.member.client.name, "outpaced", seconds);
          } else {
            a.member.breaker.neutral(a.admission);
            this.observer.attempt(a.member.client.name, "cancelled", seconds);
          }
        }
      };
      const onOuter = () => {
        abandon(null);
        finish({
          ok: false,
          error: gatewayError("UPSTREAM_TIMEOUT", `${this.what} did not answer in time`, {
            detail: "the caller's deadline passed"
          })
        });
      };
      const settle2 = (a, out) => {
        if (a.done) return;
        a.done = true;
        const name = a.member.client.name;
        const elapsedMs = performance.now() - a.startedAt;
        if (out.ok) {
          a.member.breaker.success();
          a.member.health.note(true);
          this.hedgeDelay.add(elapsedMs);
          this.observer.attempt(name, "ok", elapsedMs / 1e3);
          abandon(a);
          finish({ ...out, upstream: name });
          return;
        }
        last = out.error;
        const timedOut = out.error.code === "UPSTREAM_TIMEOUT";
        if (out.retryable || timedOut) {
          a.member.breaker.failure();
          a.member.health.note(false);
        } else {
          a.member.breaker.neutral(a.admission);
        }
        this.observer.attempt(name, timedOut ? "timeout" : "failed", elapsedMs / 1e3);
        if (settled) return;
        const again = idempotent2 ? out.retryable || timedOut : out.retryable;
        if (again && launch("retry")) return;
        if (attempts.some((x) => !x.done)) return;
        finish({ ok: false, error: out.error });
      };
      const launch = (kind) => {
        if (attempts.length >= attemptsMax) return false;
        const remainingMs = this.budgetMs - (performance.now() - started);
        if (remainingMs <= 0) return false;
        const picked = this.pick(tried);
        if (!picked) return false;
        const [member, admission] = picked;
        tried.add(member);
        const anotherLeft = this.members.some(
          (m) => m !== member && !tried.has(m) && m.breaker.available
        );
        const ms = idempotent2 && anotherLeft ? Math.min(this.policy.attemptTimeoutMs, remainingMs) : remainingMs;
        const cancel = new Cancel();
        const timer = deadline(ms, cancel);
        const a = {
          member,
          admission,
          cancel,
          startedAt: performance.now(),
          done: false
        };
        attempts.push(a);
        if (kind === "retry") this.observer.retried(member.client.name);
        if (kind === "hedge") this.observer.hedged(member.client.name);
        const expired = new Promise((res) => {
          timer.signal.addEventListener(
            "abort",
            () => res({
              ok: false,
              retryable: false,
              error: gatewayError("UPSTREAM_TIMEOUT", `${this.what} did not answer in time`, {
                detail: `${member.client.name}: no answer within ${Math.round(ms)} ms`
              })
            }),
            { once: true }
          );
        });
        Promise.race([call(member.client, timer.signal), expired]).then(
          (out) => settle2(a, out),
          (err) => {
            a.done = true;
            a.member.breaker.neutral(a.admission);
            if (!settled) {
              settled = true;
              clearTimeout(hedgeTimer);
              outer?.removeEventListener("abort", onOuter);
              abandon(null);
              reject(err);
            }
          }
        ).finally(() => timer.clear());
        return true;
      };
      if (outer?.aborted) {
        onOuter();
        return;
      }
      outer?.addEventListener("abort", onOuter, { once: true });
      if (!launch("first")) {
        finish({
          ok: false,
          error: last ?? gatewayError("UPSTREAM_UNAVAILABLE", `${this.what} is unavailable`, {
            detail: `every upstream's circuit breaker is open: ${this.members.map((m) => m.client.name).join(", ")}`
          })
        });
        return;
      }
      if (idempotent2 && several && this.policy.hedge.enabled) {
        hedgeTimer = setTimeout(() => {
          if (!settled && attempts.some((x) => !x.done)) launch("hedge");
        }, this.hedgeDelay.ms);
      }
    });
  }
  /** The next member in round-robin order, not yet tried by this call, that its breaker admits. */
  pick(tried) {
    const n2 = this.members.length;
    for (let i = 0; i < n2; i++) {
      const m = this.members[(this.cursor + i) % n2];
      if (tried.has(m)) continue;
      const admission = m.breaker.admit();
      if (!admission) continue;
      this.cursor = (this.cursor + i + 1) % n2;
      return [m, admission];
    }
    return null;
  }
  /**
   * Each member's state from its latest evidence — a call's outcome or a probe — no older than
   * `cacheMs`; a member with none that fresh is probed (at most one probe each at a time). A member
   * whose breaker is open is down, whatever its last probe said: calls pass it over.
   */
  async health(opts) {
    const members = await Promise.all(
      this.members.map(async (m) => {
        const up2 = await m.health.get(opts.timeoutMs, opts.cacheMs) && m.breaker.state !== "open";
        return { name: m.client.name, status: up2 ? "up" : "down" };
      })
    );
    const up = members.filter((m) => m.status === "up").length;
    const status = up === members.length ? "healthy" : up > 0 ? "degraded" : "down";
    return { status, members };
  }
  /** Each member's breaker state (for tests and /readyz's callers). */
  breakers() {
    return this.members.map((m) => ({ name: m.client.name, state: m.breaker.state }));
  }
  async close(abort = false) {
    clearInterval(this.healthTimer);
    await Promise.all(this.members.map((m) => m.client.close(abort)));
  }
};

// src/upstreams/shared-trips.ts
var SharedTrips = class {
  constructor(onJoined = () => {
  }) {
    this.onJoined = onJoined;
  }
  onJoined;
  /** Renewed as it empties (util/in-flight-map.ts says why). */
  inflight = new InFlightMap();
  /** Trips started, and callers that joined one already in flight (for tests and metrics). */
  stats = { trips: 0, joined: 0 };
  /** The outcome of the trip in flight for `key`, or of a new one made by `trip`. */
  run(key, trip) {
    const current = this.inflight.get(key);
    if (current) {
      this.stats.joined += 1;
      this.onJoined();
      return current;
    }
    this.stats.trips += 1;
    const started = trip();
    this.inflight.set(key, started);
    const forget2 = () => {
      if (this.inflight.get(key) === started) this.inflight.delete(key);
    };
    started.then(forget2, forget2);
    return started;
  }
  /** Requests in flight now (distinct keys). */
  get size() {
    return this.inflight.size;
  }
};

// src/upstreams/bitcoin-core/client.ts
import { readFileSync } from "node:fs";
import { Pool } from "undici";

// src/upstreams/http.ts
async function readLimited(body, bytesMax) {
  const chunks = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > bytesMax) throw Object.assign(new Error("answer too large"), { code: "TOO_LARGE" });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
function transportFailure(err, name, what) {
  const e = err;
  const timedOut = e.name === "TimeoutError" || e.code === "UND_ERR_HEADERS_TIMEOUT" || e.code === "UND_ERR_BODY_TIMEOUT";
  return timedOut ? {
    ok: false,
    retryable: false,
    error: gatewayError("UPSTREAM_TIMEOUT", `${what} did not answer in time`, {
      detail: `${name}: ${e.message}`
    })
  } : {
    ok: false,
    retryable: true,
    error: gatewayError("UPSTREAM_UNAVAILABLE", `${what} is unreachable`, {
      detail: `${name}: ${e.code ?? ""} ${e.message}`
    })
  };
}

// src/upstreams/bitcoin-core/client.ts
var RESPONSE_BYTES_MAX = 64 * 1024 * 1024;
var BitcoinCoreClient = class {
  constructor(config) {
    this.config = config;
    const url = new URL(config.url);
    this.name = `${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`;
    this.path = url.pathname || "/";
    this.pool = new Pool(url.origin, {
      connections: config.connections,
      keepAliveTimeout: 3e4,
      // Core's -rpcservertimeout is 30 s; stay below it so the node never closes under us.
      keepAliveMaxTimeout: 25e3,
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs
    });
    if (url.username) {
      this.authorization = basic(
        decodeURIComponent(url.username),
        decodeURIComponent(url.password)
      );
    }
    this.loadCredentials();
  }
  config;
  name;
  pool;
  path;
  authorization;
  nextId = 1;
  loadCredentials() {
    if (this.config.user !== void 0) {
      this.authorization = basic(this.config.user, this.config.password ?? "");
    } else if (this.config.cookieFile) {
      try {
        const cookie = readFileSync(this.config.cookieFile, "utf8").trim();
        this.authorization = `Basic ${Buffer.from(cookie).toString("base64")}`;
      } catch {
        this.authorization = void 0;
      }
    }
  }
  /**
   * Sends calls as one JSON-RPC batch (one round trip) and returns answers in call order.
   * `requests`: how many callers' requests the calls combine (combine.ts). The answer's size limit,
   * which guards against a broken node, stays per request: a combined answer may be as large as
   * their answers could have been apart.
   */
  async batch(calls, timeoutMs = this.config.timeoutMs, requests = 1, signal) {
    const bytesMax = RESPONSE_BYTES_MAX * requests;
    const first = await this.post(calls, timeoutMs, bytesMax, signal);
    if (!first.ok && first.status === 401 && this.config.cookieFile) {
      this.loadCredentials();
      return this.finish(calls, await this.post(calls, timeoutMs, bytesMax, signal));
    }
    return this.finish(calls, first);
  }
  /**
   * For /readyz: the node answers `getblockcount` with a number. The cache's tip already needs
   * that method, so a node whose rpcwhitelist allows the gateway's calls allows this one; a node
   * still warming up (-28) is not ready.
   */
  async probe(timeoutMs) {
    const out = await this.batch([{ method: "getblockcount", params: [] }], timeoutMs);
    const answer3 = out.ok ? out.answers[0] : void 0;
    return answer3 !== void 0 && "result" in answer3 && jsonInteger(answer3.result) !== void 0;
  }
  async post(calls, timeoutMs, bytesMax, signal) {
    const ids = calls.map(() => this.nextId++);
    const items = calls.map((c, i) => ({
      jsonrpc: "2.0",
      id: ids[i],
      method: c.method,
      params: c.params
    }));
    const body = calls.every((c) => allPlainScalars(c.params)) ? JSON.stringify(items) : stringifyJson(items);
    const headers = { "content-type": "application/json" };
    if (this.authorization) headers.authorization = this.authorization;
    const timer = deadline(timeoutMs, signal);
    try {
      const res = await this.pool.request({
        path: this.path,
        method: "POST",
        headers,
        body,
        signal: undiciSignal(timer.signal)
      });
      const text = await readLimited(res.body, bytesMax);
      if (res.statusCode === 200) return { ok: true, ids, text };
      const retryable = res.statusCode === 503 || res.statusCode >= 500;
      return {
        ok: false,
        status: res.statusCode,
        failure: {
          ok: false,
          retryable,
          error: gatewayError("UPSTREAM_UNAVAILABLE", "the full node is unavailable", {
            detail: `${this.name} answered HTTP ${res.statusCode}: ${text.slice(0, 200)}`
          })
        }
      };
    } catch (err) {
      return { ok: false, failure: transportFailure(err, this.name, "the full node") };
    } finally {
      timer.clear();
    }
  }
  finish(calls, posted) {
    if (!posted.ok) return posted.failure;
    const bad = (why) => ({
      ok: false,
      retryable: false,
      error: gatewayError("UPSTREAM_BAD_RESPONSE", "the full node sent an answer we cannot read", {
        detail: `${this.name}: ${why}`
      })
    });
    const scanned = scanBatchAnswer(posted.text);
    const fast = scanned && answersOf(scanned, posted.ids, calls.length);
    if (fast) return { ok: true, answers: fast };
    let parsed2;
    try {
      parsed2 = parseJson(posted.text);
    } catch {
      return bad("not JSON");
    }
    if (!Array.isArray(parsed2)) return bad("batch answer is not an array");
    const byId = /* @__PURE__ */ new Map();
    for (const item of parsed2) {
      if (!isJsonObject(item)) return bad("batch item is not an object");
      const id = jsonInteger(item.id);
      if (id === void 0) return bad("batch item without a numeric id");
      if (isJsonObject(item.error)) {
        const error = errorAnswer(item.error);
        if (!error) return bad("malformed error");
        byId.set(id, error);
      } else if ("result" in item) {
        byId.set(id, { result: item.result ?? null });
      } else {
        return bad("batch item with neither result nor error");
      }
    }
    const answers = inCallOrder(byId, posted.ids, calls.length);
    return typeof answers === "string" ? bad(answers) : { ok: true, answers };
  }
  async close(abort = false) {
    await (abort ? this.pool.destroy() : this.pool.close());
  }
};
function answersOf(items, ids, callCount) {
  const byId = /* @__PURE__ */ new Map();
  for (const item of items) {
    if (item.id === void 0 || !/^-?\d+$/.test(item.id)) return null;
    const id = Number(item.id);
    if (item.error?.startsWith("{")) {
      const error = parseJson(item.error);
      const answer3 = isJsonObject(error) ? errorAnswer(error) : null;
      if (!answer3) return null;
      byId.set(id, answer3);
    } else if (item.result !== void 0) {
      byId.set(id, rawResultAnswer(item.result, item.scalars));
    } else {
      return null;
    }
  }
  const answers = inCallOrder(byId, ids, callCount);
  return typeof answers === "string" ? null : answers;
}
function errorAnswer(error) {
  const code = jsonInteger(error.code);
  if (code === void 0 || typeof error.message !== "string") return null;
  return { error: { code, message: error.message } };
}
function inCallOrder(byId, ids, callCount) {
  const answers = [];
  for (const id of ids) {
    const answer3 = byId.get(id);
    if (!answer3) return `no answer for id ${id}`;
    answers.push(answer3);
  }
  return answers.length === callCount ? answers : "answer count differs";
}
function basic(user, password) {
  return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
}

// src/upstreams/bitcoin-core/combine.ts
var COMBINABLE_METHODS = /* @__PURE__ */ new Set([
  "getrawtransaction",
  "getblockhash",
  "getblockcount",
  "getbestblockhash",
  "getblockheader",
  "getblockchaininfo",
  "getdifficulty",
  "getmempoolinfo",
  "getmempoolentry",
  "gettxout",
  "estimatesmartfee",
  "getnetworkinfo",
  "uptime",
  "validateaddress"
]);
var READ_METHODS = /* @__PURE__ */ new Set([
  ...COMBINABLE_METHODS,
  "getblock",
  "getblockstats",
  "getchaintips",
  "getrawmempool",
  "gettxoutproof",
  "decoderawtransaction",
  "decodescript",
  // Checks against the mempool without adding to it: no effects.
  "testmempoolaccept"
]);
var Combiner = class {
  constructor(send2, callsMax, onCombined = () => {
  }) {
    this.send = send2;
    this.callsMax = callsMax;
    this.onCombined = onCombined;
  }
  send;
  callsMax;
  onCombined;
  group = [];
  groupCalls = 0;
  tick = null;
  submit(calls) {
    if (calls.length === 0 || calls.length >= this.callsMax || !calls.every((c) => COMBINABLE_METHODS.has(c.method))) {
      return this.send(calls, 1);
    }
    if (this.groupCalls + calls.length > this.callsMax) this.flush();
    const out = new Promise((resolve, reject) => {
      this.group.push({ calls, resolve, reject });
    });
    this.groupCalls += calls.length;
    if (this.groupCalls === this.callsMax) this.flush();
    else this.tick ??= setImmediate(() => this.flush());
    return out;
  }
  /** Sends what is waiting now (the turn ended, the bound was reached, or the pool closes). */
  flush() {
    if (this.tick) clearImmediate(this.tick);
    this.tick = null;
    const group = this.group;
    this.group = [];
    this.groupCalls = 0;
    if (group.length === 0) return;
    if (group.length === 1) {
      const only = group[0];
      this.send(only.calls, 1).then(only.resolve, only.reject);
      return;
    }
    const calls = group.flatMap((w) => w.calls);
    this.onCombined(group.length, calls.length);
    this.send(calls, group.length).then(
      (out) => {
        let end = 0;
        for (const w of group) {
          const start = end;
          end += w.calls.length;
          w.resolve(
            out.ok ? { ok: true, answers: out.answers.slice(start, end), upstream: out.upstream } : out
          );
        }
      },
      (err) => {
        for (const w of group) w.reject(err);
      }
    );
  }
};

// src/upstreams/bitcoin-core/pool.ts
var BitcoinCorePool = class {
  pool;
  combiner;
  shared;
  constructor(configs, opts = {}) {
    this.pool = new FailoverPool(
      configs.map((c) => new BitcoinCoreClient(c)),
      {
        policy: opts.policy,
        observer: opts.observer,
        budgetMs: Math.max(...configs.map((c) => c.timeoutMs)),
        what: "the full node"
      }
    );
    const callsMax = Math.min(...configs.map((c) => c.coalesceCallsMax));
    this.combiner = new Combiner(
      (calls, requests) => this.pool.run((client, signal) => client.batch(calls, void 0, requests, signal), {
        idempotent: calls.every((c) => READ_METHODS.has(c.method))
      }),
      callsMax,
      opts.onCombined
    );
    this.shared = new SharedTrips(opts.onShared);
  }
  /**
   * A request's calls, answered in its order: each either shares a trip already in flight for the
   * same call, or goes in one new round trip with the request's other new calls (perhaps combined
   * with other requests'). When any trip the request depends on fails as a whole, the request
   * fails with that error, as it would have had it made the trip alone.
   */
  async batch(calls) {
    if (calls.length === 0 || !calls.every((c) => COMBINABLE_METHODS.has(c.method)))
      return this.combiner.submit(calls);
    const keys = calls.map((c) => `${c.method} ${paramsKey(c.params)}`);
    const own = [];
    let sent = null;
    const send2 = () => {
      sent ??= Promise.resolve().then(() => this.combiner.submit(own));
      return sent;
    };
    const shares = calls.map(
      (call, i) => this.shared.run(keys[i], () => {
        own.push(call);
        const at = own.length - 1;
        return send2().then(
          (out) => out.ok ? { ok: true, answer: out.answers[at], upstream: out.upstream } : out
        );
      })
    );
    const outcomes = await Promise.all(shares);
    const failed = outcomes.find((o) => !o.ok);
    if (failed && !failed.ok) return failed;
    const answers = outcomes.map((o) => o.ok ? o.answer : { result: null });
    const first = outcomes[0];
    return { ok: true, answers, upstream: first?.ok ? first.upstream : "" };
  }
  /** Each node's breaker state (tests). */
  breakers() {
    return this.pool.breakers();
  }
  /** For /readyz: each member up or down (see FailoverPool.health). */
  health(opts) {
    return this.pool.health(opts);
  }
  close(abort = false) {
    this.combiner.flush();
    return this.pool.close(abort);
  }
};
function paramsKey(params) {
  return allPlainScalars(params) ? JSON.stringify(params) : stringifyJson(params);
}

// src/upstreams/electrum/client.ts
import { EventEmitter as EventEmitter4 } from "node:events";
import { readFileSync as readFileSync2 } from "node:fs";

// src/upstreams/electrum/connection.ts
import { connect as netConnect } from "node:net";
import { connect as tlsConnect } from "node:tls";

// src/jsonrpc/lines.ts
var LineSplitter = class {
  constructor(lineBytesMax) {
    this.lineBytesMax = lineBytesMax;
  }
  lineBytesMax;
  parts = [];
  size = 0;
  /** The complete lines in `chunk` (without their `\n`), or "too-long". */
  push(chunk) {
    const lines = [];
    let start = 0;
    for (; ; ) {
      const end = chunk.indexOf(10, start);
      if (end < 0) break;
      const tail = chunk.subarray(start, end);
      if (this.size + tail.length > this.lineBytesMax) return "too-long";
      const line = this.parts.length === 0 ? tail : Buffer.concat([...this.parts, tail], this.size + tail.length);
      lines.push(line.toString("utf8"));
      this.parts = [];
      this.size = 0;
      start = end + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.size += rest.length;
      if (this.size > this.lineBytesMax) return "too-long";
      this.parts.push(Buffer.from(rest));
    }
    return lines;
  }
};

// src/upstreams/electrum/connection.ts
var PROTOCOL_RANGE = ["1.4", "1.4"];
var ElectrumConnection = class _ElectrumConnection {
  constructor(socket, opts) {
    this.socket = socket;
    this.opts = opts;
    const splitter = new LineSplitter(opts.lineBytesMax);
    socket.on("data", (chunk) => {
      this.lastReceivedAt = Date.now();
      const lines = splitter.push(chunk);
      if (lines === "too-long") {
        this.fail(
          gatewayError("UPSTREAM_BAD_RESPONSE", "the Electrum server sent an answer too large", {
            detail: `${opts.name}: a line over ${opts.lineBytesMax} bytes`
          })
        );
        return;
      }
      for (const line of lines) this.receive(line);
    });
    socket.on("error", () => {
    });
    socket.on("close", () => this.fail());
  }
  socket;
  opts;
  pending = new InFlightMap();
  nextId = 0;
  closed = false;
  lastReceivedAt = Date.now();
  pingTimer;
  closeError;
  /** Set once the handshake's server.version was answered. */
  serverVersion = null;
  /** Connects, identifies with server.version and subscribes to headers. */
  static open(opts) {
    return new Promise((resolve) => {
      const unreachable = (why) => resolve({
        ok: false,
        error: gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server is unreachable", {
          detail: `${opts.name}: ${why}`
        })
      });
      const socket = opts.tls ? tlsConnect({
        host: opts.host,
        port: opts.port,
        ...opts.tls,
        servername: servername(opts.host)
      }) : netConnect({ host: opts.host, port: opts.port });
      const timer = setTimeout(() => {
        socket.destroy();
        unreachable(`no connection within ${opts.connectTimeoutMs} ms`);
      }, opts.connectTimeoutMs);
      const onError = (err) => {
        clearTimeout(timer);
        unreachable(`${err.code ?? ""} ${err.message}`);
      };
      socket.once("error", onError);
      socket.once(opts.tls ? "secureConnect" : "connect", () => {
        clearTimeout(timer);
        socket.off("error", onError);
        socket.setNoDelay(true);
        const connection = new _ElectrumConnection(socket, opts);
        connection.handshake().then((error) => {
          if (error) {
            connection.close();
            resolve({ ok: false, error });
          } else {
            resolve({ ok: true, connection });
          }
        });
      });
    });
  }
  get isOpen() {
    return !this.closed;
  }
  get inFlight() {
    return this.pending.size;
  }
  async handshake() {
    const range = this.opts.protocolRange ?? PROTOCOL_RANGE;
    const version = await this.request("server.version", [this.opts.clientName, range]);
    if (!version.ok) return version.error;
    if ("error" in version.answer) {
      return gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server refused us", {
        detail: `${this.opts.name}: server.version: ${version.answer.error.message}`
      });
    }
    const result = version.answer.result;
    if (!Array.isArray(result) || typeof result[1] !== "string") {
      return gatewayError(
        "UPSTREAM_BAD_RESPONSE",
        "the Electrum server sent an answer we cannot read",
        {
          detail: `${this.opts.name}: server.version answered ${stringifyJson(result).slice(0, 200)}`
        }
      );
    }
    this.serverVersion = {
      software: typeof result[0] === "string" ? result[0] : "",
      protocol: result[1]
    };
    const headers = await this.request("blockchain.headers.subscribe", []);
    if (headers.ok && "result" in headers.answer) this.noteTip(headers.answer.result);
    return null;
  }
  /** Sends one request; resolves with its answer or failure, never later than timeoutMs. */
  /**
   * `signal`: the pool's, when it stops waiting (its attempt timed out, or another server
   * answered first): the request is forgotten at once, so it no longer counts against
   * inFlightMax; a late answer is dropped like one after a timeout.
   */
  request(method, params, signal) {
    if (this.closed) {
      return Promise.resolve({
        ok: false,
        retryable: true,
        error: this.closeError ?? gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server is unreachable", {
          detail: `${this.opts.name}: connection closed`
        })
      });
    }
    if (this.pending.size >= this.opts.inFlightMax) {
      return Promise.resolve({
        ok: false,
        retryable: true,
        error: gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server is busy", {
          detail: `${this.opts.name}: ${this.pending.size} requests in flight`
        })
      });
    }
    const id = this.nextId++;
    const sentAt = Date.now();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({
          ok: false,
          retryable: false,
          error: gatewayError("UPSTREAM_TIMEOUT", "the Electrum server did not answer in time", {
            detail: `${this.opts.name}: ${method} took over ${this.opts.timeoutMs} ms`
          })
        });
        if (this.lastReceivedAt < sentAt) this.close();
      }, this.opts.timeoutMs);
      this.pending.set(id, { resolve, timer, sentAt });
      signal?.addEventListener(
        "abort",
        () => {
          if (!this.pending.delete(id)) return;
          clearTimeout(timer);
          resolve({
            ok: false,
            retryable: false,
            error: gatewayError("UPSTREAM_TIMEOUT", "the Electrum server did not answer in time", {
              detail: `${this.opts.name}: ${method} abandoned by the pool`
            })
          });
        },
        { once: true }
      );
      this.socket.write(`${stringifyJson({ jsonrpc: "2.0", method, params, id })}
`);
      this.armPing();
    });
  }
  close() {
    this.socket.destroy();
    this.fail();
  }
  /** Keep-alive: a ping after pingIntervalMs without a request, so idle servers keep us. */
  armPing() {
    clearTimeout(this.pingTimer);
    this.pingTimer = setTimeout(() => {
      void this.request("server.ping", []).then((out) => {
        if (!out.ok && !this.closed) this.close();
      });
    }, this.opts.pingIntervalMs);
    this.pingTimer.unref();
  }
  receive(line) {
    let message;
    try {
      message = parseJson(line);
    } catch {
      this.fail(
        gatewayError("UPSTREAM_BAD_RESPONSE", "the Electrum server sent an answer we cannot read", {
          detail: `${this.opts.name}: not JSON: ${line.slice(0, 200)}`
        })
      );
      this.socket.destroy();
      return;
    }
    for (const item of Array.isArray(message) ? message : [message]) {
      if (!isJsonObject(item)) continue;
      if (typeof item.method === "string" && item.id === void 0) {
        if (!Array.isArray(item.params)) continue;
        if (item.method === "blockchain.headers.subscribe") this.noteTip(item.params[0]);
        else this.opts.onNotification?.(item.method, item.params);
        continue;
      }
      const id = jsonInteger(item.id);
      const entry = id === void 0 ? void 0 : this.pending.get(id);
      if (id === void 0 || !entry) continue;
      this.pending.delete(id);
      clearTimeout(entry.timer);
      entry.resolve(this.toOutcome(item));
    }
  }
  toOutcome(item) {
    const error = item.error;
    if (error !== void 0 && error !== null) {
      const code = isJsonObject(error) ? jsonInteger(error.code) : void 0;
      if (isJsonObject(error) && code !== void 0 && typeof error.message === "string") {
        return { ok: true, answer: { error: { code, message: error.message } } };
      }
      return {
        ok: false,
        retryable: false,
        error: gatewayError(
          "UPSTREAM_BAD_RESPONSE",
          "the Electrum server sent an answer we cannot read",
          {
            detail: `${this.opts.name}: malformed error ${stringifyJson(error).slice(0, 200)}`
          }
        )
      };
    }
    return { ok: true, answer: { result: item.result ?? null } };
  }
  noteTip(value) {
    if (!isJsonObject(value)) return;
    const height = jsonInteger(value.height);
    if (height !== void 0 && typeof value.hex === "string") {
      this.opts.onTip({ height, hex: value.hex });
    }
  }
  /** Settles every pending request with the failure, once. */
  fail(error) {
    if (error) this.closeError ??= error;
    if (!this.closed) {
      this.closed = true;
      clearTimeout(this.pingTimer);
      this.socket.destroy();
      this.opts.onClose();
    }
    const failure2 = this.closeError ?? gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server closed the connection", {
      detail: `${this.opts.name}: connection lost`
    });
    for (const [id, entry] of this.pending) {
      this.pending.delete(id);
      clearTimeout(entry.timer);
      entry.resolve({ ok: false, retryable: true, error: failure2 });
    }
  }
};
function servername(host) {
  return /^[\d.]+$/.test(host) || host.includes(":") ? void 0 : host;
}

// src/upstreams/electrum/client.ts
var BACKOFF_FIRST_MS = 250;
var ElectrumUpstream = class extends EventEmitter4 {
  name;
  slots;
  options;
  closed = false;
  latestTip = null;
  reconnectMaxMs;
  constructor(config) {
    super();
    this.reconnectMaxMs = config.reconnectMaxMs;
    this.name = electrumServerName(config);
    this.options = {
      ...connectionOptions(config),
      onTip: (tip) => {
        if (!this.latestTip || tip.height >= this.latestTip.height) {
          this.latestTip = { ...tip, at: Date.now() };
          this.emit("tip", tip);
        }
      }
    };
    this.slots = Array.from({ length: config.connections }, () => ({
      connection: null,
      connecting: null,
      failures: 0,
      retry: void 0
    }));
  }
  /** Opens every connection (in the background; failures go into backoff). */
  start() {
    for (const slot of this.slots) void this.connect(slot);
  }
  get connected() {
    return this.slots.some((s) => s.connection?.isOpen);
  }
  /**
   * The tip from the headers subscription, while one is live: with no open connection nobody
   * would tell us about a new block, so the tip is not vouched for.
   */
  tip() {
    return this.connected && this.latestTip ? { height: this.latestTip.height, hex: this.latestTip.hex } : null;
  }
  /** What the server said to server.version on an open connection, or null with none open. */
  serverVersion() {
    for (const slot of this.slots) {
      if (slot.connection?.isOpen && slot.connection.serverVersion)
        return slot.connection.serverVersion;
    }
    return null;
  }
  /** `signal`: the pool's, when it stops waiting (see ElectrumConnection.request). */
  async request(method, params, signal) {
    let connection = this.pick();
    if (!connection) {
      const connecting = this.slots.flatMap((s) => s.connecting ? [s.connecting] : []);
      if (connecting.length > 0) {
        await Promise.race(connecting);
        connection = this.pick();
      }
    }
    if (!connection) {
      return {
        ok: false,
        retryable: true,
        error: gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server is unreachable", {
          detail: `${this.name}: no open connection (reconnecting)`
        })
      };
    }
    if (signal?.aborted) {
      return {
        ok: false,
        retryable: false,
        error: gatewayError("UPSTREAM_TIMEOUT", "the Electrum server did not answer in time", {
          detail: `${this.name}: abandoned by the pool before it was sent`
        })
      };
    }
    return connection.request(method, params, signal);
  }
  /**
   * For /readyz: `server.ping` on an open connection (or one being opened). With none, the
   * request fails at once: the server is down without being asked.
   */
  async probe(timeoutMs) {
    const out = await within(this.request("server.ping", []), timeoutMs, null);
    if (out === null || !out.ok) return false;
    return !("error" in out.answer);
  }
  pick() {
    let best = null;
    for (const slot of this.slots) {
      const c = slot.connection;
      if (c?.isOpen && (!best || c.inFlight < best.inFlight)) best = c;
    }
    return best;
  }
  connect(slot) {
    if (this.closed || slot.connecting || slot.connection?.isOpen) {
      return slot.connecting ?? Promise.resolve();
    }
    clearTimeout(slot.retry);
    slot.connecting = ElectrumConnection.open({
      ...this.options,
      onClose: () => this.onClose(slot)
    }).then((out) => {
      slot.connecting = null;
      if (this.closed) {
        if (out.ok) out.connection.close();
        return;
      }
      if (out.ok) {
        slot.connection = out.connection;
        slot.failures = 0;
        this.emit("connected");
      } else {
        slot.failures += 1;
        this.emit("connect-failed", out.error);
        this.schedule(slot);
      }
    });
    return slot.connecting;
  }
  onClose(slot) {
    if (!slot.connection || slot.connection.isOpen) return;
    slot.connection = null;
    this.emit("disconnected");
    if (!this.closed) void this.connect(slot);
  }
  schedule(slot) {
    const delay = reconnectDelayMs(slot.failures, this.reconnectMaxMs);
    slot.retry = setTimeout(() => void this.connect(slot), delay);
    slot.retry.unref();
  }
  /** Immediate either way: requests in flight fail at once when their connection goes. */
  close() {
    this.closed = true;
    for (const slot of this.slots) {
      clearTimeout(slot.retry);
      slot.connection?.close();
      slot.connection = null;
    }
  }
};
function electrumServerName(config) {
  const url = new URL(config.url);
  return `${url.hostname}:${url.port}`;
}
function connectionOptions(config) {
  const url = new URL(config.url);
  const secure = url.protocol === "ssl:" || url.protocol === "tls:";
  return {
    name: electrumServerName(config),
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port),
    tls: secure ? {
      rejectUnauthorized: config.tlsVerify,
      ...config.caFile ? { ca: readFileSync2(config.caFile) } : {}
    } : null,
    timeoutMs: config.timeoutMs,
    connectTimeoutMs: config.connectTimeoutMs,
    lineBytesMax: config.lineBytesMax,
    inFlightMax: config.inFlightMax,
    pingIntervalMs: config.pingIntervalMs,
    clientName: "blockgate"
  };
}
function reconnectDelayMs(failures, maxMs) {
  const base = Math.min(BACKOFF_FIRST_MS * 2 ** (failures - 1), maxMs);
  return base / 2 + Math.random() * (base / 2);
}

// src/upstreams/electrum/scripthash-feed.ts
var SUBSCRIBE = "blockchain.scripthash.subscribe";
var UNSUBSCRIBE = "blockchain.scripthash.unsubscribe";
var FEED_PROTOCOL_RANGE = ["1.4", "1.4.2"];
var ScripthashFeed = class {
  constructor(configs, opts) {
    this.configs = configs;
    this.opts = opts;
  }
  configs;
  opts;
  /** Each script hash held, and who is told its statuses. */
  held = /* @__PURE__ */ new Map();
  /** Held, but the server refused to subscribe them (its own limit): not covered. */
  refused = /* @__PURE__ */ new Set();
  /** Held, their subscription not yet answered on this connection. */
  queue = [];
  inFlight = 0;
  /** Subscriptions sent at once: half the server's in-flight limit (pings and unsubscribes fit). */
  window = 1;
  connection = null;
  upstream = "";
  connecting = false;
  failures = 0;
  /** The server tried next (the configs' order, moving on when one fails or drops). */
  next = 0;
  retry;
  closed = false;
  /**
   * Tells `listener` this script hash's statuses from now on; returns what stops it, or null when
   * the process holds `subscriptionsMax` script hashes already (the caller reads it itself).
   */
  hold(scripthash2, listener) {
    let listeners = this.held.get(scripthash2);
    if (!listeners) {
      if (this.held.size >= this.opts.subscriptionsMax) return null;
      listeners = /* @__PURE__ */ new Set();
      this.held.set(scripthash2, listeners);
      this.queue.push(scripthash2);
      this.open();
      this.pump();
    }
    listeners.add(listener);
    return () => this.release(scripthash2, listener);
  }
  /**
   * Whether the server tells us of this script hash's changes now: held (or being subscribed) on
   * an open connection, and not refused. When not, its holders read it at each chain event.
   */
  covers(scripthash2) {
    return this.connection?.isOpen === true && this.held.has(scripthash2) && !this.refused.has(scripthash2);
  }
  /** Script hashes held upstream now (for tests and metrics). */
  get size() {
    return this.held.size;
  }
  close() {
    this.closed = true;
    clearTimeout(this.retry);
    this.connection?.close();
    this.connection = null;
  }
  release(scripthash2, listener) {
    const listeners = this.held.get(scripthash2);
    if (!listeners?.delete(listener) || listeners.size > 0) return;
    this.held.delete(scripthash2);
    this.refused.delete(scripthash2);
    if (this.connection?.isOpen) void this.connection.request(UNSUBSCRIBE, [scripthash2]);
  }
  open() {
    if (this.closed || this.connecting || this.connection?.isOpen) return;
    if (this.retry) return;
    const config = this.configs[this.next % this.configs.length];
    const options = connectionOptions(config);
    this.connecting = true;
    void ElectrumConnection.open({
      ...options,
      protocolRange: FEED_PROTOCOL_RANGE,
      onTip: () => {
      },
      onNotification: (method, params) => this.notified(method, params),
      onClose: () => this.dropped()
    }).then((out) => {
      this.connecting = false;
      if (this.closed) {
        if (out.ok) out.connection.close();
        return;
      }
      if (!out.ok) {
        this.failures += 1;
        this.next += 1;
        this.retry = setTimeout(
          () => {
            this.retry = void 0;
            this.open();
          },
          reconnectDelayMs(this.failures, config.reconnectMaxMs)
        );
        this.retry.unref();
        return;
      }
      this.failures = 0;
      this.connection = out.connection;
      this.upstream = options.name;
      this.window = Math.max(1, Math.floor(config.inFlightMax / 2));
      this.refused.clear();
      this.queue.splice(0, this.queue.length, ...this.held.keys());
      this.inFlight = 0;
      this.pump();
    });
  }
  /** The connection dropped: what it held is read per chain event until another is open. */
  dropped() {
    if (this.closed || !this.connection) return;
    this.connection = null;
    this.opts.warn?.("Electrum subscription connection lost", { upstream: this.upstream });
    this.next += 1;
    if (this.held.size > 0) this.open();
  }
  /**
   * Sends the queued subscriptions, at most half the connection's in-flight limit at once (a
   * reconnection re-subscribes thousands), each answer told to the script hash's listeners.
   */
  pump() {
    const connection = this.connection;
    if (!connection?.isOpen) return;
    while (this.inFlight < this.window && this.queue.length > 0) {
      const scripthash2 = this.queue.shift();
      if (!this.held.has(scripthash2)) continue;
      this.inFlight += 1;
      void connection.request(SUBSCRIBE, [scripthash2]).then((out) => {
        if (connection !== this.connection) return;
        this.inFlight -= 1;
        if (out.ok && "result" in out.answer) this.tell(scripthash2, out.answer.result);
        else {
          this.refused.add(scripthash2);
          this.opts.warn?.("an Electrum script hash subscription failed", {
            upstream: this.upstream,
            error: out.ok ? stringifyJson(out.answer) : out.error.message
          });
        }
        this.pump();
      });
    }
  }
  notified(method, params) {
    const [scripthash2, status] = params;
    if (method !== SUBSCRIBE || typeof scripthash2 !== "string") return;
    this.tell(scripthash2, status);
  }
  tell(scripthash2, status) {
    if (status !== null && typeof status !== "string") return;
    for (const listener of this.held.get(scripthash2) ?? []) listener(status, this.upstream);
  }
};

// src/upstreams/electrum/pool.ts
var SHAREABLE_METHODS = /* @__PURE__ */ new Set([
  "blockchain.transaction.get",
  "blockchain.transaction.get_merkle",
  "blockchain.transaction.id_from_pos",
  "blockchain.block.header",
  "blockchain.block.headers",
  "blockchain.scripthash.get_history",
  "blockchain.scripthash.get_balance",
  "blockchain.scripthash.get_mempool",
  "blockchain.scripthash.listunspent",
  "blockchain.estimatefee",
  "blockchain.relayfee",
  "mempool.get_fee_histogram"
]);
var READ_METHODS2 = /* @__PURE__ */ new Set([
  ...SHAREABLE_METHODS,
  "server.ping",
  "server.features",
  "server.banner",
  "blockchain.headers.subscribe"
]);
var ElectrumPool = class {
  upstreams;
  pool;
  /** Identical look-ups in flight share one trip (see SHAREABLE_METHODS). */
  shared;
  /** Script-hash subscriptions of the network's socket sessions, on a connection of their own. */
  scripthashes;
  constructor(configs, opts = {}) {
    this.upstreams = configs.map((c) => new ElectrumUpstream(c));
    this.pool = new FailoverPool(this.upstreams, {
      policy: opts.policy,
      observer: opts.observer,
      budgetMs: Math.max(...configs.map((c) => c.timeoutMs)),
      what: "the Electrum server"
    });
    for (const u of this.upstreams) u.on("connected", () => this.pool.recovered(u));
    this.shared = new SharedTrips(opts.onShared);
    this.scripthashes = new ScripthashFeed(configs, {
      subscriptionsMax: opts.upstreamSubscriptionsMax ?? 1e4,
      warn: opts.warn
    });
  }
  start() {
    for (const u of this.upstreams) u.start();
  }
  request(method, params) {
    const trip = () => this.pool.run(
      async (upstream, signal) => {
        const out = await upstream.request(method, params, signal);
        return out.ok ? { ok: true, answer: out.answer } : out;
      },
      { idempotent: READ_METHODS2.has(method) }
    );
    if (!SHAREABLE_METHODS.has(method)) return trip();
    return this.shared.run(`${method} ${stringifyJson(params)}`, trip);
  }
  /** What the first server with an open connection said to server.version, or null. */
  serverVersion() {
    for (const u of this.upstreams) {
      const version = u.serverVersion();
      if (version) return { ...version, upstream: u.name };
    }
    return null;
  }
  /** The highest tip any live headers subscription reports, or null when none is live. */
  tip() {
    let best = null;
    for (const u of this.upstreams) {
      const tip = u.tip();
      if (tip && (!best || tip.height > best.height)) best = tip;
    }
    return best;
  }
  /**
   * Calls `fn` with each new tip a server's headers subscription announces (the chain follower
   * looks at once rather than at its next poll); returns the way to stop.
   */
  onTip(fn) {
    for (const u of this.upstreams) u.on("tip", fn);
    return () => {
      for (const u of this.upstreams) u.off("tip", fn);
    };
  }
  /** For /readyz: each member up or down (see FailoverPool.health). */
  health(opts) {
    return this.pool.health(opts);
  }
  close(abort = false) {
    this.scripthashes.close();
    return this.pool.close(abort);
  }
};

// src/upstreams/indexer/client.ts
import { Pool as Pool2 } from "undici";
var RESPONSE_BYTES_MAX2 = 64 * 1024 * 1024;
var IndexerClient = class {
  constructor(config) {
    this.config = config;
    const url = new URL(config.url);
    this.name = `${url.hostname}:${url.port || (url.protocol === "https:" ? 443 : 80)}`;
    this.path = `${url.pathname}${url.search}` || "/";
    this.pool = new Pool2(url.origin, {
      connections: config.connections,
      keepAliveTimeout: 3e4,
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs
    });
  }
  config;
  name;
  pool;
  path;
  /**
   * One query. `parse` reads the answer's text: lossless by default (the graph route relays
   * numbers as they came); a caller that turns every number into a double anyway may pass a plain
   * parser, which is several times faster on a list of rows.
   */
  async query(request2, outer, parse = parseJson) {
    const headers = { "content-type": "application/json" };
    if (this.config.adminSecret !== void 0) {
      headers["x-hasura-admin-secret"] = this.config.adminSecret;
    }
    const timeout = deadline(this.config.timeoutMs, outer);
    let status;
    let text;
    try {
      const res = await this.pool.request({
        path: this.path,
        method: "POST",
        headers,
        body: stringifyJson({
          query: request2.query,
          variables: request2.variables,
          ...request2.operationName !== void 0 ? { operationName: request2.operationName } : {}
        }),
        signal: undiciSignal(timeout.signal)
      });
      status = res.statusCode;
      text = await readLimited(res.body, RESPONSE_BYTES_MAX2);
    } catch (err) {
      return transportFailure(err, this.name, "the indexer");
    } finally {
      timeout.clear();
    }
    if (status !== 200) {
      return {
        ok: false,
        retryable: status >= 500,
        error: gatewayError("UPSTREAM_UNAVAILABLE", "the indexer is unavailable", {
          detail: `${this.name} answered HTTP ${status}: ${text.slice(0, 200)}`
        })
      };
    }
    return this.read(text, parse);
  }
  /** For /readyz: the indexer answers `{ __typename }` (no table is read). */
  async probe(timeoutMs) {
    const out = await withDeadline(
      timeoutMs,
      (signal) => this.query({ query: "{ __typename }", variables: {}, operationName: void 0 }, signal)
    );
    return out.ok;
  }
  read(text, parse) {
    const bad = (why, upstreamCode) => ({
      ok: false,
      retryable: false,
      error: gatewayError("UPSTREAM_BAD_RESPONSE", "the indexer could not answer this query", {
        detail: `${this.name}: ${why}`,
        // The code is shown (a client can report it); the indexer's words stay in our logs.
        data: upstreamCode === void 0 ? {} : { upstreamCode },
        ...upstreamCode === void 0 ? {} : { upstreamCode }
      })
    });
    let body;
    try {
      body = parse(text);
    } catch {
      return bad("not JSON");
    }
    if (!isJsonObject(body)) return bad("answer is not an object");
    const errors2 = body.errors;
    if (Array.isArray(errors2) && errors2.length > 0) {
      const first = errors2[0];
      const message = isJsonObject(first) && typeof first.message === "string" ? first.message : "";
      const ext = isJsonObject(first) && isJsonObject(first.extensions) ? first.extensions : {};
      const code = typeof ext.code === "string" ? ext.code : "unknown";
      if (code === "access-denied") return refused(this.name, message);
      return bad(`Hasura ${code} at ${String(ext.path ?? "$")}: ${message}`, code);
    }
    if (!isJsonObject(body.data)) return bad("no data");
    return { ok: true, data: body.data };
  }
  async close(abort = false) {
    await (abort ? this.pool.destroy() : this.pool.close());
  }
};
function refused(name, message) {
  const error = gatewayError("UPSTREAM_UNAVAILABLE", "the indexer is unavailable", {
    detail: `${name} refused the admin secret: ${message}`
  });
  return { ok: false, retryable: true, error };
}

// src/upstreams/indexer/pool.ts
var IndexerPool = class {
  pool;
  /** Identical queries in flight share one trip (../shared-trips.ts). */
  shared;
  constructor(configs, opts = {}) {
    this.pool = new FailoverPool(
      configs.map((c) => new IndexerClient(c)),
      {
        policy: opts.policy,
        observer: opts.observer,
        budgetMs: Math.max(...configs.map((c) => c.timeoutMs)),
        what: "the indexer"
      }
    );
    this.shared = new SharedTrips(opts.onShared);
  }
  /**
   * One query; `deadline` (a signal, or ms from when the trip starts) bounds the whole attempt,
   * failover included; `parse` reads the answer
   * (lossless unless the caller says otherwise: see IndexerClient.query). An identical query
   * (same text, variables, operation name and reader) already in flight is joined instead of sent
   * again: the indexer only reads, so both callers get the one answer. A joiner waits under the
   * first caller's deadline, which every caller of a route sets alike (graph.queryTimeoutMs) and
   * which started earlier, so it never waits longer than its own would have let it.
   */
  query(request2, deadline2, parse) {
    const reader = parse === void 0 ? 0 : readerId(parse);
    const key = `${reader}\0${request2.operationName ?? ""}\0${request2.query}\0${stringifyJson(request2.variables)}`;
    const trip = (signal) => this.pool.run((client, attempt) => client.query(request2, attempt, parse), {
      idempotent: true,
      signal
    });
    return this.shared.run(
      key,
      () => typeof deadline2 === "number" ? withDeadline(deadline2, trip) : trip(deadline2)
    );
  }
  /** For /readyz: each member up or down (see FailoverPool.health). */
  health(opts) {
    return this.pool.health(opts);
  }
  close(abort = false) {
    return this.pool.close(abort);
  }
};
var readers = /* @__PURE__ */ new WeakMap();
var readersSeen = 0;
function readerId(parse) {
  let id = readers.get(parse);
  if (id === void 0) {
    readersSeen += 1;
    id = readersSeen;
    readers.set(parse, id);
  }
  return id;
}

// src/webhooks/delivery.ts
import { Agent, request } from "undici";

// src/webhooks/charge-mark.ts
var chargeKey = (messageId) => `webhook:${messageId}`;
async function chargedBefore(db, accountId, messageId) {
  const { rows } = await db.query(
    "SELECT settled_at IS NOT NULL AS settled FROM idempotency_keys WHERE account_id = $1 AND key = $2",
    [accountId, chargeKey(messageId)]
  );
  return rows[0]?.settled === true;
}
async function openMark(db, accountId, messageId, processId) {
  await db.query(
    `INSERT INTO idempotency_keys(account_id, key, request_hash, process_id)
     VALUES ($1, $2, sha256(convert_to($2, 'UTF8')), $3)
     ON CONFLICT (account_id, key) DO UPDATE SET process_id = $3
     WHERE idempotency_keys.settled_at IS NULL`,
    [accountId, chargeKey(messageId), processId]
  );
}
async function closeMark(db, accountId, messageId) {
  await db.query("DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2", [
    accountId,
    chargeKey(messageId)
  ]);
}

// src/webhooks/queue.ts
import PgBoss from "pg-boss";
var DELIVERIES = "webhook-delivery";
function bossDb(db) {
  return {
    executeSql: async (text, values) => {
      if (db.exec && (values ?? []).length === 0 && /^\s*BEGIN;/.test(text)) {
        await db.exec(text);
        return { rows: [] };
      }
      return db.query(text, values ?? []);
    }
  };
}
async function openQueue(db) {
  const { rows } = await db.query("SELECT current_schema() AS schema");
  const schema = `${rows[0]?.schema ?? "public"}_jobs`;
  for (let attempt = 1; ; attempt++) {
    const boss = new PgBoss({
      db: bossDb({ query: (sql, params) => db.query(sql, params), exec: (sql) => db.exec(sql) }),
      schema,
      // Cron is not used; maintenance (expiring stuck jobs, archiving) is.
      schedule: false
    });
    try {
      await boss.start();
      await boss.createQueue(DELIVERIES, { name: DELIVERIES, policy: "standard" });
      return boss;
    } catch (err) {
      await boss.stop({ graceful: false, close: false, wait: true }).catch(() => {
      });
      const deadlock = err.code === "40P01";
      if (!lostCreateRace(err) && !deadlock || attempt >= 3) throw err;
    }
  }
}

// src/webhooks/delivery.ts
var Deliveries = class {
  constructor(app, boss, policy, config, wake) {
    this.app = app;
    this.boss = boss;
    this.policy = policy;
    this.config = config;
    this.wake = wake;
    this.agent = new Agent({
      connect: { lookup: policy.lookup, timeout: config.timeoutMs },
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
      // A webhook endpoint is called now and then: no connection is kept for it.
      pipelining: 0
    });
  }
  app;
  boss;
  policy;
  config;
  wake;
  /** Connections through the target policy's lookup: a name resolving inward is refused. */
  agent;
  async close() {
    await this.agent.close();
  }
  /**
   * pg-boss's handler: a batch of up to `webhooks.concurrency` jobs, attempted together (one
   * attempt each). A full batch asks for the next at once rather than after the worker's poll
   * interval: a block for many endpoints is a queue to empty. A throw (the database) fails the
   * batch's jobs, which pg-boss runs again.
   */
  work = async (jobs) => {
    await Promise.all(jobs.map((job) => this.attempt(job.data.messageId)));
    if (jobs.length >= this.config.concurrency) this.wake();
  };
  async attempt(messageId) {
    const db = this.app.db;
    const message = await pendingMessage(db, messageId);
    if (!message || message.status !== "pending") return;
    const { endpoint } = message;
    const startedAt = Date.now();
    const over = (error) => this.record(db, {
      messageId,
      httpStatus: null,
      error,
      latencyMs: 0,
      result: "refused",
      final: true
    });
    if (endpoint.endedAt) return over(`the endpoint ended: ${endpoint.endedWhy ?? "deleted"}`);
    const owner = await liveOwner(db, endpoint.tokenId);
    if (!owner) {
      await endEndpoint(db, endpoint.id, "its token was revoked or expired");
      return over("the endpoint's token was revoked or expired");
    }
    const literal = this.policy.literalRefusal(new URL(endpoint.url));
    if (literal) return over(literal);
    const attempt = message.attempts + 1;
    if (await chargedBefore(db, owner.accountId, messageId)) {
      await this.record(db, {
        messageId,
        httpStatus: null,
        error: "accepted by an earlier attempt (its record was lost): not sent again",
        latencyMs: 0,
        result: "delivered"
      });
      return closeMark(db, owner.accountId, messageId);
    }
    await openMark(db, owner.accountId, messageId, this.app.credits.opts.processId);
    let sent = null;
    const cost = await meter(
      {
        app: this.app,
        requestId: `${messageId}.${attempt}`,
        owner,
        backend: "gateway",
        backendSegment: "webhook",
        network: endpoint.network,
        startedAt,
        // The settle marks the message charged in the charge's own transaction (charge-mark.ts).
        idempotency: { key: chargeKey(messageId), rerun: false }
      },
      {
        calls: [
          {
            kind: "priced",
            method: endpoint.event,
            price: eventPrice(this.app.config, endpoint.event, endpoint.network)
          }
        ],
        execute: async () => {
          sent = await this.post(message);
          const s = sent;
          return {
            value: null,
            outcomes: [
              s.ok ? { kind: "answered", outcome: "ok", httpStatus: s.status } : {
                kind: "failed",
                error: gatewayError(
                  s.status === null ? "UPSTREAM_UNAVAILABLE" : "UPSTREAM_ERROR",
                  `webhook endpoint: ${s.error}`
                )
              }
            ]
          };
        }
      }
    );
    const latencyMs = Date.now() - startedAt;
    const result = sent;
    try {
      await this.conclude(message, cost, result, latencyMs);
    } finally {
      await closeMark(db, owner.accountId, messageId);
    }
  }
  /** Records what the attempt came to: delivered, or the next attempt queued, or failed. */
  async conclude(message, cost, result, latencyMs) {
    const db = this.app.db;
    const messageId = message.id;
    if (cost.ok && result?.ok) {
      await this.record(db, {
        messageId,
        httpStatus: result.status,
        error: null,
        latencyMs,
        result: "delivered",
        auditId: cost.auditIds[0] ?? null
      });
      return;
    }
    const error = cost.ok ? result?.ok === false ? result.error : "not sent" : cost.error.message;
    await this.retryOrFail(message, {
      httpStatus: result && !result.ok ? result.status : null,
      error,
      latencyMs: cost.ok ? latencyMs : 0,
      refused: !cost.ok
    });
  }
  async retryOrFail(message, a) {
    const attempts = message.attempts + 1;
    const delay = Math.min(
      this.config.retryDelayMs * 2 ** Math.min(attempts - 1, 30),
      this.config.retryDelayMaxMs
    );
    const at = Date.now() + delay;
    const final = at - message.createdAt.getTime() > this.config.retryWindowMs;
    await this.app.db.transaction(async (tx) => {
      await this.record(tx, {
        messageId: message.id,
        httpStatus: a.httpStatus,
        error: a.error,
        latencyMs: a.latencyMs,
        result: a.refused ? "refused" : "retry",
        final
      });
      if (!final) {
        await this.boss.send(
          DELIVERIES,
          { messageId: message.id },
          { startAfter: new Date(at), db: bossDb(tx) }
        );
      }
    });
    if (!final && delay < this.config.pollMs) setTimeout(this.wake, delay + 1).unref();
  }
  /** Records an attempt (store) and counts it (metrics). */
  async record(db, a) {
    const result = await recordAttempt(db, a);
    this.app.metrics.webhookAttempts.inc({ result });
    if (a.result !== "refused") this.app.metrics.webhookLatency.observe(a.latencyMs / 1e3);
  }
  async post(message) {
    const headers = {
      "content-type": "application/json",
      "user-agent": "blockgate-webhooks",
      ...signedHeaders(message.secret, message.id, message.payload, /* @__PURE__ */ new Date())
    };
    try {
      const answer3 = await request(message.endpoint.url, {
        method: "POST",
        headers,
        body: message.payload,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.config.timeoutMs)
      });
      await answer3.body.dump({ limit: 64 * 1024 }).catch(() => {
      });
      if (answer3.statusCode >= 200 && answer3.statusCode < 300) {
        return { ok: true, status: answer3.statusCode };
      }
      return { ok: false, status: answer3.statusCode, error: `HTTP ${answer3.statusCode}` };
    } catch (err) {
      const e = err;
      return { ok: false, status: null, error: e.code ? `${e.code}: ${e.message}` : e.message };
    }
  }
};

// src/webhooks/dispatcher.ts
import { randomUUID as randomUUID4 } from "node:crypto";

// src/webhooks/sources.ts
function sourceFor(app, endpoint) {
  const pool = app.nodes.get(endpoint.network);
  const { args } = endpoint;
  switch (endpoint.event) {
    case "newBlock":
      return newBlocks();
    case "transactionConfirmations":
      return pool ? confirmationsOf(pool, args.txid ?? "", args.until ?? 6) : null;
    case "mempoolFees":
      return pool ? feesOf(pool, args.targets ?? [1, 6, 144]) : null;
    case "addressActivity":
      return pool ? addressActivityOf(pool, args.address ?? "", endpoint.network) : null;
    default:
      return null;
  }
}

// src/webhooks/dispatcher.ts
var Dispatcher = class {
  constructor(app, boss, wake) {
    this.app = app;
    this.boss = boss;
    this.wake = wake;
  }
  app;
  boss;
  wake;
  /** Endpoint id → its source (which remembers what it told last, e.g. a confirmation count). */
  sources = /* @__PURE__ */ new Map();
  /** Each network's events are dispatched one after another, in order. */
  queues = /* @__PURE__ */ new Map();
  stops = [];
  start() {
    this.stops.push(
      this.app.events.observe((event) => {
        const before = this.queues.get(event.network) ?? Promise.resolve();
        this.queues.set(
          event.network,
          before.then(() => this.dispatch(event))
        );
      })
    );
  }
  /** Stops hearing events and waits for the dispatches under way. */
  async close() {
    for (const stop of this.stops.splice(0)) stop();
    await Promise.all(this.queues.values());
  }
  async dispatch(event) {
    try {
      if (!await this.app.events.leading()) return;
      const endpoints = await liveEndpoints(this.app.db, event.network);
      const live = new Set(endpoints.map((e) => e.id));
      for (const id of this.sources.keys()) if (!live.has(id)) this.sources.delete(id);
      const told = (await Promise.all(endpoints.map((e) => this.tell(e, event)))).filter(
        (m) => m !== null
      );
      if (told.length === 0) return;
      const queued = await this.app.db.transaction(async (tx) => {
        const jobs = [];
        for (const m of told) {
          const id = `msg_${randomUUID4().replaceAll("-", "")}`;
          const fresh = { id, endpointId: m.endpoint.id, eventId: event.id, payload: m.payload };
          if (await createMessage(tx, fresh)) {
            jobs.push({ name: DELIVERIES, data: { messageId: id } });
          }
          if (m.last) await endEndpoint(tx, m.endpoint.id, "completed");
        }
        if (jobs.length > 0) await this.boss.insert(jobs, { db: bossDb(tx) });
        return jobs.length;
      });
      for (const m of told) if (m.last) this.sources.delete(m.endpoint.id);
      if (queued > 0) this.wake();
    } catch (err) {
      this.app.log.warn({ err, network: event.network }, "webhooks: an event was not dispatched");
    }
  }
  /** What `endpoint`'s source makes of the event: its message's payload, or null for nothing. */
  async tell(endpoint, event) {
    let source = this.sources.get(endpoint.id);
    if (!source) {
      const made = sourceFor(this.app, endpoint);
      if (!made) return null;
      source = made;
      this.sources.set(endpoint.id, source);
    }
    let value;
    try {
      value = await source.translate(event);
    } catch (err) {
      this.app.log.warn({ err, endpoint: endpoint.id }, "webhooks: an endpoint's source failed");
      return null;
    }
    if (value === null) return null;
    const payload = JSON.stringify(
      {
        type: endpoint.event,
        timestamp: (/* @__PURE__ */ new Date()).toISOString(),
        data: { network: endpoint.network, ...dataOf(value) }
      },
      satoshis
    );
    return { endpoint, payload, last: source.last?.(value) ?? false };
  }
};
function satoshis(_key, value) {
  return typeof value === "bigint" ? Number(value) : value;
}
function dataOf(value) {
  if (typeof value !== "object" || value === null) return { value };
  const { id: _id, network: _network, ...rest } = value;
  return rest;
}

// src/webhooks/webhooks.ts
var Webhooks = class {
  constructor(config, log) {
    this.config = config;
    this.log = log;
  }
  config;
  log;
  boss = null;
  dispatcher = null;
  deliveries = null;
  async start(app) {
    const boss = await openQueue(app.db);
    boss.on("error", (err) => this.log.warn({ err }, "webhooks: the job queue failed"));
    this.boss = boss;
    let worker = "";
    const wake = () => {
      if (worker) boss.notifyWorker(worker);
    };
    const deliveries = new Deliveries(app, boss, app.webhookTargets, this.config, wake);
    this.deliveries = deliveries;
    worker = await boss.work(
      DELIVERIES,
      { pollingIntervalSeconds: this.config.pollMs / 1e3, batchSize: this.config.concurrency },
      deliveries.work
    );
    this.dispatcher = new Dispatcher(app, boss, wake);
    this.dispatcher.start();
  }
  /** One attempt at a message now, outside the queue (tests; an operator's manual retry). */
  async attempt(messageId) {
    await this.deliveries?.attempt(messageId);
  }
  /**
   * Stops dispatching and taking jobs; waits up to `waitMs` for attempts under way (an attempt
   * cut short is sent again once its job expires: the receiver drops the repeat by webhook-id).
   */
  async close(waitMs) {
    await this.dispatcher?.close();
    await this.boss?.stop({
      graceful: true,
      wait: true,
      close: false,
      timeout: Math.max(waitMs, 1)
    });
    await this.deliveries?.close();
  }
};

// src/app/readiness.ts
function databaseCheck(db) {
  return new CachedCheck(async () => {
    await db.query("SELECT 1");
    return true;
  });
}
async function readiness(app) {
  const draining = { status: 503, body: { status: "draining" } };
  if (app.draining) return draining;
  const opts = app.config.readiness;
  const each = async (pools2) => Object.fromEntries(
    await Promise.all(
      [...pools2].map(async ([network, pool]) => [network, await pool.health(opts)])
    )
  );
  const [databaseUp, node, electrum, graph] = await Promise.all([
    app.databaseCheck.get(opts.timeoutMs, opts.cacheMs),
    each(app.nodes),
    each(app.electrum),
    each(app.indexers)
  ]);
  if (app.draining) return draining;
  const main2 = (n2) => app.nodes.has(n2) ? node[n2] : electrum[n2];
  const nodeless = app.config.networks.some((n2) => (main2(n2)?.status ?? "down") === "down");
  const pools = [node, electrum, graph].flatMap((byNetwork) => Object.values(byNetwork));
  const status = !databaseUp || nodeless ? "down" : pools.every((p) => p.status === "healthy") ? "ready" : "degraded";
  const body = {
    status,
    database: { status: databaseUp ? "up" : "down" },
    upstreams: { node, electrum, graph }
  };
  return { status: status === "down" ? 503 : 200, body };
}

// src/app/server.ts
import websocket from "@fastify/websocket";

// src/http/framework.ts
import { randomUUID as randomUUID5 } from "node:crypto";
import { METHODS } from "node:http";
import Fastify from "fastify";
var ALL_METHODS = METHODS.filter((m) => m !== "CONNECT");
function createFramework(options) {
  const http = Fastify({
    // Our own request line (src/app/server.ts) logs the path with the token's hint only; the
    // framework's request logging and serializers would log the URL, token included.
    logger: false,
    requestTimeout: options.requestTimeoutMs,
    // node enforces headersTimeout and requestTimeout only when it checks its connections, every
    // 30 s by default: a 10 s header bound held a trickling client for up to 40 s. A quarter of
    // the header bound (within 0.1–1 s) keeps each bound within a quarter of itself.
    http: {
      connectionsCheckingInterval: Math.max(
        100,
        Math.min(1e3, Math.floor(options.headersTimeoutMs / 4))
      )
    },
    // node's default is 5 s (Fastify's 72 s): idle keep-alive connections are a slow client's
    // cheapest way to hold a socket.
    keepAliveTimeout: options.keepAliveTimeoutMs,
    bodyLimit: options.bodyBytesMax,
    // Routing sees the canonical path (canonicalUrl): the same segments the old splitting saw.
    rewriteUrl: (req) => canonicalUrl(req.url ?? "/"),
    // Tokens are path parameters; a long one is an unknown token (401), not an unknown route.
    routerOptions: { maxParamLength: 16 * 1024 },
    // HEAD is a method a route takes or refuses (405), not GET without the body.
    exposeHeadRoutes: false,
    genReqId: () => randomUUID5()
  });
  for (const method of ALL_METHODS) {
    if (!http.supportedMethods.includes(method)) http.addHttpMethod(method);
  }
  http.server.headersTimeout = options.headersTimeoutMs;
  http.server.removeAllListeners("clientError");
  http.removeAllContentTypeParsers();
  http.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));
  http.addHook("onRequest", (request2, _reply, done) => {
    if (request2.raw.headers["content-type"] !== void 0) {
      request2.headers = { "content-type": void 0 };
    }
    done();
  });
  return http;
}
function notFoundBeforeBody(http, notFound) {
  http.setNotFoundHandler(notFound);
  http.addHook("onRequest", (request2, reply3, done) => {
    if (request2.is404) notFound(request2, reply3).catch(done);
    else done();
  });
}
function withoutBodies(http, routes) {
  http.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, _payload, done) => done(null, void 0));
    routes(scope);
  });
}
function canonicalUrl(url) {
  if (PLAIN_PATH.test(url)) return url;
  let parsed2;
  try {
    parsed2 = url.startsWith("/") ? new URL(`http://gateway${url}`) : new URL(url, "http://gateway");
  } catch {
    return url.startsWith("/") ? url : `/${url}`;
  }
  let path = "";
  for (const part of parsed2.pathname.split("/")) {
    if (part !== "") path += `/${part.includes("%") ? part.replaceAll("%", "%25") : part}`;
  }
  return (path || "/") + parsed2.search;
}
var PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/;
function pathParts(request2) {
  const url = request2.url;
  const query = url.indexOf("?");
  const path = query === -1 ? url : url.slice(0, query);
  return path === "/" ? [] : path.slice(1).split("/");
}
function bodyText(request2) {
  return typeof request2.body === "string" ? request2.body : "";
}
function isTooLarge(err) {
  return err instanceof Error && "code" in err && err.code === "FST_ERR_CTP_BODY_TOO_LARGE";
}

// src/admin/routes.ts
var CLI_BODY_BYTES_MAX = 64 * 1024;
var DEVNET_ACTIONS = ["mine", "reorg"];
function operatorRoutes(http, app) {
  const gate = (request2, reply3) => operatorGate(app, request2, reply3);
  http.route({
    method: ALL_METHODS,
    url: "/metrics",
    onRequest: gate,
    handler: async (_request, reply3) => sendText(reply3, 200, app.metrics.registry.contentType, await app.metrics.registry.metrics())
  });
  http.route({
    method: "POST",
    url: "/admin/cli",
    onRequest: gate,
    bodyLimit: CLI_BODY_BYTES_MAX,
    // A body over the limit is answered 413 at the edge (server.ts), as on every other route.
    handler: async (request2, reply3) => runCli(app, bodyText(request2), reply3)
  });
  for (const action of DEVNET_ACTIONS) {
    http.route({
      method: "POST",
      url: `/admin/devnet/${action}`,
      onRequest: gate,
      bodyLimit: CLI_BODY_BYTES_MAX,
      handler: async (request2, reply3) => runDevnetAction(app, action, bodyText(request2), reply3)
    });
  }
  for (const url of ["/admin", "/admin/*"]) {
    http.route({
      method: ALL_METHODS,
      url,
      onRequest: gate,
      handler: async (_r, reply3) => noSuchRoute(reply3)
    });
  }
}
async function operatorGate(app, request2, reply3) {
  const parts = pathParts(request2);
  const header = request2.headers.authorization;
  const isCli = parts.length === 2 && parts[0] === "admin" && parts[1] === "cli";
  const isDevnet = parts.length === 3 && parts[0] === "admin" && parts[1] === "devnet" && DEVNET_ACTIONS.includes(parts[2]) && runsDevnet(app);
  const operator = operatorAuthorized(header, app.config.operator.tokenSha256);
  const cliSecret = (isCli || isDevnet) && app.adminSecret !== void 0 && adminAuthorized(header, app.adminSecret);
  if (!operator && !cliSecret) {
    app.log.warn({ route: parts[0] }, "operator credential missing or refused");
    return sendReply(reply3, {
      ...plainFailure(gatewayError("UNAUTHENTICATED", "operator credential required")),
      headers: { "www-authenticate": "Bearer" }
    });
  }
  if (parts.length === 1 && parts[0] === "metrics") {
    return request2.method === "GET" ? void 0 : methodNotAllowed(reply3, "GET");
  }
  if (isCli && app.adminSecret !== void 0 || isDevnet) {
    return request2.method === "POST" ? void 0 : methodNotAllowed(reply3, "POST");
  }
  return noSuchRoute(reply3);
}
function noSuchRoute(reply3) {
  return sendReply(reply3, plainFailure(gatewayError("ROUTE_NOT_FOUND", "no such route")));
}
async function runCli(app, body, reply3) {
  let argv;
  try {
    const parsed2 = JSON.parse(body);
    argv = Array.isArray(parsed2.argv) ? parsed2.argv.map(String) : [];
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return notACommand(reply3);
  }
  return sendReply(reply3, { status: 200, body: await runDbCommand(app.db, argv, app.config) });
}
function notACommand(reply3) {
  return sendReply(reply3, plainFailure(gatewayError("BAD_REQUEST", 'expected {"argv": [...]}')));
}
function methodNotAllowed(reply3, allow) {
  return sendReply(reply3, {
    ...plainFailure(gatewayError("METHOD_NOT_ALLOWED", `use ${allow}`)),
    headers: { allow }
  });
}

// src/auth/token-source.ts
var BEARER_RE = /^bearer +(\S+) *$/i;
function presentedToken(pathToken, headers) {
  if (pathToken !== void 0) return { token: pathToken, inPath: true };
  const apiKey = headers["x-api-key"];
  const key = Array.isArray(apiKey) ? apiKey[0] : apiKey;
  if (key !== void 0) return { token: key.trim(), inPath: false };
  const bearer = BEARER_RE.exec(headers.authorization ?? "");
  return { token: bearer?.[1] ?? "", inPath: false };
}

// src/jsonrpc/core-params.ts
var RPC_MISC_ERROR = -1;
var RPC_TYPE_ERROR = -3;
var RPC_INVALID_ADDRESS_OR_KEY = -5;
var RPC_INVALID_PARAMETER = -8;
function uvTypeName(value) {
  if (value === null || value === void 0) return "null";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "string") return "string";
  if (isJsonNumber(value)) return "number";
  return Array.isArray(value) ? "array" : "object";
}
function checkHash(value, name) {
  if (value.length !== 64) {
    return {
      code: RPC_INVALID_PARAMETER,
      message: `${name} must be of length 64 (not ${value.length}, for '${value}')`
    };
  }
  if (!/^[0-9a-fA-F]{64}$/.test(value)) {
    return {
      code: RPC_INVALID_PARAMETER,
      message: `${name} must be hexadecimal string (not '${value}')`
    };
  }
  return null;
}
function writeIndented4(entries) {
  const lines = entries.map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  return `{
${lines.join(",\n")}
}`;
}
function namedToPositional(params, names) {
  const out = [];
  let last = -1;
  const seen = /* @__PURE__ */ new Set();
  for (const [key, value] of Object.entries(params)) {
    const position = names.findIndex((n2) => n2.split("|").includes(key));
    if (position < 0)
      return { code: RPC_INVALID_PARAMETER, message: `Unknown named parameter ${key}` };
    if (seen.has(position)) {
      return { code: RPC_INVALID_PARAMETER, message: `Parameter ${key} specified multiple times` };
    }
    seen.add(position);
    out[position] = value;
    last = Math.max(last, position);
  }
  for (let i = 0; i <= last; i++) if (out[i] === void 0) out[i] = null;
  return out;
}
function asPositional(params, names) {
  return isJsonObject(params) ? namedToPositional(params, names) : params;
}
function isRpcError(value) {
  return isJsonObject(value) && typeof value.code === "number";
}

// src/jsonrpc/core-args.ts
function expectedType(type) {
  switch (type) {
    case "str":
    case "hex":
      return "string";
    case "num":
      return "number";
    case "bool":
      return "bool";
    case "arr":
      return "array";
    case "amount":
      return void 0;
  }
}
function checkCoreArgs(spec, raw) {
  const positional = asPositional(
    raw,
    spec.args.map((a) => a.names)
  );
  if (isRpcError(positional)) return { ok: false, error: positional };
  const params = positional;
  let required = 0;
  spec.args.forEach((a, i) => {
    if (!a.optional) required = i + 1;
  });
  if (params.length < required || params.length > spec.args.length) {
    return {
      ok: false,
      error: {
        code: RPC_MISC_ERROR,
        message: `${spec.usage}
(blockgate gives Core's usage line only: pass ${required === spec.args.length ? required : `${required} to ${spec.args.length}`} parameter${spec.args.length === 1 ? "" : "s"})`
      }
    };
  }
  const mismatches = [];
  spec.args.forEach((arg, i) => {
    const value = params[i] ?? null;
    if (arg.anyType || arg.optional && value === null) return;
    const expected = expectedType(arg.type);
    const actual = uvTypeName(value);
    if (expected !== void 0 && expected !== actual) {
      mismatches.push([
        `Position ${i + 1} (${arg.names})`,
        `JSON value of type ${actual} is not of expected type ${expected}`
      ]);
    }
  });
  if (mismatches.length > 0) {
    return {
      ok: false,
      error: { code: RPC_TYPE_ERROR, message: `Wrong type passed:
${writeIndented4(mismatches)}` }
    };
  }
  const own = spec.check?.(params);
  if (own && "code" in own) return { ok: false, error: own };
  return own?.variant ? { ok: true, params, variant: own.variant } : { ok: true, params };
}
function hashParam(value, name) {
  return typeof value === "string" ? checkHash(value, name) ?? void 0 : void 0;
}
function parseVerbosity(value, fallback, allowBool) {
  if (value === null || value === void 0) return fallback;
  if (typeof value === "boolean") {
    if (!allowBool) {
      return { code: RPC_TYPE_ERROR, message: "Verbosity was boolean but only integer allowed" };
    }
    return value ? 1 : 0;
  }
  if (!isJsonNumber(value)) {
    return {
      code: RPC_TYPE_ERROR,
      message: `JSON value of type ${uvTypeName(value)} is not of expected type number`
    };
  }
  const text = value.value;
  if (!/^-?\d+$/.test(text) || Number(text) > 2147483647 || Number(text) < -2147483648) {
    return { code: RPC_MISC_ERROR, message: "JSON integer out of range" };
  }
  return Number(text);
}

// src/jsonrpc/core-method-args.ts
var none = (usage) => ({ usage, args: [] });
var hashAt = (index, name) => (params) => hashParam(params[index], name);
var CORE_METHOD_ARGS = {
  getblock: {
    usage: 'getblock "blockhash" ( verbosity )',
    args: [
      { names: "blockhash", type: "hex" },
      {
        names: "verbosity|verbose",
        type: "num",
        optional: true,
        anyType: true,
        shownType: "number or boolean"
      }
    ],
    check(params) {
      const bad = hashParam(params[0], "blockhash");
      if (bad) return bad;
      const verbosity = parseVerbosity(params[1], 1, true);
      if (typeof verbosity !== "number") return verbosity;
      return verbosity >= 3 ? { variant: "3" } : verbosity === 2 ? { variant: "2" } : {};
    }
  },
  getblockhash: { usage: "getblockhash height", args: [{ names: "height", type: "num" }] },
  getblockheader: {
    usage: 'getblockheader "blockhash" ( verbose )',
    args: [
      { names: "blockhash", type: "hex" },
      { names: "verbose", type: "bool", optional: true }
    ],
    check: hashAt(0, "hash")
  },
  getblockcount: none("getblockcount"),
  getbestblockhash: none("getbestblockhash"),
  getblockchaininfo: none("getblockchaininfo"),
  getblockstats: {
    usage: "getblockstats hash_or_height ( stats )",
    args: [
      { names: "hash_or_height", type: "num", anyType: true, shownType: "hex string or number" },
      { names: "stats", type: "arr", optional: true }
    ]
  },
  getchaintips: none("getchaintips"),
  getdifficulty: none("getdifficulty"),
  getmempoolinfo: none("getmempoolinfo"),
  getrawmempool: {
    usage: "getrawmempool ( verbose mempool_sequence )",
    args: [
      { names: "verbose", type: "bool", optional: true },
      { names: "mempool_sequence", type: "bool", optional: true }
    ],
    check: (params) => params[0] === true ? { variant: "verbose" } : {}
  },
  getmempoolentry: {
    usage: 'getmempoolentry "txid"',
    args: [{ names: "txid", type: "hex" }],
    check: hashAt(0, "parameter 1")
  },
  gettxout: {
    usage: 'gettxout "txid" n ( include_mempool )',
    args: [
      { names: "txid", type: "hex" },
      { names: "n", type: "num" },
      { names: "include_mempool", type: "bool", optional: true }
    ],
    check: hashAt(0, "txid")
  },
  gettxoutproof: {
    usage: 'gettxoutproof ["txid",...] ( "blockhash" )',
    args: [
      { names: "txids", type: "arr" },
      { names: "blockhash", type: "hex", optional: true }
    ]
  },
  estimatesmartfee: {
    usage: 'estimatesmartfee conf_target ( "estimate_mode" )',
    args: [
      { names: "conf_target", type: "num" },
      { names: "estimate_mode", type: "str", optional: true }
    ]
  },
  decoderawtransaction: {
    usage: 'decoderawtransaction "hexstring" ( iswitness )',
    args: [
      { names: "hexstring", type: "hex" },
      { names: "iswitness", type: "bool", optional: true }
    ]
  },
  decodescript: { usage: 'decodescript "hexstring"', args: [{ names: "hexstring", type: "hex" }] },
  validateaddress: {
    usage: 'validateaddress "address"',
    args: [{ names: "address", type: "str" }]
  },
  getnetworkinfo: none("getnetworkinfo"),
  uptime: none("uptime"),
  sendrawtransaction: {
    usage: 'sendrawtransaction "hexstring" ( maxfeerate maxburnamount )',
    args: [
      { names: "hexstring", type: "hex" },
      { names: "maxfeerate", type: "amount", optional: true },
      { names: "maxburnamount", type: "amount", optional: true }
    ]
  },
  testmempoolaccept: {
    usage: 'testmempoolaccept ["rawtx",...] ( maxfeerate )',
    args: [
      { names: "rawtxs", type: "arr" },
      { names: "maxfeerate", type: "amount", optional: true }
    ]
  }
};

// src/catalogue/methods.ts
var BLOCK_170 = "00000000d1145790a8694403d4063f323d499e655c83426834d4ce2f8dd4a2ee";
var HAL_TXID = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
var HAL_TX_HEX = "0100000001c997a5e56e104102fa209c6a852dd90660a20b2d9c352423edce25857fcd3704000000004847304402204e45e16932b8af514961a1d3a1a25fdf3f4f7732e9d624c6c61548ab5fb8cd410220181522ec8eca07de4860a4acdd12909d831cc56cbbac4622082221a8768d1d0901ffffffff0200ca9a3b00000000434104ae1a62fe09c5f51b13905f07f06b99a2f7159b2225f374cd378d71302fa28414e7aab37397f554a7df5f142c21c1b7303b8a0626f1baded5c72a704f7e6cd84cac00286bee0000000043410411db93e1dcdb8a016b49840f8c53bc1eb68a382e97b1482ecad7b148a6909a5cb2e0eaddfb84ccf9744464f82e160bfa9b8b64f9d4c03f999b8643f656b412a3ac00000000";
var HAL_SCRIPT = "4104ae1a62fe09c5f51b13905f07f06b99a2f7159b2225f374cd378d71302fa28414e7aab37397f554a7df5f142c21c1b7303b8a0626f1baded5c72a704f7e6cd84cac";
var HAL_SCRIPTHASH = "77461c6ef27087fdb3d0c1b9630d2ac583fb09167feeb026976a2e48c4489c79";
var CORE_TYPE = {
  str: "string",
  hex: "hex string",
  num: "number",
  bool: "boolean",
  arr: "array",
  amount: "amount (number or string)"
};
var CORE = [
  [
    "getrawtransaction",
    "A transaction: its hex, or decoded (verbosity 1), with prevouts and fee (2)",
    [HAL_TXID, 1]
  ],
  [
    "getblock",
    "A block: its hex (verbosity 0), header fields and txids (1), decoded transactions (2), with every prevout (3)",
    [BLOCK_170, 1],
    [
      { variant: "2", when: "verbosity 2" },
      { variant: "3", when: "verbosity 3 or more" }
    ]
  ],
  ["getblockhash", "The hash of the best chain's block at a height", [170]],
  ["getblockheader", "A block header, decoded or as hex", [BLOCK_170, true]],
  ["getblockcount", "The height of the best chain's tip", []],
  ["getbestblockhash", "The hash of the best chain's tip", []],
  ["getblockchaininfo", "The chain's state: tip, difficulty, verification progress, size", []],
  [
    "getblockstats",
    "Per-block statistics (fees, sizes, feerates) by hash or height",
    [170, ["txs", "totalfee"]]
  ],
  ["getchaintips", "Every known chain tip and its status", []],
  ["getdifficulty", "The proof-of-work difficulty of the tip", []],
  ["getmempoolinfo", "The mempool's size, bytes, fees and relay floors", []],
  [
    "getrawmempool",
    "The mempool's txids, or every entry in detail (verbose)",
    [false],
    [{ variant: "verbose", when: "verbose true" }]
  ],
  [
    "getmempoolentry",
    "One mempool transaction's fees, sizes and ancestry",
    ["6f9e647386c0b9330675cf05f3ce50788710f7efeb552ed06ab54663d6b5b9d7"]
  ],
  ["gettxout", "An unspent output (null when spent or unknown)", [HAL_TXID, 1]],
  [
    "gettxoutproof",
    "A merkle proof (CMerkleBlock, hex) that transactions are in a block",
    [[HAL_TXID]]
  ],
  ["estimatesmartfee", "A feerate (BTC/kvB) to confirm within a number of blocks", [6]],
  ["decoderawtransaction", "A transaction's hex, decoded", [HAL_TX_HEX]],
  ["decodescript", "A script's hex, decoded, with its addresses", [HAL_SCRIPT]],
  [
    "validateaddress",
    "Whether an address is valid on the network, and its script",
    ["1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa"]
  ],
  ["getnetworkinfo", "The node's version, relay fee and network state", []],
  ["uptime", "Seconds since the node started", []],
  ["sendrawtransaction", "Broadcasts a signed transaction; its txid", [HAL_TX_HEX]],
  [
    "testmempoolaccept",
    "Whether transactions would enter the mempool, without broadcasting",
    [[HAL_TX_HEX]]
  ]
];
var GETRAWTRANSACTION_PARAMS = [
  { name: "txid", type: "hex string", optional: false },
  { name: "verbosity", type: "number or boolean", optional: true },
  { name: "blockhash", type: "hex string", optional: true }
];
var ELECTRUM = [
  [
    "server.version",
    "Negotiates the protocol version",
    [
      ["client_name", "string", true],
      ["protocol_version", "string or [min, max]", true]
    ],
    ["blockgate-docs", "1.4"]
  ],
  ["server.features", "The server's features: genesis hash, protocol range, hash function", [], []],
  ["server.banner", "The server's banner text", [], []],
  ["server.ping", "Keeps the session alive; null", [], []],
  [
    "blockchain.block.header",
    "A block header's hex, with a checkpoint proof when cp_height is given",
    [
      ["height", "number", false],
      ["cp_height", "number", true]
    ],
    [170]
  ],
  [
    "blockchain.block.headers",
    "Consecutive headers' hex, with a checkpoint proof when cp_height is given",
    [
      ["start_height", "number", false],
      ["count", "number", false],
      ["cp_height", "number", true]
    ],
    [0, 11]
  ],
  ["blockchain.headers.subscribe", "The tip's header and height", [], []],
  [
    "blockchain.estimatefee",
    "A feerate (BTC/kB) to confirm within a number of blocks; -1 when unknown",
    [
      ["number", "number", false],
      ["mode", "string", true]
    ],
    [6]
  ],
  ["blockchain.relayfee", "The lowest feerate (BTC/kB) the server relays", [], []],
  [
    "blockchain.scripthash.get_balance",
    "A script's confirmed and unconfirmed balance (sat)",
    [["scripthash", "hex string", false]],
    [HAL_SCRIPTHASH]
  ],
  [
    "blockchain.scripthash.get_history",
    "A script's confirmed and mempool transactions",
    [["scripthash", "hex string", false]],
    [HAL_SCRIPTHASH]
  ],
  [
    "blockchain.scripthash.get_mempool",
    "A script's mempool transactions",
    [["scripthash", "hex string", false]],
    [HAL_SCRIPTHASH]
  ],
  [
    "blockchain.scripthash.listunspent",
    "A script's unspent outputs",
    [["scripthash", "hex string", false]],
    [HAL_SCRIPTHASH]
  ],
  [
    "blockchain.scripthash.subscribe",
    "A script's status (hash of its history, null when empty); on a socket, pushed when it changes",
    [["scripthash", "hex string", false]],
    [HAL_SCRIPTHASH]
  ],
  [
    "blockchain.scripthash.unsubscribe",
    "Stops a socket session's notifications for a script; whether it was subscribed",
    [["scripthash", "hex string", false]],
    [HAL_SCRIPTHASH]
  ],
  [
    "blockchain.transaction.get",
    "A transaction: its hex, or decoded (verbose)",
    [
      ["tx_hash", "hex string", false],
      ["verbose", "boolean", true]
    ],
    [HAL_TXID, true]
  ],
  [
    "blockchain.transaction.get_merkle",
    "A transaction's merkle branch in its block",
    [
      ["tx_hash", "hex string", false],
      ["height", "number", false]
    ],
    [HAL_TXID, 170]
  ],
  [
    "blockchain.transaction.id_from_pos",
    "The txid at a position in a block, with its merkle branch when asked",
    [
      ["height", "number", false],
      ["tx_pos", "number", false],
      ["merkle", "boolean", true]
    ],
    [170, 1, true]
  ],
  [
    "blockchain.transaction.broadcast",
    "Broadcasts a signed transaction; its txid",
    [["raw_tx", "hex string", false]],
    [HAL_TX_HEX]
  ],
  ["mempool.get_fee_histogram", "The mempool's fee histogram: [feerate, vsize] pairs", [], []]
];
var CATALOGUE = [
  ...CORE.map(
    ([method, summary, example, variants]) => ({
      backend: "node",
      method,
      summary,
      params: method === "getrawtransaction" ? GETRAWTRANSACTION_PARAMS : CORE_METHOD_ARGS[method].args.map((a) => ({
        name: a.names.split("|")[0],
        type: a.shownType ?? CORE_TYPE[a.type],
        optional: a.optional === true
      })),
      example,
      ...variants ? { variants } : {}
    })
  ),
  ...ELECTRUM.map(
    ([method, summary, params, example]) => ({
      backend: "electrum",
      method,
      summary,
      params: params.map(([name, type, optional]) => ({ name, type, optional })),
      example
    })
  )
];

// src/catalogue/render.ts
function pricedCatalogue(config, networks) {
  return CATALOGUE.map((m) => {
    const keys = [m.method, ...(m.variants ?? []).map((v) => `${m.method}/${v.variant}`)];
    const prices = {};
    for (const key of keys) {
      prices[key] = Object.fromEntries(networks.map((n2) => [n2, priceOf(config, key, n2)]));
    }
    return { ...m, prices };
  });
}
function signature(m) {
  const required = m.params.filter((p) => !p.optional).map((p) => p.name);
  const optional = m.params.filter((p) => p.optional).map((p) => p.name);
  return [m.method, ...required, ...optional.length ? [`( ${optional.join(" ")} )`] : []].join(
    " "
  );
}
function exampleBody(m) {
  return JSON.stringify({ jsonrpc: "2.0", id: 1, method: m.method, params: m.example });
}

// src/catalogue/routes.ts
var HEADERS = {
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cache-control": "no-cache"
};
var escapeHtml = (text) => text.replace(
  /[&<>"']/g,
  (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]
);
function catalogueRoutes(http, app) {
  const networks = app.config.networks;
  const methods = pricedCatalogue(app.config, networks);
  const text = page(app, methods);
  const json = JSON.stringify({ networks, methods }, null, 2);
  withoutBodies(http, (scope) => {
    scope.get(
      "/methods",
      async (_request, reply3) => sendText(reply3, 200, "text/html; charset=utf-8", text, HEADERS)
    );
    scope.get(
      "/methods.json",
      async (_request, reply3) => sendText(reply3, 200, "application/json", json, HEADERS)
    );
  });
}
function page(app, methods) {
  const { networks, backends } = app.config;
  const section = (backend, title) => {
    const rows = methods.filter((m) => m.backend === backend).map((m) => {
      const prices = Object.entries(m.prices).map(([key, byNetwork]) => {
        const variant = m.variants?.find((v) => `${m.method}/${v.variant}` === key);
        const cells = networks.map((n2) => `<td>${byNetwork[n2]}</td>`).join("");
        return `<tr class="price"><th>${escapeHtml(variant ? variant.when : "per call")}</th>${cells}</tr>`;
      }).join("");
      const params = m.params.map(
        (p) => `<li><code>${escapeHtml(p.name)}</code> ${escapeHtml(p.type)}${p.optional ? " (optional)" : ""}</li>`
      ).join("");
      const curl = `curl -s -X POST -H 'content-type: application/json' \\
  --data '${exampleBody(m)}' \\
  http://HOST/${backends[backend]}/${networks[0]}/$TOKEN`;
      return `<section id="${escapeHtml(m.method)}"><h3><code>${escapeHtml(signature(m))}</code></h3>
<p>${escapeHtml(m.summary)}</p>${params ? `<ul>${params}</ul>` : "<p>No parameters.</p>"}
<table><tr><th>CC</th>${networks.map((n2) => `<th>${n2}</th>`).join("")}</tr>${prices}</table>
<pre>${escapeHtml(curl)}</pre></section>`;
    }).join("\n");
    return `<h2>${title} \u2014 <code>POST /${backends[backend]}/&lt;network&gt;/&lt;token&gt;</code></h2>
${rows}`;
  };
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>blockgate \u2014 methods and prices</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
section{border-top:1px solid #d5d9e0;padding:.5rem 0}table{border-collapse:collapse}td,th{padding:.2rem .6rem;text-align:left}
pre{background:#f5f6f8;padding:.5rem;overflow-x:auto}</style></head>
<body><h1>Methods and prices</h1>
<p>Every JSON-RPC method this gateway serves, its parameters, its price in credits (CC) per call on each network, and an example call. A batch is priced call by call. Any other method is refused with the upstream's own \u201Cmethod not found\u201D, and is not charged. <a href="/methods.json">As JSON</a>.</p>
${section("node", "Bitcoin Core")}
${section("electrum", "Electrum protocol 1.4")}
</body></html>`;
}

// src/graphql/load.ts
function unifiedApi() {
  loading ??= import("./chunks/route-XIRO5H2B.js").catch((err) => {
    loading = void 0;
    throw err;
  });
  return loading;
}
var loading;
function warmUnifiedApi(app) {
  unifiedApi().then((api) => api.gatewayYoga(app)).catch((err) => app.log.error({ err }, "loading the unified GraphQL API failed"));
}

// src/dashboard/assets.ts
import { readFile } from "node:fs/promises";
var bundle;
function dashboardScript() {
  bundle ??= true ? readFile(projectPath("dist", "dashboard.js"), "utf8") : bundleFromSources();
  return bundle;
}
var DASHBOARD_CSS = `
:root { font-family: system-ui, sans-serif; color: #1d2330; background: #f5f6f8; }
body { margin: 0; }
header { display: flex; align-items: center; gap: 1rem; padding: .75rem 1.5rem; background: #1d2330; color: #fff; }
header h1 { font-size: 1.1rem; margin: 0; }
header .account { flex: 1; opacity: .8; }
main { max-width: 1100px; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
section { margin: 1.25rem 0; }
h2 { font-size: .95rem; text-transform: uppercase; letter-spacing: .04em; color: #5a6275; display: inline-block; margin: 0 .5rem .5rem 0; }
.cards { display: grid; grid-template-columns: repeat(3, 1fr); gap: 1rem; }
.card { background: #fff; border-radius: 8px; padding: .75rem 1rem; box-shadow: 0 1px 2px #0001; }
.card p { font-size: 1.4rem; margin: .25rem 0 0; font-variant-numeric: tabular-nums; }
table { width: 100%; border-collapse: collapse; background: #fff; border-radius: 8px; overflow: hidden; box-shadow: 0 1px 2px #0001; }
th, td { text-align: left; padding: .4rem .75rem; border-bottom: 1px solid #eceef2; font-size: .9rem; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.empty { color: #8a91a3; text-align: center; }
svg { width: 100%; height: 160px; background: #fff; border-radius: 8px; box-shadow: 0 1px 2px #0001; }
svg rect { fill: #f7931a; }
svg text { font-size: 9px; fill: #8a91a3; }
form.signin { max-width: 420px; margin: 15vh auto; background: #fff; padding: 1.5rem; border-radius: 8px; box-shadow: 0 1px 3px #0002; }
form.signin input { width: 100%; box-sizing: border-box; padding: .5rem; font-family: monospace; margin: .5rem 0 1rem; }
.error { color: #b42318; }
button { cursor: pointer; }
.card p.sub { font-size: .85rem; color: #5a6275; }
.scroll { overflow-x: auto; max-width: 100%; }
svg line.axis { stroke: #8a91a3; stroke-width: 1; }
svg line.grid { stroke: #eceef2; stroke-width: 1; }
svg text.value { font-size: 8px; fill: #1d2330; }
svg text.axis-title { font-size: 10px; fill: #5a6275; }
.note { margin: .25rem 0 .75rem; }
.card.reveal p { font-size: .9rem; }
.reveal code { display: block; word-break: break-all; font-size: .9rem; padding: .5rem; background: #f5f6f8; }
.actions { display: flex; flex-wrap: wrap; gap: .4rem; align-items: flex-start; }
.scope-form { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: .5rem; margin: .5rem 0; }
.scope-form label { display: flex; flex-direction: column; font-size: .8rem; color: #5a6275; }
.scope-form input { padding: .35rem; font: inherit; min-width: 0; }
details.new-key, details.new-webhook { margin-top: .75rem; }
/* A phone (420 px and less wide): one column, nothing wider than the screen; wide tables scroll
   inside their own box. */
@media (max-width: 640px) {
  header { flex-wrap: wrap; padding: .6rem 1rem; }
  main { padding: .75rem .75rem 2rem; }
  .cards { grid-template-columns: 1fr; }
  th, td { padding: .35rem .5rem; font-size: .85rem; }
  .scope-form { grid-template-columns: 1fr; }
}
`;

// src/dashboard/sessions.ts
import { createHash, randomBytes } from "node:crypto";
var SESSION_COOKIE = "bg_session";
var hash3 = (value) => createHash("sha256").update(value, "utf8").digest();
async function createSession(db, owner, ttlMs) {
  const value = randomBytes(32).toString("base64url");
  await db.query(
    `INSERT INTO dashboard_sessions(hash, account_id, token_id, expires_at)
     VALUES ($1, $2, $3, now() + make_interval(secs => $4::double precision / 1000))`,
    [hash3(value), owner.accountId, owner.tokenId, ttlMs]
  );
  return value;
}
async function sessionOwner(db, value) {
  if (!value || !/^[A-Za-z0-9_-]{43}$/.test(value)) return null;
  const { rows } = await db.query(
    `SELECT s.account_id, s.token_id, t.hint, t.scope, t.expires_at
     FROM dashboard_sessions s JOIN tokens t ON t.id = s.token_id
     WHERE s.hash = $1 AND s.expires_at > now() AND t.revoked_at IS NULL
       AND (t.expires_at IS NULL OR t.expires_at > now())`,
    [hash3(value)]
  );
  const row = rows[0];
  return row ? {
    accountId: row.account_id,
    tokenId: row.token_id,
    hint: row.hint,
    scope: compileScope(row.scope),
    expiresAt: row.expires_at
  } : null;
}
async function endSession(db, value) {
  if (value) await db.query("DELETE FROM dashboard_sessions WHERE hash = $1", [hash3(value)]);
}
function readCookie(header, name) {
  for (const part of (header ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return v.join("=");
  }
  return void 0;
}

// src/dashboard/routes.ts
var SECURITY_HEADERS = {
  // Everything is served by the gateway itself: no CDN, no inline script, no framing.
  "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store"
};
var SIGN_IN_BODY_BYTES_MAX = 4096;
function send(reply3, status, type, body, headers = {}) {
  return sendText(reply3, status, type, body, { ...SECURITY_HEADERS, ...headers });
}
var page2 = (title, body, script = false) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="stylesheet" href="/dashboard/style.css"></head>
<body>${body}${script ? '<script type="module" src="/dashboard/app.js"></script>' : ""}</body></html>`;
var signIn = (error) => page2(
  "blockgate \u2014 sign in",
  `<form class="signin" method="post" action="/dashboard/session" autocomplete="off">
<h1>blockgate usage</h1><p>Sign in with an access token. It is exchanged for a session cookie and never appears in a URL.</p>
${error ? `<p class="error" data-testid="signin-error">${error}</p>` : ""}
<label for="token">Access token</label><input id="token" name="token" type="password" required spellcheck="false">
<button type="submit">Sign in</button></form>`
);
function dashboardRoutes(http, app) {
  http.decorateRequest("dashboardOwner", null);
  const cookieOf = (request2) => readCookie(request2.headers.cookie, SESSION_COOKIE);
  const ownerOf = (request2) => sessionOwner(app.db, cookieOf(request2));
  http.post("/dashboard/session", { bodyLimit: SIGN_IN_BODY_BYTES_MAX }, async (request2, reply3) => {
    const form = new URLSearchParams(bodyText(request2));
    const owner = await authenticate(app.db, (form.get("token") ?? "").trim());
    if (!owner)
      return send(
        reply3,
        401,
        "text/html; charset=utf-8",
        signIn("That token is unknown or revoked.")
      );
    const value = await createSession(app.db, owner, app.config.dashboard.sessionTtlMs);
    const maxAge = Math.floor(app.config.dashboard.sessionTtlMs / 1e3);
    return send(reply3, 303, "text/plain", "", {
      location: "/dashboard",
      "set-cookie": `${SESSION_COOKIE}=${value}; HttpOnly; SameSite=Strict; Path=/dashboard; Max-Age=${maxAge}`
    });
  });
  http.post(
    "/dashboard/graphql",
    {
      onRequest: async (request2, reply3) => {
        const owner = await ownerOf(request2);
        if (!owner) return signInFirst(reply3);
        if (!(request2.raw.headers["content-type"] ?? "").startsWith("application/json")) {
          return sendReply(reply3, {
            status: 415,
            body: {
              errors: [
                { message: "send application/json", extensions: { code: "BAD_USER_INPUT" } }
              ]
            }
          });
        }
        request2.setDecorator("dashboardOwner", owner);
      }
    },
    async (request2, reply3) => sendReply(
      reply3,
      await (await unifiedApi()).executeGraphQL(
        {
          app,
          owner: request2.getDecorator("dashboardOwner"),
          // The dashboard is a client of the unified API; its records say where it was asked.
          backend: "gateway",
          backendSegment: "dashboard",
          network: app.config.networks[0],
          requestId: request2.id,
          startedAt: Date.now()
        },
        { req: request2.raw, body: bodyText(request2), publicPath: "/dashboard/graphql" }
      )
    )
  );
  withoutBodies(http, (scope) => {
    scope.get(
      "/dashboard/style.css",
      async (_request, reply3) => send(reply3, 200, "text/css; charset=utf-8", DASHBOARD_CSS)
    );
    scope.get(
      "/dashboard/app.js",
      async (_request, reply3) => send(reply3, 200, "text/javascript; charset=utf-8", await dashboardScript())
    );
    scope.post("/dashboard/logout", async (request2, reply3) => {
      await endSession(app.db, cookieOf(request2));
      return send(reply3, 303, "text/plain", "", {
        location: "/dashboard",
        "set-cookie": `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/dashboard; Max-Age=0`
      });
    });
    scope.get(
      "/dashboard",
      async (request2, reply3) => await ownerOf(request2) ? send(
        reply3,
        200,
        "text/html; charset=utf-8",
        page2("blockgate \u2014 usage", '<main id="app">Loading\u2026</main>', true)
      ) : send(reply3, 200, "text/html; charset=utf-8", signIn())
    );
    scope.get("/dashboard/export.csv", async (request2, reply3) => {
      const owner = await ownerOf(request2);
      if (!owner) return signInFirst(reply3);
      return exportCsv(app, owner, request2, reply3);
    });
    const other = async (request2, reply3) => await ownerOf(request2) ? send(reply3, 404, "text/plain", "not found") : signInFirst(reply3);
    scope.route({ method: ALL_METHODS, url: "/dashboard/*", handler: other });
    scope.route({
      method: ALL_METHODS.filter((m) => m !== "GET"),
      url: "/dashboard",
      handler: other
    });
  });
}
function signInFirst(reply3) {
  return sendReply(reply3, {
    status: 401,
    body: { errors: [{ message: "sign in first", extensions: { code: "UNAUTHENTICATED" } }] }
  });
}
async function exportCsv(app, owner, request2, reply3) {
  const account = await findAccount(app.db, owner.accountId);
  if (!account) return send(reply3, 404, "text/plain", "no account");
  const url = new URL(request2.url, "http://gateway");
  const rule = app.config.billing.cycle;
  const current = cycleContaining(account.createdAt, /* @__PURE__ */ new Date(), rule);
  const index = url.searchParams.has("cycle") ? Number(url.searchParams.get("cycle")) : current.index;
  if (!Number.isInteger(index) || index < 0 || index > current.index)
    return send(reply3, 400, "text/plain", "no such cycle");
  const cycle = cycleAt(account.createdAt, index, rule);
  const kind = url.searchParams.get("kind") === "usage" ? "usage" : "audit";
  const csv = kind === "usage" ? await usageCsv(app.db, account.id, cycle) : await auditCsv(app.db, account.id, cycle);
  const name = `blockgate-${account.name}-${kind}-${cycle.start.toISOString().slice(0, 10)}.csv`;
  return send(reply3, 200, "text/csv; charset=utf-8", csv, {
    "content-disposition": `attachment; filename="${name}"`
  });
}

// src/http/connection-limit.ts
var AddressConnections = class {
  constructor(max, refused2) {
    this.max = max;
    this.refused = refused2;
  }
  max;
  refused;
  open = new InFlightMap();
  /** Counts `server`'s connections; `refuse` ends the one past the limit. */
  watch(server, refuse4) {
    if (this.max === 0) return;
    server.prependListener("connection", (socket) => {
      const address = socket.remoteAddress ?? "";
      const count = (this.open.get(address) ?? 0) + 1;
      if (count > this.max) {
        this.refused();
        refuse4(socket);
        return;
      }
      this.open.set(address, count);
      socket.once("close", () => {
        const left = (this.open.get(address) ?? 1) - 1;
        if (left === 0) this.open.delete(address);
        else this.open.set(address, left);
      });
    });
  }
};
function httpRefusal() {
  const failure2 = plainFailure(
    gatewayError("RATE_LIMITED", "too many open connections from this address")
  );
  const body = JSON.stringify(failure2.body);
  const bytes = Buffer.from(
    `HTTP/1.1 429 Too Many Requests\r
content-type: application/json\r
content-length: ${Buffer.byteLength(body)}\r
retry-after: 1\r
connection: close\r
\r
${body}`
  );
  return (socket) => socket.end(bytes, () => socket.destroy());
}

// src/http/cors.ts
var ALLOW_HEADERS = "authorization, content-type, idempotency-key, x-api-key, x-dry-run";
var EXPOSE_HEADERS = "x-request-id, x-credits-estimated, x-credits-charged, x-credits-balance, ratelimit, ratelimit-policy, retry-after";
function crossOrigin(headers) {
  const origin = headers.origin;
  if (!origin || origin === "null") return origin === "null" ? origin : null;
  try {
    return new URL(origin).host === headers.host ? null : origin;
  } catch {
    return origin;
  }
}
function corsHeaders(origin) {
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": EXPOSE_HEADERS,
    vary: "origin"
  };
}
function preflightHeaders(origin, methods) {
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": methods.join(", "),
    "access-control-allow-headers": ALLOW_HEADERS,
    "access-control-max-age": "600",
    vary: "origin"
  };
}

// src/http/drain.ts
import { ServerResponse } from "node:http";
var InFlight = class {
  constructor(server) {
    this.server = server;
  }
  server;
  /** Requests by their response; a socket session's work (the Electrum TLS listener) by its socket. */
  open = new InFlightMap();
  draining = false;
  onIdle = null;
  get size() {
    return this.open.size;
  }
  /** Counts the request `res` answers, from now until its response has ended and its work is done. */
  track(res) {
    const entry = { work: 0, ended: false };
    this.open.set(res, entry);
    if (this.draining) res.setHeader("connection", "close");
    res.once("close", () => {
      entry.ended = true;
      this.release(res, entry);
    });
  }
  /**
   * Runs work of the request `res` answers; the request stays in flight until it has finished.
   * `res` may be any object standing for a session without a response (a TLS connection): its
   * work counts in flight while it runs.
   */
  async run(res, work) {
    let entry = this.open.get(res);
    if (!entry) {
      entry = { work: 0, ended: true };
      this.open.set(res, entry);
    }
    entry.work++;
    try {
      return await work();
    } finally {
      entry.work--;
      this.release(res, entry);
    }
  }
  release(res, entry) {
    if (!entry.ended || entry.work > 0 || this.open.get(res) !== entry) return;
    this.open.delete(res);
    if (this.draining) setImmediate(() => this.server.closeIdleConnections());
    if (this.open.size === 0) this.onIdle?.();
  }
  /** From now on every answer not yet begun tells the client to close its connection. */
  startDraining() {
    this.draining = true;
    for (const res of this.open.keys()) {
      if (res instanceof ServerResponse && !res.headersSent) res.setHeader("connection", "close");
    }
  }
  /** Resolves when no request is in flight. */
  idle() {
    if (this.open.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.onIdle = resolve;
    });
  }
};
function countInFlight(http, requests) {
  http.addHook("onRequest", (_request, reply3, done) => {
    requests.track(reply3.raw);
    done();
  });
  http.addHook("onRoute", (route) => {
    const handler = route.handler;
    route.handler = function(request2, reply3) {
      return requests.run(reply3.raw, async () => handler.call(this, request2, reply3));
    };
    const hooks = route.onRequest;
    if (hooks === void 0) return;
    const wrap = (hook) => async function(request2, reply3) {
      await requests.run(
        reply3.raw,
        () => new Promise((resolve, reject) => {
          const result = hook.call(
            this,
            request2,
            reply3,
            (err) => err ? reject(err) : resolve()
          );
          if (result instanceof Promise) result.then(() => resolve(), reject);
        })
      );
    };
    route.onRequest = Array.isArray(hooks) ? hooks.map(wrap) : wrap(hooks);
  });
}
function drain(server, requests, timeoutMs) {
  const started = Date.now();
  requests.startDraining();
  const closed = new Promise((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  return (async () => {
    const answered = await within(
      requests.idle().then(() => true),
      timeoutMs,
      false
    );
    const cut = answered ? 0 : requests.size;
    if (answered) {
      server.closeIdleConnections();
      const left = timeoutMs - (Date.now() - started);
      if (!await within(
        closed.then(() => true),
        left,
        false
      ))
        server.closeAllConnections();
    } else {
      server.closeAllConnections();
    }
    await closed;
    return { cut, ms: Date.now() - started };
  })();
}

// src/metering/admit.ts
async function admitCall(app, owner, from) {
  const admission = await app.limits.admit(owner);
  if (admission.ok) return admission;
  app.metrics.rateLimited.inc({ route: from.route });
  app.authFailures.record({
    refusal: "rate_limited",
    source: from.source,
    backendSegment: from.backendSegment,
    network: from.network,
    tokenId: owner.tokenId,
    accountId: owner.accountId
  });
  return admission;
}

// src/metering/authenticate.ts
import { setTimeout as sleep } from "node:timers/promises";
async function authenticateCall(app, token, from) {
  const throttle = app.authThrottle;
  const verdict = throttle.verdict(from.source);
  if (verdict.locked) {
    const owner2 = app.tokens.cached(token);
    if (owner2) return { ok: true, owner: owner2 };
    const retryAfter = Math.max(1, Math.ceil(verdict.retryAfterMs / 1e3));
    app.metrics.authFailures.inc({ route: from.route });
    app.authFailures.record({ ...refusal(from), refusal: "auth_locked" });
    return {
      ok: false,
      error: gatewayError(
        "RATE_LIMITED",
        "too many failed authentications from this address; try again later",
        { data: { retryAfter } }
      ),
      headers: { "retry-after": String(retryAfter) }
    };
  }
  const owner = await app.tokens.authenticate(token);
  if (owner) return { ok: true, owner };
  app.metrics.authFailures.inc({ route: from.route });
  app.authFailures.record(refusal(from));
  const delayMs = throttle.failed(from.source);
  if (delayMs > 0) await sleep(delayMs);
  return {
    ok: false,
    error: gatewayError("UNAUTHENTICATED", "missing, unknown or revoked access token"),
    // RFC 6750 §3: a 401 names the scheme it takes (the path form works as well).
    headers: { "www-authenticate": 'Bearer realm="blockgate"' }
  };
}
function refusal(from) {
  return {
    source: from.source,
    backendSegment: from.backendSegment,
    network: from.network,
    tokenId: null,
    accountId: null
  };
}

// src/metering/idempotency.ts
import { createHash as createHash2 } from "node:crypto";
var KEY = /^[\x21-\x7e]{1,255}$/;
var PER_REQUEST = /^(x-request-id|x-credits-|connection$|content-length$)/i;
async function idempotent(ctx, key, body, run, failure2) {
  if (key === void 0) return run(ctx);
  if (typeof key !== "string" || !KEY.test(key)) {
    return failure2(
      gatewayError("BAD_REQUEST", "Idempotency-Key: 1 to 255 visible ASCII characters, once")
    );
  }
  const { db, config } = ctx.app;
  const accountId = ctx.owner.accountId;
  const hash4 = createHash2("sha256").update(`${ctx.backendSegment}
${ctx.network}
${body}`).digest();
  await db.query(
    `DELETE FROM idempotency_keys k WHERE account_id = $1 AND key = $2 AND (
       created_at < now() - make_interval(secs => $3::double precision / 1000)
       OR (settled_at IS NULL AND (
         created_at < now() - make_interval(secs => $4::double precision / 1000)
         OR EXISTS (SELECT 1 FROM gateway_processes p
                    WHERE p.id = k.process_id AND p.stopped_at IS NOT NULL))))`,
    [accountId, key, config.idempotency.windowMs, config.ledger.holdTimeoutMs]
  );
  const { rows: inserted } = await db.query(
    `INSERT INTO idempotency_keys(account_id, key, request_hash, process_id)
     VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING key`,
    [accountId, key, hash4, ctx.app.credits.opts.processId]
  );
  if (inserted.length === 0) {
    const { rows } = await db.query(
      `SELECT request_hash, settled_at IS NOT NULL AS settled, status, headers, body
       FROM idempotency_keys WHERE account_id = $1 AND key = $2`,
      [accountId, key]
    );
    const row = rows[0];
    if (!row) return idempotent(ctx, key, body, run, failure2);
    if (!Buffer.from(row.request_hash).equals(hash4)) {
      return failure2(
        gatewayError(
          "IDEMPOTENCY_KEY_REUSED",
          "this Idempotency-Key was used for a different request"
        )
      );
    }
    if (row.status !== null && row.body !== null) {
      const audited = await auditOnly(ctx, [
        { method: "(replay)", outcome: "replayed", httpStatus: row.status }
      ]);
      return {
        status: row.status,
        body: null,
        raw: Buffer.from(row.body),
        headers: {
          ...row.headers ?? {},
          ...audited.headers,
          "idempotent-replayed": "true"
        }
      };
    }
    if (!row.settled) {
      return failure2(
        gatewayError(
          "IDEMPOTENCY_IN_PROGRESS",
          "a request with this Idempotency-Key is still being answered"
        )
      );
    }
    return remember(ctx, key, await run({ ...ctx, idempotency: { key, rerun: true } }));
  }
  let reply3;
  try {
    reply3 = await run({ ...ctx, idempotency: { key, rerun: false } });
  } catch (err) {
    await forget(ctx, key);
    throw err;
  }
  return remember(ctx, key, reply3);
}
async function remember(ctx, key, reply3) {
  const bytes = reply3.raw ?? Buffer.from(stringifyJson(reply3.body));
  const headers = Object.fromEntries(
    Object.entries(reply3.headers ?? {}).filter(([h]) => !PER_REQUEST.test(h))
  );
  if (!reply3.raw) headers["content-type"] ??= "application/json";
  const { rows } = await ctx.app.db.query(
    `UPDATE idempotency_keys SET status = $3, headers = $4, body = $5
     WHERE account_id = $1 AND key = $2 AND settled_at IS NOT NULL RETURNING key`,
    [ctx.owner.accountId, key, reply3.status, JSON.stringify(headers), bytes]
  );
  if (rows.length === 0) await forget(ctx, key);
  return reply3;
}
async function forget(ctx, key) {
  await ctx.app.db.query(
    "DELETE FROM idempotency_keys WHERE account_id = $1 AND key = $2 AND settled_at IS NULL",
    [ctx.owner.accountId, key]
  );
}

// src/jsonrpc/python-text.ts
function pyStrRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0);
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "	") out += "\\t";
    else if (code < 32 || code === 127) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + quote;
}
function pyNumber(text) {
  if (/^-?\d+$/.test(text)) return text.replace(/^(-?)0+(?=\d)/, "$1");
  return pyFloatRepr(Number(text));
}
function pyFloatRepr(value) {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const sign = value < 0 ? "-" : "";
  const [mantissa, exp] = Math.abs(value).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const e = Number(exp);
  if (e < -4 || e >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
  const whole = digits.slice(0, e + 1).padEnd(e + 1, "0");
  const frac = digits.slice(e + 1);
  return `${sign}${whole}.${frac === "" ? "0" : frac}`;
}
function pyRepr(value) {
  if (value === null || value === void 0) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return pyStrRepr(value);
  if (isJsonNumber(value)) return pyNumber(value.value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  return `{${Object.entries(value).map(([k, v]) => `${pyStrRepr(k)}: ${pyRepr(v)}`).join(", ")}}`;
}
function pyStr(value) {
  return typeof value === "string" ? value : pyRepr(value);
}
function pyJsonDumps(value) {
  if (value === null || value === void 0) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "number")
    return Number.isInteger(value) ? String(value) : pyFloatRepr(value);
  if (typeof value === "string") return jsonString(value);
  if (isJsonNumber(value)) return pyNumber(value.value);
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(", ")}]`;
  if (isJsonObject(value)) {
    return `{${Object.entries(value).map(([k, v]) => `${jsonString(k)}: ${pyJsonDumps(v)}`).join(", ")}}`;
  }
  throw new TypeError("value has no JSON form");
}
function jsonString(text) {
  return JSON.stringify(text).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`
  );
}
function pyThousands(n2) {
  return n2.toLocaleString("en-US");
}

// src/jsonrpc/electrum-args.ts
var ArgRefusal = class extends Error {
  constructor(error) {
    super(error.message);
    this.error = error;
  }
  error;
};
var refuse2 = (message) => {
  throw new ArgRefusal({ code: BAD_REQUEST, message });
};
function nonNegativeInteger(value) {
  let n2;
  if (typeof value === "boolean") n2 = Number(value);
  else if (isJsonNumber(value)) n2 = Math.trunc(Number(value.value));
  else if (typeof value === "string" && /^\s*[+-]?\d+\s*$/.test(value)) n2 = Number(value.trim());
  if (n2 !== void 0 && Number.isSafeInteger(n2) && n2 >= 0) return n2;
  return refuse2(`${n2 !== void 0 ? String(n2) : pyStr(value)} should be a non-negative integer`);
}
function scripthash(value) {
  return hash32Hex(value) ?? refuse2(`${pyStr(value)} is not a valid script hash`);
}
function txHash(value) {
  return hash32Hex(value) ?? refuse2(`${pyStr(value)} should be a transaction hash`);
}
var ESTIMATEFEE_MODES = [
  void 0,
  null,
  "CONSERVATIVE",
  "ECONOMICAL"
];
var none2 = { required: [], optional: [], check: () => [] };
var byScripthash = {
  required: ["scripthash"],
  optional: [],
  check: ([hash4]) => [scripthash(hash4)]
};
var n = (value) => jsonNumber(value);
var ELECTRUM_SIGNATURES = {
  "server.version": {
    required: [],
    optional: ["client_name", "protocol_version"],
    check: (args) => args.filter((a) => a !== void 0)
  },
  // The hash goes to the daemon as the client wrote it (ElectrumX checks it, then passes it on).
  "blockchain.transaction.get": {
    required: ["tx_hash"],
    optional: ["verbose"],
    check: ([hash4, verbose = false]) => {
      txHash(hash4);
      if (!isPyBool(verbose)) refuse2('"verbose" must be a boolean');
      return [hash4, pyBoolValue(verbose)];
    }
  },
  "server.features": none2,
  "server.banner": none2,
  "server.ping": none2,
  "blockchain.headers.subscribe": none2,
  "blockchain.relayfee": none2,
  "mempool.get_fee_histogram": none2,
  "blockchain.block.header": {
    required: ["height"],
    optional: ["cp_height"],
    check: ([height, cp = n(0)]) => [n(nonNegativeInteger(height)), n(nonNegativeInteger(cp))]
  },
  "blockchain.block.headers": {
    required: ["start_height", "count"],
    optional: ["cp_height"],
    check: ([start, count, cp = n(0)]) => [
      n(nonNegativeInteger(start)),
      n(nonNegativeInteger(count)),
      n(nonNegativeInteger(cp))
    ]
  },
  "blockchain.estimatefee": {
    required: ["number"],
    optional: ["mode"],
    check: ([number, mode]) => {
      const blocks = n(nonNegativeInteger(number));
      if (!ESTIMATEFEE_MODES.includes(mode)) refuse2(`unknown estimatefee mode: ${pyStr(mode)}`);
      return mode === void 0 || mode === null ? [blocks] : [blocks, mode];
    }
  },
  "blockchain.scripthash.get_balance": byScripthash,
  "blockchain.scripthash.get_history": byScripthash,
  "blockchain.scripthash.get_mempool": byScripthash,
  "blockchain.scripthash.listunspent": byScripthash,
  "blockchain.scripthash.subscribe": byScripthash,
  // Protocol 1.4.2; ElectrumX answers whether the session was subscribed.
  "blockchain.scripthash.unsubscribe": byScripthash,
  "blockchain.transaction.get_merkle": {
    required: ["tx_hash", "height"],
    optional: [],
    check: ([hash4, height]) => [txHash(hash4), n(nonNegativeInteger(height))]
  },
  "blockchain.transaction.id_from_pos": {
    required: ["height", "tx_pos"],
    optional: ["merkle"],
    check: ([height, pos, merkle = false]) => {
      const txPos = nonNegativeInteger(pos);
      const at = nonNegativeInteger(height);
      if (!isPyBool(merkle)) refuse2('"merkle" must be a boolean');
      return [n(at), n(txPos), pyBoolValue(merkle)];
    }
  },
  // ElectrumX checks nothing before it hands raw_tx to the daemon, which judges it.
  "blockchain.transaction.broadcast": {
    required: ["raw_tx"],
    optional: [],
    check: ([raw]) => [raw]
  }
};
function checkElectrumArgs(method, signature2, params) {
  const args = bindArgs(method, params, signature2.required, signature2.optional);
  if (!Array.isArray(args)) return { ok: false, error: args };
  return checkBoundArgs(signature2, args);
}
function checkBoundArgs(signature2, args) {
  try {
    return { ok: true, params: signature2.check(args) };
  } catch (err) {
    if (err instanceof ArgRefusal) return { ok: false, error: err.error };
    throw err;
  }
}

// src/jsonrpc/electrum-version.ts
var ELECTRUMX_PROTOCOL_MIN = [1, 4];
var ELECTRUMX_PROTOCOL_MAX = [1, 6];
function protocolTuple(value) {
  if (typeof value !== "string") return [0];
  const parts = value.split(".");
  if (!parts.every((p) => /^\s*[+-]?\d+\s*$/.test(p))) return [0];
  return parts.map((p) => Number(p.trim()));
}
function compareProtocols(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return a.length - b.length;
}
function negotiateProtocol(request2, min, max) {
  let clientMin;
  let clientMax;
  if (request2 === null || request2 === void 0) {
    clientMin = min;
    clientMax = min;
  } else if (Array.isArray(request2) && request2.length === 2) {
    clientMin = protocolTuple(request2[0]);
    clientMax = protocolTuple(request2[1]);
  } else {
    clientMin = protocolTuple(request2);
    clientMax = clientMin;
  }
  const result = compareProtocols(clientMax, max) < 0 ? clientMax : max;
  const floor = compareProtocols(clientMin, min) > 0 ? clientMin : min;
  if (compareProtocols(result, floor) < 0 || compareProtocols(result, [0]) === 0) return null;
  return result;
}
function versionString(tuple) {
  const padded = [...tuple];
  while (padded.length < 2) padded.push(0);
  return padded.join(".");
}
function checkServerVersion(params, upstreamProtocol) {
  const args = bindArgs("server.version", params, [], ["client_name", "protocol_version"]);
  if (!Array.isArray(args)) return { ok: false, error: args };
  const requested = args[1] ?? null;
  const max = upstreamProtocol ? protocolTuple(upstreamProtocol) : ELECTRUMX_PROTOCOL_MAX;
  const agreed = negotiateProtocol(requested, ELECTRUMX_PROTOCOL_MIN, max);
  if (!agreed) {
    return {
      ok: false,
      error: { code: BAD_REQUEST, message: `unsupported protocol version: ${pyStr(requested)}` }
    };
  }
  return { ok: true, params: [versionString(agreed)] };
}

// src/jsonrpc/electrum-status.ts
import { createHash as createHash3 } from "node:crypto";
function scripthashStatus(history) {
  if (!Array.isArray(history)) return void 0;
  let text = "";
  for (const entry of history) {
    if (!isJsonObject(entry) || typeof entry.tx_hash !== "string") return void 0;
    const height = jsonInteger(entry.height);
    if (height === void 0) return void 0;
    text += `${entry.tx_hash}:${height}:`;
  }
  return text === "" ? null : createHash3("sha256").update(text).digest("hex");
}

// src/upstreams/electrum/status.ts
async function readScripthashStatus(pool, scripthash2) {
  const out = await pool.request("blockchain.scripthash.get_history", [scripthash2]);
  if (!out.ok || !("result" in out.answer)) return out;
  const status = scripthashStatus(out.answer.result);
  if (status === void 0) {
    return {
      ok: false,
      error: gatewayError("UPSTREAM_BAD_RESPONSE", "the Electrum server's history is malformed")
    };
  }
  return { ok: true, answer: { result: status }, upstream: out.upstream };
}

// src/jsonrpc/long-strings.ts
var LIFT_CHARS_MIN = 256;
var MARK = "\uE000";
var QUOTE = 34;
var BACKSLASH = 92;
var COLON = 58;
var isWhitespace = (c) => c === 32 || c === 10 || c === 13 || c === 9;
function parseJsonLiftingStrings(text) {
  if (text.length < LIFT_CHARS_MIN) return parseJson(text);
  const lifted = [];
  const indexOf = /* @__PURE__ */ new Map();
  const parts = [];
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    if (text.charCodeAt(i) !== QUOTE) {
      i += 1;
      continue;
    }
    let end = i + 1;
    let plain2 = true;
    for (; end < text.length; end++) {
      const c = text.charCodeAt(end);
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        plain2 = false;
        end += 1;
      } else if (c < 32) plain2 = false;
    }
    if (end >= text.length) break;
    const content = text.slice(i + 1, end);
    let next = end + 1;
    while (next < text.length && isWhitespace(text.charCodeAt(next))) next += 1;
    const isKey = text.charCodeAt(next) === COLON;
    if (plain2 && !isKey && (content.length >= LIFT_CHARS_MIN || content.startsWith(MARK))) {
      let index = indexOf.get(content);
      if (index === void 0) {
        index = lifted.push(content) - 1;
        indexOf.set(content, index);
      }
      parts.push(text.slice(copied, i), `"${MARK}${index}"`);
      copied = end + 1;
    }
    i = end + 1;
  }
  if (lifted.length === 0) return parseJson(text);
  parts.push(text.slice(copied));
  return restore(parseJson(parts.join("")), lifted);
}
function restore(value, lifted) {
  if (typeof value === "string") {
    return value.startsWith(MARK) ? lifted[Number(value.slice(MARK.length))] ?? value : value;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = restore(value[i], lifted);
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      const was = value[key];
      const now = restore(was, lifted);
      if (now !== was)
        Object.defineProperty(value, key, {
          value: now,
          enumerable: true,
          writable: true,
          configurable: true
        });
    }
  }
  return value;
}

// src/jsonrpc/envelope.ts
function parseRequestBody(body, depthMax = JSON_DEPTH_MAX) {
  let value;
  try {
    if (jsonDepthOver(body, depthMax)) throw new SyntaxError(`nested deeper than ${depthMax}`);
    value = parseCanonical(body) ?? parseJsonLiftingStrings(body);
  } catch {
    return { kind: "fatal", error: { code: -32700, message: "Parse error" } };
  }
  if (Array.isArray(value)) return { kind: "batch", items: value.map(parseRequestItem) };
  if (isJsonObject(value)) return { kind: "single", item: parseRequestItem(value) };
  return { kind: "fatal", error: { code: -32700, message: "Top-level object parse error" } };
}
function parseRequestItem(value) {
  if (!isJsonObject(value)) {
    return {
      kind: "invalid",
      id: null,
      version: "1.0",
      error: { code: -32600, message: "Invalid Request object" }
    };
  }
  const id = "id" in value ? value.id : void 0;
  let version = "1.0";
  const invalid = (message) => ({
    kind: "invalid",
    id,
    version,
    error: { code: -32600, message }
  });
  const v = value.jsonrpc;
  if (v !== void 0 && v !== null) {
    if (typeof v !== "string") return invalid("jsonrpc field must be a string");
    if (v === "2.0") version = "2.0";
    else if (v !== "1.0") return invalid("JSON-RPC version not supported");
  }
  const method = value.method;
  if (method === void 0 || method === null) return invalid("Missing method");
  if (typeof method !== "string") return invalid("Method must be a string");
  const params = value.params;
  if (params === void 0 || params === null)
    return { kind: "call", id, version, method, params: [] };
  if (Array.isArray(params) || isJsonObject(params))
    return { kind: "call", id, version, method, params };
  return invalid("Params must be an array or object");
}
function replyObject(version, id, answer3) {
  const reply3 = {};
  if (version === "2.0") reply3.jsonrpc = "2.0";
  const isError = "error" in answer3;
  if (version === "1.0" || !isError) reply3.result = isError ? null : answer3.result;
  if (version === "1.0" || isError) reply3.error = isError ? answer3.error : null;
  if (id !== void 0) reply3.id = id;
  return reply3;
}
function legacyErrorStatus(code) {
  return code === -32600 ? 400 : code === -32601 ? 404 : 500;
}

// src/mirror/rpc-route.ts
var CACHE_UPSTREAM = "cache";
async function handleRpcMirror(ctx, body, protocol) {
  const { app } = ctx;
  const request2 = parseRequestBody(body, ctx.app.config.server.jsonDepthMax);
  if (request2.kind === "fatal" || request2.kind === "batch" && request2.items.length > app.config.server.batchItemsMax) {
    const error = request2.kind === "fatal" ? request2.error : {
      code: -32600,
      message: `Batch too large: at most ${app.config.server.batchItemsMax} requests`
    };
    await auditOnly(ctx, [
      {
        method: "(invalid)",
        outcome: "rejected",
        // A batch over the limit is well formed; only its size is refused.
        errorCode: request2.kind === "fatal" ? fromRpcRefusal(error.code) : "LIMIT_EXCEEDED",
        upstreamCode: String(error.code),
        httpStatus: 200
      }
    ]);
    return { status: 200, body: replyObject("2.0", null, { error }) };
  }
  const items = request2.kind === "single" ? [request2.item] : request2.items;
  if (items.length === 0) return { status: 200, body: [] };
  const slots = items.map((item) => plan(ctx, item, protocol));
  const calls = slots.flatMap((s) => s.kind === "call" ? [s.call] : []);
  const metered = await meter(ctx, {
    calls: slots.map(
      (s) => s.kind === "call" ? { kind: "priced", method: s.call.method, price: s.call.price } : {
        kind: "refused",
        method: s.method,
        outcome: s.outcome,
        errorCode: fromRpcRefusal(s.error.code),
        upstreamCode: String(s.error.code),
        httpStatus: protocol.errorStatus(s.version, s.error.code)
      }
    ),
    execute: async () => {
      const answered = calls.length > 0 ? await protocol.execute(ctx, calls) : [];
      const results = calls.map(
        (_, i) => answered[i] ?? { kind: "failure", error: gatewayError("INTERNAL", "no answer") }
      );
      return {
        value: { results, reply: null },
        outcomes: results.map((r, i) => outcomeOf(r, calls[i], protocol))
      };
    },
    prepare: ({ results }) => ({
      results,
      reply: renderAnswered(slots, results, request2.kind === "single", protocol)
    })
  });
  if (!metered.ok) {
    const replies = slots.map(
      (s) => s.kind === "call" ? replyObject(s.call.version, s.call.id, { error: toRpcError(metered.error) }) : replyObject(s.version, s.id, { error: s.error })
    );
    return {
      status: httpStatusOf(metered.error.code),
      body: request2.kind === "single" ? replies[0] : replies,
      headers: metered.headers
    };
  }
  const { reply: reply3 } = metered.value;
  if (!reply3) throw new Error("the mirror's reply was not rendered");
  return { ...reply3, headers: { ...reply3.headers, ...metered.headers } };
}
function renderAnswered(slots, results, single, protocol) {
  const replies = [];
  let singleStatus = 200;
  let failure2 = null;
  let resultIndex = 0;
  for (const slot of slots) {
    if (slot.kind === "reply") {
      replies.push(replyObject(slot.version, slot.id, { error: slot.error }));
      singleStatus = protocol.errorStatus(slot.version, slot.error.code);
      continue;
    }
    const c = slot.call;
    const result = results[resultIndex++];
    if (result.kind === "failure" || result.kind === "refused") {
      if (result.kind === "failure") failure2 ??= result.error;
      replies.push(replyObject(c.version, c.id, { error: toRpcError(result.error) }));
      singleStatus = httpStatusOf(result.error.code);
    } else {
      replies.push(replyObject(c.version, c.id, answerForReply(result.answer)));
      singleStatus = "error" in result.answer ? protocol.errorStatus(c.version, result.answer.error.code) : 200;
    }
  }
  const allFailed = failure2 !== null && slots.every((s) => s.kind === "call") && results.every((r) => r.kind === "failure");
  const batchStatus = allFailed ? httpStatusOf(failure2.code) : 200;
  return {
    status: single ? singleStatus : batchStatus,
    body: null,
    raw: Buffer.from(stringifyJson(single ? replies[0] : replies)),
    headers: { "content-type": "application/json" }
  };
}
function outcomeOf(result, call, protocol) {
  if (result.kind === "failure") return { kind: "failed", error: result.error };
  if (result.kind === "refused") {
    return {
      kind: "answered",
      outcome: "rejected",
      errorCode: result.error.code,
      httpStatus: httpStatusOf(result.error.code),
      chargedCc: 0
    };
  }
  const { answer: answer3, upstream } = result;
  const cacheHits = upstream === CACHE_UPSTREAM ? 1 : 0;
  if ("error" in answer3) {
    return {
      kind: "answered",
      outcome: "upstream_error",
      errorCode: "UPSTREAM_ERROR",
      upstreamCode: String(answer3.error.code),
      httpStatus: protocol.errorStatus(call.version, answer3.error.code),
      upstream,
      cacheHits
    };
  }
  return { kind: "answered", outcome: "ok", httpStatus: 200, upstream, cacheHits };
}
function plan(ctx, asked, protocol) {
  const item = protocol.replyVersion ? { ...asked, version: protocol.replyVersion } : asked;
  if (item.kind === "invalid") {
    return {
      kind: "reply",
      id: item.id,
      version: item.version,
      method: "(invalid)",
      error: item.error,
      outcome: "rejected"
    };
  }
  const reply3 = (error, id = item.id) => ({
    kind: "reply",
    id,
    version: item.version,
    method: item.method.slice(0, 64),
    error,
    outcome: "rejected"
  });
  if (item.version === "2.0" && item.id === void 0) {
    return reply3(
      {
        code: -32600,
        message: "Notifications are not supported: every call is charged, so give it an id"
      },
      null
    );
  }
  const check = Object.hasOwn(protocol.methods, item.method) ? protocol.methods[item.method] : void 0;
  if (!check || priceOf(ctx.app.config, item.method, ctx.network) === void 0) {
    return reply3(protocol.unknownMethod(item.method));
  }
  const checked2 = check(item.params, ctx);
  if (!checked2.ok) return reply3(checked2.error);
  const key = checked2.variant ? `${item.method}/${checked2.variant}` : item.method;
  const price = priceOf(ctx.app.config, key, ctx.network);
  return {
    kind: "call",
    call: {
      id: item.id,
      version: item.version,
      method: item.method,
      params: checked2.params,
      price
    }
  };
}
function toRpcError(error) {
  return rpcErrorObject(error);
}

// src/mirror/electrum-route.ts
var SUBSCRIBE2 = "blockchain.scripthash.subscribe";
var CHECKED = Object.keys(ELECTRUM_SIGNATURES).filter(
  (m) => m !== "server.version" && m !== SUBSCRIBE2
);
var GATEWAY_UPSTREAM = "gateway";
var poolOf = (ctx) => ctx.app.electrum.get(ctx.network);
var ELECTRUM2 = {
  methods: {
    "server.version": (params, ctx) => checkServerVersion(params, poolOf(ctx)?.serverVersion()?.protocol ?? null),
    ...Object.fromEntries(
      CHECKED.map((method) => [
        method,
        (params) => checkElectrumArgs(method, ELECTRUM_SIGNATURES[method], params)
      ])
    ),
    // A session past its limit is refused before anything is asked or charged, in ElectrumX's words.
    [SUBSCRIBE2]: (params, ctx) => {
      const checked2 = checkElectrumArgs(SUBSCRIBE2, ELECTRUM_SIGNATURES[SUBSCRIBE2], params);
      if (!checked2.ok || !ctx.electrum || ctx.electrum.canSubscribe(checked2.params[0])) {
        return checked2;
      }
      return { ok: false, error: { code: BAD_REQUEST, message: subscriptionLimit(ctx) } };
    }
  },
  unknownMethod: (method) => ({
    code: -32601,
    message: `unknown method "${method}"`
  }),
  errorStatus: () => 200,
  replyVersion: "2.0",
  execute: (ctx, calls) => Promise.all(
    calls.map(async (c) => {
      if (c.method === "blockchain.transaction.get") {
        const verbose = c.params[1] === true;
        const source = electrumTxSource(ctx.app, ctx.network);
        const out2 = await electrumTransaction(source, c.params[0], verbose);
        return render(out2, verbose, ctx.network);
      }
      if (c.method === "server.version") return await serverVersion(poolOf(ctx), c.params[0]);
      if (c.method === SUBSCRIBE2) return await subscribe(ctx, c.params[0]);
      if (c.method === "blockchain.scripthash.unsubscribe") {
        const held = ctx.electrum?.unsubscribeScripthash(c.params[0]) ?? false;
        return { kind: "answer", answer: { result: held }, upstream: GATEWAY_UPSTREAM };
      }
      const out = await forward(poolOf(ctx), c);
      if (c.method === "blockchain.headers.subscribe" && out.kind === "answer") {
        if ("result" in out.answer) ctx.electrum?.subscribeHeaders();
      }
      return out;
    })
  )
};
var noServer = () => ({
  kind: "failure",
  error: gatewayError("UPSTREAM_UNAVAILABLE", "no Electrum server for this network")
});
async function forward(pool, call) {
  if (!pool) return noServer();
  const out = await pool.request(call.method, call.params);
  if (!out.ok) return { kind: "failure", error: out.error };
  return { kind: "answer", answer: out.answer, upstream: out.upstream };
}
async function subscribe(ctx, scripthash2) {
  const pool = poolOf(ctx);
  if (!pool) return noServer();
  const claim = ctx.electrum?.claimScripthash(scripthash2);
  if (claim === "full") {
    return {
      kind: "refused",
      error: gatewayError("LIMIT_EXCEEDED", subscriptionLimit(ctx))
    };
  }
  const out = await readScripthashStatus(pool, scripthash2);
  const status = out.ok && "result" in out.answer ? out.answer.result : void 0;
  if (status !== void 0) ctx.electrum?.subscribeScripthash(scripthash2, status);
  else if (claim === "new") ctx.electrum?.unsubscribeScripthash(scripthash2);
  if (!out.ok) return { kind: "failure", error: out.error };
  return { kind: "answer", answer: out.answer, upstream: out.upstream };
}
function subscriptionLimit(ctx) {
  return `your address subscription limit ${pyThousands(ctx.app.config.electrum.subscriptionsMax)} reached`;
}
async function serverVersion(pool, agreed) {
  if (!pool) return noServer();
  if (!pool.serverVersion()) {
    const ping = await pool.request("server.ping", []);
    if (!ping.ok) return { kind: "failure", error: ping.error };
  }
  const version = pool.serverVersion();
  if (!version) {
    return {
      kind: "failure",
      error: gatewayError("UPSTREAM_UNAVAILABLE", "the Electrum server is unreachable", {
        detail: "no open connection has identified the server"
      })
    };
  }
  const result = [version.software, agreed];
  return { kind: "answer", answer: { result }, upstream: version.upstream };
}
function render(out, verbose, network) {
  if (out.kind === "failure") return out;
  if (out.kind === "refused") {
    return { kind: "answer", answer: { error: out.error }, upstream: out.upstream };
  }
  const result = verbose ? decodedTx(out.tx(), network, out.position, { blockheight: true }) : out.hex();
  return { kind: "answer", answer: { result }, upstream: out.upstream };
}
function handleElectrumRpc(ctx, body) {
  return handleRpcMirror(ctx, body, ELECTRUM2);
}

// src/mirror/electrum-push.ts
var HEADERS2 = "blockchain.headers.subscribe";
var SCRIPTHASH = "blockchain.scripthash.subscribe";
var ElectrumPush = class {
  constructor(channel, session, serial) {
    this.channel = channel;
    this.session = session;
    this.serial = serial;
  }
  channel;
  session;
  serial;
  headers = false;
  /** Each subscribed script hash and the status the client was last told. */
  scripthashes = /* @__PURE__ */ new Map();
  stop = null;
  /** Set when a notification could not be paid: nothing is pushed again. */
  ended = false;
  /** The tip to announce, when the chain gained blocks since the last look. */
  tip = null;
  scheduled = false;
  sent = 0;
  /** What stops the feed telling this session each script hash's statuses (held upstream). */
  feeds = /* @__PURE__ */ new Map();
  /**
   * Set by close: a call still running when the session closed must not take a subscription
   * (upstream, or to the chain's events) that nothing would ever release.
   */
  closed = false;
  subscribeHeaders() {
    this.headers = true;
    this.listen();
  }
  canSubscribe(scripthash2) {
    return this.scripthashes.has(scripthash2) || this.scripthashes.size < this.session.ctx.app.config.electrum.subscriptionsMax;
  }
  claimScripthash(scripthash2) {
    if (this.scripthashes.has(scripthash2)) return "held";
    if (!this.canSubscribe(scripthash2)) return "full";
    this.scripthashes.set(scripthash2, null);
    return "new";
  }
  subscribeScripthash(scripthash2, status) {
    this.scripthashes.set(scripthash2, status);
    this.listen();
    if (this.feeds.has(scripthash2) || this.closed) return;
    const { ctx } = this.session;
    const release = ctx.app.electrum.get(ctx.network)?.scripthashes.hold(scripthash2, (now, upstream) => this.told(scripthash2, now, upstream));
    if (release) this.feeds.set(scripthash2, release);
  }
  unsubscribeScripthash(scripthash2) {
    this.feeds.get(scripthash2)?.();
    this.feeds.delete(scripthash2);
    return this.scripthashes.delete(scripthash2);
  }
  close() {
    this.closed = true;
    this.stop?.();
    this.stop = null;
    for (const release of this.feeds.values()) release();
    this.feeds.clear();
  }
  /** The server told the feed a script hash's status: pushed in turn if the client was told another. */
  told(scripthash2, status, upstream) {
    this.serial(async () => {
      if (this.ended || !this.channel.isOpen()) return;
      const told = this.scripthashes.get(scripthash2);
      if (told === void 0 || told === status) return;
      const owner = await this.owner();
      if (owner) await this.deliver(owner, [this.scripthashNotice(scripthash2, status, upstream)]);
    });
  }
  /** Follows the chain from the first subscription on (once). */
  listen() {
    if (this.stop || this.closed) return;
    const { ctx } = this.session;
    this.stop = ctx.app.events.subscribe(ctx.network, (e) => {
      if (e.kind === "connected") this.tip = e;
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.serial(() => this.look());
      });
    });
  }
  async look() {
    if (!this.stop || !this.channel.isOpen()) return;
    if (!this.headers && this.scripthashes.size === 0) return;
    const owner = await this.owner();
    if (!owner) return;
    const { ctx } = this.session;
    const pool = ctx.app.electrum.get(ctx.network);
    if (!pool) return;
    await this.deliver(owner, [
      ...await this.headerNotice(pool),
      ...await this.scripthashNotices(pool)
    ]);
  }
  /** The token's owner, still valid; otherwise the session is closed and null. */
  async owner() {
    const owner = await this.session.stillValid();
    if (!owner) {
      this.close();
      this.channel.close("revoked");
    }
    return owner;
  }
  /** Sends each notice, charged as it goes; the first one the balance cannot pay ends them all. */
  async deliver(owner, notices) {
    const { ctx } = this.session;
    for (const notice of notices) {
      if (this.ended) return;
      this.sent += 1;
      const cost = await meter(
        { ...ctx, owner, requestId: `${ctx.requestId}.push${this.sent}`, startedAt: Date.now() },
        {
          calls: [
            {
              kind: "priced",
              method: notice.method,
              price: eventPrice(ctx.app.config, notice.method, ctx.network)
            }
          ],
          execute: async () => ({
            value: null,
            outcomes: [
              { kind: "answered", outcome: "ok", httpStatus: 200, upstream: notice.upstream }
            ]
          })
        }
      );
      if (!cost.ok) {
        this.ended = true;
        this.close();
        const error = rpcErrorObject(cost.error);
        this.send({
          jsonrpc: "2.0",
          id: null,
          error: { ...error, message: `${error.message}: notifications stop` }
        });
        return;
      }
      notice.sent?.();
      this.send({ jsonrpc: "2.0", method: notice.method, params: notice.params });
    }
  }
  /** The new tip's header, when headers are subscribed and the chain gained blocks. */
  async headerNotice(pool) {
    const tip = this.tip;
    this.tip = null;
    if (!this.headers || !tip) return [];
    const header = await pool.request("blockchain.block.header", [jsonNumber(tip.height)]);
    if (!header.ok || !("result" in header.answer) || typeof header.answer.result !== "string") {
      this.warn("header for a notification", tip.height);
      return [];
    }
    const params = [{ hex: header.answer.result, height: jsonNumber(tip.height) }];
    return [{ method: HEADERS2, params, upstream: header.upstream }];
  }
  /**
   * The subscribed script hashes the feed does not cover whose status is no longer the one the
   * client was told (covered ones are notified by the server).
   */
  async scripthashNotices(pool) {
    const held = [...this.scripthashes].filter(([hash4]) => !pool.scripthashes.covers(hash4));
    const read = await Promise.all(held.map(([hash4]) => readScripthashStatus(pool, hash4)));
    const unread = read.filter((out) => !out.ok || !("result" in out.answer)).length;
    if (unread > 0) this.warn("script hash statuses for notifications unread", unread);
    return held.flatMap(([hash4, told], i) => {
      const out = read[i];
      if (!out.ok || !("result" in out.answer)) return [];
      const status = out.answer.result;
      return status === told ? [] : [this.scripthashNotice(hash4, status, out.upstream)];
    });
  }
  /** A script hash's new status, remembered once sent (if still subscribed by then). */
  scripthashNotice(hash4, status, upstream) {
    return {
      method: SCRIPTHASH,
      params: [hash4, status],
      upstream,
      sent: () => {
        if (this.scripthashes.has(hash4)) this.scripthashes.set(hash4, status);
      }
    };
  }
  warn(what, at) {
    const { ctx } = this.session;
    ctx.app.log.warn({ network: ctx.network, at }, what);
  }
  send(message) {
    if (this.channel.isOpen()) this.channel.send(stringifyJson(message));
  }
};

// src/mirror/electrum-session.ts
function serveElectrumSession(channel, session) {
  let queue = Promise.resolve();
  const serial = (work) => {
    queue = queue.then(() => session.inFlight(work)).catch(() => channel.terminate());
  };
  const push = new ElectrumPush(channel, session, serial);
  channel.onClose(() => push.close());
  let sequence = 0;
  channel.onMessage((text) => {
    sequence += 1;
    const requestId = `${session.ctx.requestId}.${sequence}`;
    serial(() => answer(channel, session, text, requestId, push));
  });
  return { shutdown: () => serial(async () => channel.close("shutdown")) };
}
async function answer(channel, session, text, requestId, push) {
  if (!channel.isOpen()) return;
  const owner = await session.stillValid();
  if (!owner) {
    channel.send(failure(gatewayError("UNAUTHENTICATED", "the token is no longer valid")));
    channel.close("revoked");
    return;
  }
  const admission = await session.admit(owner);
  if (!admission.ok) {
    channel.send(failure(admission.error));
    return;
  }
  try {
    const reply3 = await handleElectrumRpc(
      { ...session.ctx, owner, requestId, startedAt: Date.now(), electrum: push },
      text
    );
    channel.send(reply3.raw ? Buffer.from(reply3.raw).toString("utf8") : stringifyJson(reply3.body));
  } finally {
    admission.release?.();
  }
}
function failure(error) {
  return stringifyJson(jsonRpcFailure(error).body);
}

// src/mirror/electrum-socket.ts
var CLOSE_CODES = {
  revoked: [1008, "token no longer valid"],
  shutdown: [1001, "server shutting down"]
};
function serveElectrumSocket(socket, session) {
  serveElectrumSession(webSocketChannel(socket), session);
}
function webSocketChannel(socket) {
  return {
    onMessage: (listener) => socket.on(
      "message",
      (data, isBinary) => listener(isBinary ? Buffer.from(data).toString("utf8") : String(data))
    ),
    onClose: (listener) => socket.once("close", listener),
    isOpen: () => socket.readyState === socket.OPEN,
    send: (text) => {
      if (socket.readyState === socket.OPEN) socket.send(text);
    },
    close: (reason) => {
      const [code, why] = CLOSE_CODES[reason];
      socket.close(code, why);
    },
    terminate: () => socket.terminate()
  };
}

// src/upstreams/indexer/hasura/introspection.ts
import { execute } from "graphql";
function executeIntrospection(schema, query) {
  const result = execute({
    schema,
    document: query.document,
    variableValues: query.variableValues,
    ...query.operation.name ? { operationName: query.operation.name.value } : {}
  });
  if ("then" in result) throw new Error("introspection resolved asynchronously");
  return result.data;
}

// src/upstreams/indexer/hasura/request.ts
function parseGraphRequest(body, depthMax = JSON_DEPTH_MAX) {
  let parsed2;
  try {
    if (jsonDepthOver(body, depthMax)) throw new SyntaxError("nested too deep");
    parsed2 = JSON.parse(body);
  } catch {
    return { ok: false, error: hasuraError("invalid json", "$", "invalid-json") };
  }
  const wrong = (expected, value, path) => ({
    ok: false,
    error: hasuraError(
      `expected ${expected}, but encountered ${jsonKind(value)}`,
      path,
      "parse-failed"
    )
  });
  const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObject(parsed2)) return wrong("Object", parsed2, "$");
  const o = parsed2;
  if (o.query === void 0) {
    return { ok: false, error: hasuraError('key "query" not found', "$", "parse-failed") };
  }
  if (typeof o.query !== "string") return wrong("String", o.query, "$.query");
  if (o.variables != null && !isObject(o.variables)) {
    return wrong("Object", o.variables, "$.variables");
  }
  if (o.operationName != null && typeof o.operationName !== "string") {
    return wrong("String", o.operationName, "$.operationName");
  }
  return {
    ok: true,
    request: {
      query: o.query,
      variables: o.variables ?? {},
      operationName: o.operationName ?? void 0
    }
  };
}
function jsonKind(v) {
  if (v === null) return "Null";
  if (Array.isArray(v)) return "Array";
  switch (typeof v) {
    case "string":
      return "String";
    case "number":
      return "Number";
    case "boolean":
      return "Boolean";
    default:
      return "Object";
  }
}

// src/mirror/graph-route.ts
async function handleGraphQuery(ctx, body) {
  const { app } = ctx;
  const schema = indexerSchema();
  const parsed2 = parseGraphRequest(body, ctx.app.config.server.jsonDepthMax);
  if (!parsed2.ok) return refuse3(ctx, "(invalid)", parsed2.error);
  const { request: request2 } = parsed2;
  const checked2 = checkGraphQuery(schema, request2, app.config.graph.tokensMax);
  if (!checked2.ok) return refuse3(ctx, "(invalid)", checked2.error);
  const { query } = checked2;
  const method = rootFieldNames(query);
  if (query.fields.every((f) => f.introspection)) {
    const metered2 = await meter(ctx, {
      calls: [{ kind: "priced", method, price: 0, complexity: 0 }],
      execute: async () => ({
        value: executeIntrospection(schema, query),
        outcomes: [{ kind: "answered", outcome: "ok", httpStatus: 200 }]
      })
    });
    if (!metered2.ok) return { ...graphqlFailure(metered2.error), headers: metered2.headers };
    return answer2(metered2.value, 0, metered2);
  }
  const limits = app.config.graph;
  const overLimit = checkGraphLimits(query.fields, limits);
  if (overLimit) return refuse3(ctx, method, overLimit);
  const complexity = graphComplexity(query.fields, limits);
  if (complexity > limits.complexityMax) {
    return refuse3(
      ctx,
      method,
      hasuraErrorObject(
        gatewayError(
          "LIMIT_EXCEEDED",
          `the query's complexity is ${complexity}; the limit is ${limits.complexityMax}: ask for fewer rows`
        ),
        { variant: "complexity-limit-exceeded" }
      )
    );
  }
  const metered = await meter(ctx, {
    // Charged as estimated: the price is of the query asked, known before it ran.
    calls: [
      {
        kind: "priced",
        method,
        price: graphPrice(app.config, ctx.network, complexity),
        complexity
      }
    ],
    execute: async () => {
      const cacheKey = finalBlocks(query) ? answerKey(ctx, request2) : null;
      const hit = cacheKey ? await app.txCache.blockAnswer(ctx.network, cacheKey) : null;
      if (hit) {
        const outcome2 = {
          kind: "answered",
          outcome: "ok",
          httpStatus: 200,
          upstream: CACHE_UPSTREAM,
          cacheHits: 1
        };
        return {
          value: { ok: true, data: hit, upstream: CACHE_UPSTREAM },
          outcomes: [outcome2]
        };
      }
      const pool = app.indexers.get(ctx.network);
      const out2 = pool ? await pool.query(request2, limits.queryTimeoutMs) : {
        ok: false,
        error: gatewayError("UPSTREAM_UNAVAILABLE", "no indexer for this network")
      };
      const outcome = out2.ok ? { kind: "answered", outcome: "ok", httpStatus: 200, upstream: out2.upstream } : { kind: "failed", error: out2.error };
      const blocks = out2.ok && cacheKey ? blocksOf(query, out2.data) : null;
      if (cacheKey && blocks && out2.ok) {
        await app.txCache.rememberBlockAnswer(ctx.network, cacheKey, out2.data, blocks);
      }
      return { value: out2, outcomes: [outcome] };
    }
  });
  if (!metered.ok) return { ...graphqlFailure(metered.error), headers: metered.headers };
  const out = metered.value;
  if (!out.ok) return { ...graphqlFailure(out.error), headers: metered.headers };
  return answer2(out.data, complexity, metered);
}
function answer2(data, complexity, cost) {
  const { charged, available: balance } = cost;
  return {
    status: 200,
    body: {
      data,
      extensions: { cost: { complexity, estimated: charged, actual: charged, charged, balance } }
    },
    headers: cost.headers
  };
}
async function refuse3(ctx, method, error) {
  const audited = await auditOnly(ctx, [
    {
      method,
      outcome: "rejected",
      errorCode: fromHasuraCode(error.extensions.code),
      upstreamCode: error.extensions.code,
      httpStatus: 200
    }
  ]);
  return { status: 200, body: { errors: [error] }, headers: audited.headers };
}
function finalBlocks(query) {
  return query.fields.every(
    (f) => f.name === "block_by_pk" && !f.introspection && typeof f.args.hash === "string" && f.children.some((c) => c.name === "height" && c.responseKey === "height")
  );
}
function blocksOf(query, data) {
  const blocks = [];
  for (const f of query.fields) {
    const row = data[f.responseKey];
    const height = isJsonObject(row) ? jsonInteger(row.height) : void 0;
    if (height === void 0) return null;
    blocks.push({ height, blockhash: String(f.args.hash).toLowerCase() });
  }
  return blocks;
}
function answerKey(ctx, request2) {
  return `${ctx.network}\0${request2.operationName ?? ""}\0${request2.query}\0${stringifyJson(request2.variables)}`;
}
function rootFieldNames(query) {
  return [...new Set(query.fields.map((f) => f.name))].join(",");
}

// src/jsonrpc/core-methods.ts
var GENESIS_COINBASE = {
  mainnet: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
  testnet: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
  signet: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
  regtest: "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",
  testnet4: "7aa0a7ae1e223414cb807e40cd57e667b718e42aaf9306db9102fe28912b7b4e"
};
var GETRAWTRANSACTION_NAMES = ["txid", "verbosity|verbose", "blockhash"];
function checkGetRawTransaction(raw, network) {
  const positional = asPositional(raw, GETRAWTRANSACTION_NAMES);
  if (isRpcError(positional)) return { ok: false, error: positional };
  const params = positional;
  if (params.length < 1 || params.length > 3) {
    return {
      ok: false,
      error: {
        code: RPC_MISC_ERROR,
        message: `getrawtransaction "txid" ( verbosity "blockhash" )

By default, this call only returns a transaction if it is in the mempool. If -txindex is enabled and no blockhash argument is passed, it will return the transaction if it is in a block in the blockchain.
(blockgate gives Core's usage line only: pass 1 to 3 parameters)`
      }
    };
  }
  const [txid, verbosity = null, blockhash = null] = params;
  const mismatches = [];
  if (typeof txid !== "string") {
    mismatches.push([
      "Position 1 (txid)",
      `JSON value of type ${uvTypeName(txid)} is not of expected type string`
    ]);
  }
  if (blockhash !== null && typeof blockhash !== "string") {
    mismatches.push([
      "Position 3 (blockhash)",
      `JSON value of type ${uvTypeName(blockhash)} is not of expected type string`
    ]);
  }
  if (mismatches.length > 0) {
    return {
      ok: false,
      error: { code: RPC_TYPE_ERROR, message: `Wrong type passed:
${writeIndented4(mismatches)}` }
    };
  }
  const txidError = checkHash(txid, "parameter 1");
  if (txidError) return { ok: false, error: txidError };
  if (txid.toLowerCase() === GENESIS_COINBASE[network]) return { ok: true, params };
  const verbosityError = checkVerbosity(verbosity);
  if (verbosityError) return { ok: false, error: verbosityError };
  if (typeof blockhash === "string") {
    const blockError = checkHash(blockhash, "parameter 3");
    if (blockError) return { ok: false, error: blockError };
  }
  return { ok: true, params };
}
function checkVerbosity(value) {
  const verbosity = parseVerbosity(value, 0, true);
  return typeof verbosity === "number" ? null : verbosity;
}

// src/mirror/node-route.ts
var NODE = {
  methods: {
    getrawtransaction: (params, ctx) => checkGetRawTransaction(params, ctx.network),
    ...Object.fromEntries(
      Object.entries(CORE_METHOD_ARGS).map(([method, spec]) => [
        method,
        (params) => checkCoreArgs(spec, params)
      ])
    )
  },
  unknownMethod: () => ({ code: -32601, message: "Method not found" }),
  errorStatus: (version, code) => version === "1.0" ? legacyErrorStatus(code) : 200,
  execute: executeNodeCalls
};
function handleNodeRpc(ctx, body) {
  return handleRpcMirror(ctx, body, NODE);
}
async function executeNodeCalls(ctx, calls) {
  const results = await fromCache(ctx, calls);
  const missing = calls.flatMap((_, i) => results[i] ? [] : [i]);
  if (missing.length > 0) {
    const pool = ctx.app.nodes.get(ctx.network);
    const out = pool ? await pool.batch(
      missing.map((i) => ({ method: calls[i].method, params: calls[i].params }))
    ) : {
      ok: false,
      error: gatewayError("UPSTREAM_UNAVAILABLE", "no full node for this network")
    };
    missing.forEach((i, k) => {
      results[i] = out.ok ? { kind: "answer", answer: out.answers[k], upstream: out.upstream } : { kind: "failure", error: out.error };
    });
    if (out.ok)
      await remember2(
        ctx,
        missing.map((i, k) => [calls[i], out.answers[k]])
      );
  }
  return results;
}
function cacheable(call) {
  if (call.method !== "getrawtransaction") return null;
  const [txid, verbosity = null, blockhash = null] = call.params;
  if (typeof txid !== "string" || blockhash !== null) return null;
  const level = verbosity === null ? 0 : typeof verbosity === "boolean" ? Number(verbosity) : jsonInteger(verbosity);
  if (level === void 0 || level >= 2) return null;
  return { txid: txid.toLowerCase(), verbose: level >= 1 };
}
async function fromCache(ctx, calls) {
  const lookups = calls.map(cacheable);
  const asked = lookups.flatMap((l, i) => l ? [i] : []);
  const results = calls.map(() => null);
  if (asked.length === 0) return results;
  const cached = await ctx.app.txCache.lookup(
    ctx.network,
    asked.map((i) => lookups[i].txid)
  );
  if (!cached) return results;
  const { memory } = ctx.app.txCache;
  asked.forEach((i, k) => {
    const entry = cached.found[k];
    if (!entry) return;
    const txid = lookups[i].txid;
    const result = lookups[i].verbose ? decodedTxFromBase(
      memory.rendered(
        ctx.network,
        txid,
        entry,
        () => decodedTxBaseText(parseTransaction(entry.bytes), ctx.network)
      ),
      { ...entry, confirmations: cached.tip - entry.height + 1 },
      { blockheight: false }
    ) : toHex(entry.bytes);
    results[i] = { kind: "answer", answer: { result }, upstream: "cache" };
  });
  return results;
}
async function remember2(ctx, pairs) {
  const pool = ctx.app.nodes.get(ctx.network);
  if (!pool || !ctx.app.txCache.enabled) return;
  const answers = pairs.flatMap(([call, answer3]) => {
    const lookup = cacheable(call);
    return lookup?.verbose && "result" in answer3 ? [{ txid: lookup.txid, result: resultScalars(answer3) }] : [];
  });
  await rememberFromCore(ctx.app.txCache, pool, ctx.network, answers);
}

// src/app/electrum-tls.ts
import { randomUUID as randomUUID6 } from "node:crypto";
import { readFileSync as readFileSync3 } from "node:fs";
import { createServer } from "node:tls";

// src/mirror/electrum-lines.ts
var IDLE_TIMEOUT_MS = 6e5;
function lineChannel(socket, lineBytesMax) {
  const splitter = new LineSplitter(lineBytesMax);
  const isOpen = () => !socket.destroyed && socket.writable;
  socket.setNoDelay(true);
  socket.setTimeout(IDLE_TIMEOUT_MS, () => socket.destroy());
  return {
    onMessage: (listener) => {
      let refused2 = false;
      socket.on("data", (chunk) => {
        if (refused2) return;
        const lines = splitter.push(chunk);
        if (lines === "too-long") {
          refused2 = true;
          const tooLarge = gatewayError("PAYLOAD_TOO_LARGE", `message over ${lineBytesMax} bytes`);
          socket.end(`${failure(tooLarge)}
`);
          return;
        }
        for (const line of lines) if (line.trim() !== "") listener(line);
      });
      socket.resume();
    },
    onClose: (listener) => socket.once("close", listener),
    isOpen,
    send: (text) => {
      if (isOpen()) socket.write(`${text}
`);
    },
    close: () => socket.end(),
    terminate: () => socket.destroy()
  };
}

// src/app/electrum-tls.ts
async function startElectrumTls(app, registry) {
  const config = app.config.electrum.tls;
  if (!config) return null;
  const server = createServer({
    cert: readConfigFile(config.certFile, "electrum.tls.certFile"),
    key: readConfigFile(config.keyFile, "electrum.tls.keyFile")
  });
  registry.connections.watch(server, (socket) => socket.destroy());
  const raw = /* @__PURE__ */ new Set();
  server.on("connection", (socket) => {
    raw.add(socket);
    socket.once("close", () => raw.delete(socket));
  });
  server.on("tlsClientError", () => {
  });
  const sockets = /* @__PURE__ */ new Map();
  server.on("secureConnection", (socket) => {
    sockets.set(socket, () => socket.end());
    socket.once("close", () => sockets.delete(socket));
    socket.on("error", () => {
    });
    socket.pause();
    accept(app, socket, config, registry.requests).then((session) => {
      if (session && sockets.has(socket)) sockets.set(socket, session.shutdown);
    }).catch((err) => {
      app.log.error({ err }, "electrum tls session");
      socket.destroy();
    });
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const closed = new Promise((resolve) => server.once("close", () => resolve()));
  return {
    port: server.address().port,
    shutdown: () => {
      server.close();
      for (const end of sockets.values()) end();
    },
    destroy: async () => {
      if (server.listening) server.close();
      for (const socket of raw) socket.destroy();
      await closed;
    }
  };
}
async function accept(app, socket, config, requests) {
  const refuse4 = (error) => {
    socket.end(`${failure(error)}
`);
    socket.resume();
  };
  const named = tokenOfServerName(socket.servername, config, app.config.networks);
  const requestId = randomUUID6();
  if (!named) {
    app.metrics.authFailures.inc({ route: "electrum" });
    app.log.info({ requestId, route: "electrum-tls" }, "no token in the TLS server name");
    refuse4(gatewayError("UNAUTHENTICATED", "no access token in the TLS server name"));
    return null;
  }
  const { token, network } = named;
  const backendSegment = app.config.backends.electrum;
  const from = {
    source: socket.remoteAddress ?? "unknown",
    backendSegment,
    network,
    route: "electrum"
  };
  const authenticated = await authenticateCall(app, token, from);
  const hint = tokenHint(token);
  if (!authenticated.ok) {
    app.log.info({ requestId, route: "electrum-tls", network, tokenHint: hint }, "refused");
    refuse4(authenticated.error);
    return null;
  }
  const owner = authenticated.owner;
  const outside = checkScope(app, owner, { ...from, backend: "electrum", origin: null });
  if (outside) {
    refuse4(outside);
    return null;
  }
  const admission = await admitCall(app, owner, from);
  if (!admission.ok) {
    refuse4(admission.error);
    return null;
  }
  admission.release?.();
  app.log.info({ requestId, route: "electrum-tls", network, tokenHint: hint }, "session");
  return serveElectrumSession(lineChannel(socket, app.config.server.bodyBytesMax), {
    ctx: {
      app,
      requestId,
      owner,
      backend: "electrum",
      backendSegment,
      network,
      startedAt: Date.now()
    },
    stillValid: () => app.tokens.authenticate(token),
    admit: (o) => admitCall(app, o, from),
    // Each message's work counts in flight on the connection: drain waits for it.
    inFlight: (work) => requests.run(socket, work)
  });
}
function tokenOfServerName(servername2, config, networks) {
  if (typeof servername2 !== "string") return null;
  const tail = `.${config.serverNameSuffix}`;
  if (!servername2.toLowerCase().endsWith(tail)) return null;
  const labels = servername2.slice(0, -tail.length).split(".");
  const label = labels[0] ?? "";
  const network = labels.length === 2 ? labels[1].toLowerCase() : config.network;
  if (label === "" || labels.length > 2 || network === void 0) return null;
  if (!networks.includes(network)) return null;
  return { token: tokenOfDnsLabel(label), network };
}
function readConfigFile(path, setting) {
  try {
    return readFileSync3(path);
  } catch (err) {
    throw new Error(`${setting}: cannot read ${path}: ${err.message}`);
  }
}

// src/app/server.ts
var ROUTES = {
  node: { handler: handleNodeRpc, methods: ["POST"], protocol: "jsonrpc" },
  electrum: {
    handler: handleElectrumRpc,
    methods: ["POST"],
    protocol: "jsonrpc",
    webSocket: serveElectrumSocket
  },
  // GET serves GraphiQL to browsers and runs queries per the GraphQL-over-HTTP spec.
  gateway: {
    handler: async (ctx, body, req) => (await unifiedApi()).handleGateway(ctx, body, req),
    methods: ["GET", "POST"],
    protocol: "graphql",
    // graphql-ws (the graphql-transport-ws protocol): operations and subscriptions per message.
    webSocket: (socket, session) => {
      socket.pause();
      unifiedApi().then(
        (api) => {
          api.serveGraphQLSocket(socket, session);
          socket.resume();
        },
        () => socket.close(1011, "the unified API could not be loaded")
      );
    }
  },
  graph: { handler: handleGraphQuery, methods: ["POST"], protocol: "graphql" }
};
var OWN_SEGMENTS = /* @__PURE__ */ new Set(["dashboard", "admin"]);
async function startHttpServer(app, host, port) {
  const http = createFramework({
    requestTimeoutMs: app.config.server.requestTimeoutMs,
    headersTimeoutMs: app.config.server.headersTimeoutMs,
    keepAliveTimeoutMs: app.config.server.keepAliveTimeoutMs,
    bodyBytesMax: app.config.server.bodyBytesMax
  });
  const connections = new AddressConnections(
    app.config.server.connectionsPerAddressMax,
    () => app.metrics.connectionsRefused.inc()
  );
  connections.watch(http.server, httpRefusal());
  const requests = new InFlight(http.server);
  countInFlight(http, requests);
  await http.register(websocket, { options: { maxPayload: app.config.server.bodyBytesMax } });
  const sockets = /* @__PURE__ */ new Set();
  notFoundBeforeBody(
    http,
    async (_request, reply3) => sendReply(reply3, plainFailure(gatewayError("ROUTE_NOT_FOUND", "no such route")))
  );
  http.addHook("onResponse", (request2, reply3, done) => {
    observe(app, request2, reply3);
    done();
  });
  http.setErrorHandler((err, _request, reply3) => unhandled(app, err, reply3));
  http.get(
    "/healthz",
    async (_request, reply3) => sendReply(reply3, { status: 200, body: { status: "ok" } })
  );
  http.get(
    "/readyz",
    async (_request, reply3) => sendReply(reply3, { ...await readiness(app), headers: { "cache-control": "no-store" } })
  );
  operatorRoutes(http, app);
  dashboardRoutes(http, app);
  catalogueRoutes(http, app);
  backendRoutes(http, app, { requests, sockets });
  await http.ready();
  const server = http.server;
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const electrumTls = await startElectrumTls(app, {
    requests,
    connections
  }).catch((err) => {
    server.close();
    throw err;
  });
  warmUnifiedApi(app);
  const address = server.address();
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
  return {
    server,
    url,
    drain: async (timeoutMs) => {
      for (const socket of sockets) socket.close(1001, "server shutting down");
      electrumTls?.shutdown();
      const outcome = await drain(server, requests, timeoutMs);
      await electrumTls?.destroy();
      return outcome;
    },
    inFlight: () => requests.size,
    electrumTls: electrumTls ? { port: electrumTls.port } : null
  };
}
function backendRoutes(http, app, registry) {
  http.decorateRequest("call", null);
  const taken = /* @__PURE__ */ new Set();
  for (const backend of Object.keys(app.config.backends)) {
    const segment = app.config.backends[backend];
    if (taken.has(segment) || OWN_SEGMENTS.has(segment)) continue;
    taken.add(segment);
    const route = ROUTES[backend];
    if (!route) continue;
    for (const network of app.config.networks) {
      if (backend === "graph" && !app.indexers.has(network)) continue;
      backendRoute(http, app, { ...route, backend, segment, network }, registry);
    }
  }
}
function backendRoute(http, app, route, registry) {
  const contextOf = (request2) => {
    const call = request2.getDecorator("call");
    return {
      app,
      requestId: request2.id,
      owner: call.owner,
      backend: route.backend,
      backendSegment: route.segment,
      network: route.network,
      startedAt: call.started
    };
  };
  const fromOf = (request2) => ({
    source: request2.socket.remoteAddress ?? "unknown",
    backendSegment: route.segment,
    network: route.network,
    route: route.backend
  });
  const failure2 = route.protocol === "graphql" ? graphqlFailure : jsonRpcFailure;
  const fail = (reply3, error) => sendReply(reply3, failure2(error));
  const bodyBytesMax = app.config.server.bodyBytesMax;
  const onRequest = async (request2, reply3) => {
    const presented = presentedToken(request2.params.token, request2.headers);
    const call = {
      token: presented.token,
      tokenInPath: presented.inPath,
      started: Date.now(),
      owner: null
    };
    request2.setDecorator("call", call);
    reply3.header("x-request-id", request2.id);
    const origin = crossOrigin(request2.headers);
    if (request2.method === "OPTIONS" && origin !== null) {
      return preflight(app, route, reply3, origin, presented.inPath ? presented.token : null);
    }
    const upgrade = route.webSocket !== void 0 && request2.ws;
    if (!route.methods.includes(request2.method) && !upgrade) {
      reply3.header("allow", route.methods.join(", "));
      return fail(reply3, gatewayError("METHOD_NOT_ALLOWED", `use ${route.methods.join(" or ")}`));
    }
    const from = fromOf(request2);
    const authenticated = await authenticateCall(app, call.token, from);
    if (!authenticated.ok) {
      reply3.headers(authenticated.headers);
      return fail(reply3, authenticated.error);
    }
    call.owner = authenticated.owner;
    const outside = checkScope(app, call.owner, {
      source: from.source,
      backendSegment: from.backendSegment,
      network: from.network,
      backend: route.backend,
      origin
    });
    if (outside) return fail(reply3, outside);
    if (origin !== null && originAllowed(call.owner.scope ?? null, origin)) {
      reply3.headers(corsHeaders(origin));
    }
    const admission = await admitCall(app, call.owner, from);
    reply3.headers(admission.headers);
    if (!admission.ok) return fail(reply3, admission.error);
    if (admission.release) {
      if (upgrade) admission.release();
      else reply3.raw.once("close", admission.release);
    }
    call.response = reply3.raw;
  };
  for (const url of [
    `/${route.segment}/${route.network}/:token`,
    `/${route.segment}/${route.network}`
  ]) {
    const options = {
      url,
      bodyLimit: bodyBytesMax,
      onRequest,
      handler: async (request2, reply3) => {
        const ctx = contextOf(request2);
        request2.raw.url = request2.originalUrl;
        const body = bodyText(request2);
        const answer3 = await idempotent(
          ctx,
          request2.headers["idempotency-key"],
          body,
          (c) => route.handler(c, body, request2.raw),
          failure2
        );
        return sendReply(reply3, answer3);
      },
      errorHandler: async (err, request2, reply3) => {
        if (!isTooLarge(err)) throw err;
        const audited = await auditOnly(contextOf(request2), [
          {
            method: "(invalid)",
            outcome: "rejected",
            errorCode: "PAYLOAD_TOO_LARGE",
            httpStatus: 413
          }
        ]);
        reply3.headers(audited.headers);
        return fail(reply3, gatewayError("PAYLOAD_TOO_LARGE", `body over ${bodyBytesMax} bytes`));
      },
      // The request line: the token only as its hint.
      onResponse: async (request2, reply3) => {
        if (!app.log.isLevelEnabled("info")) return;
        const call = request2.getDecorator("call");
        app.log.info(
          {
            requestId: request2.id,
            method: request2.method,
            path: `/${route.segment}/${route.network}${call.tokenInPath ? `/${tokenHint(call.token)}` : ""}`,
            ...call.tokenInPath || !call.token ? {} : { tokenHint: tokenHint(call.token) },
            status: reply3.statusCode,
            ms: Date.now() - call.started
          },
          "request"
        );
      }
    };
    const serveSocket = route.webSocket;
    if (!serveSocket) {
      http.route({ ...options, method: ALL_METHODS });
      continue;
    }
    http.route({ ...options, method: ALL_METHODS.filter((m) => m !== "GET") });
    http.route({
      ...options,
      method: "GET",
      exposeHeadRoute: false,
      wsHandler: (socket, request2) => {
        const call = request2.getDecorator("call");
        const from = fromOf(request2);
        registry.sockets.add(socket);
        socket.once("close", () => registry.sockets.delete(socket));
        serveSocket(socket, {
          ctx: contextOf(request2),
          stillValid: () => app.tokens.authenticate(call.token),
          admit: (owner) => admitCall(app, owner, from),
          // Each message's work counts in flight on the opening request: drain waits for it.
          inFlight: (work) => registry.requests.run(call.response, work)
        });
      }
    });
  }
}
async function preflight(app, route, reply3, origin, pathToken) {
  const allowed = [...route.methods, "OPTIONS"];
  if (pathToken !== null) {
    const owner = await app.tokens.authenticate(pathToken);
    const inScope = owner !== null && originAllowed(owner.scope ?? null, origin) && requestOutOfScope(owner.scope ?? null, {
      backend: route.backend,
      network: route.network,
      address: reply3.request.socket.remoteAddress ?? "",
      origin
    }) === null;
    if (!inScope) {
      return sendReply(reply3, plainFailure(gatewayError("SCOPE_ORIGIN", "origin not allowed")));
    }
  }
  reply3.headers(preflightHeaders(origin, allowed));
  return reply3.code(204).send();
}
function unhandled(app, err, reply3) {
  if (isTooLarge(err) && !reply3.raw.headersSent) {
    reply3.header("connection", "close");
    return sendReply(
      reply3,
      plainFailure(gatewayError("PAYLOAD_TOO_LARGE", "request body over the limit"))
    );
  }
  if (err instanceof LedgerError) app.metrics.ledgerFailures.inc();
  app.log.error({ err }, "unhandled error");
  if (!reply3.raw.headersSent) {
    return sendReply(reply3, plainFailure(gatewayError("INTERNAL", "internal error")));
  }
  reply3.raw.destroy();
  return reply3;
}
function observe(app, request2, reply3) {
  const [first = "", second = ""] = pathParts(request2);
  const labels = routeLabels(app);
  const kind = labels.backends.get(first);
  const route = kind ?? (OWN_ROUTES.has(first) ? first : "unknown");
  const network = kind && labels.networks.has(second) ? second : "";
  app.metrics.requests.inc({ route, network, status: String(reply3.statusCode) });
  app.metrics.latency.observe({ route }, reply3.elapsedTime / 1e3);
  const charged = Number(reply3.getHeader("x-credits-charged") ?? 0);
  if (charged > 0) app.metrics.credits.inc({ route, network }, charged);
}
var OWN_ROUTES = /* @__PURE__ */ new Set(["dashboard", "healthz", "readyz", "metrics", "admin"]);
var labelsOf = /* @__PURE__ */ new WeakMap();
function routeLabels(app) {
  let labels = labelsOf.get(app);
  if (!labels) {
    const backends = /* @__PURE__ */ new Map();
    for (const k of Object.keys(app.config.backends)) {
      if (!backends.has(app.config.backends[k])) backends.set(app.config.backends[k], k);
    }
    labels = { backends, networks: new Set(app.config.networks) };
    labelsOf.set(app, labels);
  }
  return labels;
}

// src/app/app.ts
function openStore(config, opts) {
  return openDatabase({
    databaseUrl: opts.databaseUrl,
    pgliteDir: config.database.pgliteDir,
    pgliteSnapshot: opts.pgliteSnapshot,
    poolSize: config.database.poolSize,
    ...opts.databaseSchema ? { schema: opts.databaseSchema } : {}
  });
}
function instanceName(config, db, storeGiven) {
  if (config.ledger.instance) return config.ledger.instance;
  const dir = config.database.pgliteDir;
  if (db.kind === "pglite" && !storeGiven && !dir.startsWith("memory://")) return `pglite:${dir}`;
  if (db.kind === "pglite" || config.server.port === 0) return `ephemeral-${randomUUID7()}`;
  return `${hostname()}:${config.server.port}`;
}
function eventBus(config, db, log, redisUrl) {
  const own = databaseBus(db);
  if (!redisUrl || db.kind !== "postgres") return own;
  const channel = `${config.events.redisChannelPrefix}${db.namespace}`;
  return new RedisBus(
    { url: redisUrl, channel, timeoutMs: config.events.redisTimeoutMs },
    own,
    log
  );
}
async function startGateway(config, opts) {
  const log = createLogger(config.log.level, opts.logDestination);
  const db = await (opts.store ?? openStore(config, opts));
  const metrics = new Metrics();
  const policy = (backend) => ({
    ...config.failover,
    attemptTimeoutMs: config.failover.attemptTimeoutMs[backend]
  });
  const nodes = /* @__PURE__ */ new Map();
  const txMemory = new TxCache(config.cache.bytesMax);
  const blockAnswers = new BlockAnswerCache(config.cache.blockBytesMax);
  const guards = /* @__PURE__ */ new Map();
  const electrum = /* @__PURE__ */ new Map();
  for (const network of config.networks) {
    const upstreams = opts.nodeUpstreams[network];
    if (upstreams && upstreams.length > 0) {
      const pool = new BitcoinCorePool(upstreams, {
        policy: policy("node"),
        observer: metrics.pool("node", network),
        onCombined: (requests, calls) => metrics.coalesced(network, requests, calls),
        onShared: () => metrics.shared("node", network)
      });
      nodes.set(network, pool);
      guards.set(
        network,
        // A block the best chain no longer has: what the cache holds of it goes.
        new ChainGuard(pool, config.cache.tipTtlMs, (height) => {
          const dropped = txMemory.dropHeight(network, height) + blockAnswers.dropHeight(network, height) + // Built below, with the store it asks; a reorganisation comes long after.
          gatewayAnswers.dropHeight(network, height);
          log.info({ network, height, dropped }, "reorganisation: cached block evicted");
        })
      );
    }
    const servers = opts.electrumUpstreams?.[network];
    if (servers && servers.length > 0) {
      const pool = new ElectrumPool(servers, {
        policy: policy("electrum"),
        observer: metrics.pool("electrum", network),
        onShared: () => metrics.shared("electrum", network),
        upstreamSubscriptionsMax: config.electrum.upstreamSubscriptionsMax,
        warn: (what, detail) => log.warn({ network, ...detail }, what)
      });
      pool.start();
      electrum.set(network, pool);
    }
  }
  const indexers = /* @__PURE__ */ new Map();
  for (const network of config.networks) {
    const upstreams = opts.graphUpstreams?.[network];
    if (upstreams && upstreams.length > 0) {
      indexers.set(
        network,
        new IndexerPool(upstreams, {
          policy: policy("graph"),
          observer: metrics.pool("graph", network),
          onShared: () => metrics.shared("graph", network)
        })
      );
    }
  }
  const redis = opts.redisUrl ? new RedisTier({ url: opts.redisUrl, ...config.cache.redis }, log) : null;
  const txCache = new TxStore(
    txMemory,
    redis,
    guards,
    config.cache.minConfirmations,
    (network, tier, result, count) => {
      if (count > 0) metrics.cacheLookups.inc({ network, tier, result }, count);
    },
    blockAnswers
  );
  const gatewayAnswers = new GatewayAnswers(config.cache.gatewayBytesMax, txCache);
  const credits = new Credits(db, log, {
    processId: randomUUID7(),
    instance: instanceName(config, db, opts.store !== void 0),
    ttlMs: config.ledger.holdTimeoutMs,
    leaseWindowMs: config.ledger.leaseWindowMs,
    leaseMinCalls: config.ledger.leaseMinCalls,
    leaseKeepFactor: config.ledger.leaseKeepFactor,
    leaseIdleMs: config.ledger.leaseIdleMs,
    batchRowsMax: config.ledger.batchRowsMax,
    pendingRowsMax: config.ledger.pendingRowsMax,
    settleGatherUs: config.ledger.settleGatherUs
  });
  const authFailures = new AuthFailures(db, (err) => log.warn({ err }, "writing failed logins"));
  const limits = Limits.create(config, db, log, opts.redisUrl);
  const events = new ChainEvents(
    db,
    eventBus(config, db, log, opts.redisUrl),
    nodes,
    electrum,
    config.events,
    log,
    (e) => metrics.chainEvents.inc({ network: e.network, kind: e.kind })
  );
  authFailures.start();
  const app = {
    config,
    db,
    credits,
    limits,
    authThrottle: new AuthThrottle({
      free: config.server.authFailuresFree,
      baseMs: config.server.authDelayBaseMs,
      maxMs: config.server.authDelayMaxMs,
      windowMs: config.server.authFailureWindowMs
    }),
    tokens: new TokenCache(db, {
      onRevoked: (tokenId, dropped) => log.info({ tokenId, dropped }, "token revocation received")
    }),
    authFailures,
    log,
    nodes,
    indexers,
    electrum,
    events,
    txCache,
    gatewayAnswers,
    parsedTxs: new ParsedTxs(config.cache.decodedBytesMax),
    webhookTargets: new TargetPolicy(config.webhooks.allowTargets),
    metrics,
    databaseCheck: databaseCheck(db),
    draining: false
  };
  const restarted = await credits.start();
  const voided = restarted.voided + await voidStaleHolds(db, config.ledger.holdTimeoutMs);
  if (voided > 0) log.warn({ voided }, "voided reservations orphaned by an earlier crash");
  const sweeper = setInterval(() => {
    voidStaleHolds(db, config.ledger.holdTimeoutMs).catch(
      (err) => log.error({ err }, "hold sweeper failed")
    );
  }, config.ledger.holdTimeoutMs);
  sweeper.unref();
  events.start();
  await events.hearing(1e3);
  const webhooks = new Webhooks(config.webhooks, log);
  await webhooks.start(app);
  const http = await startHttpServer(app, config.server.host, config.server.port);
  const admin = db.kind === "pglite" && !opts.noAdminFile && writesAdminFile(config) ? writeAdminFile(config, http.url) : null;
  if (admin) app.adminSecret = admin.secret;
  const pools = [...nodes.values(), ...indexers.values(), ...electrum.values()];
  const shutdown = async () => {
    app.draining = true;
    clearInterval(sweeper);
    await events.close();
    const drained = http.drain(config.server.drainTimeoutMs);
    log.info({ inFlight: http.inFlight(), timeoutMs: config.server.drainTimeoutMs }, "draining");
    const { cut, ms } = await drained;
    await webhooks.close(cut === 0 ? config.server.drainTimeoutMs : 1);
    if (cut === 0) {
      await credits.stop().catch((err) => log.warn({ err }, "returning credit leases"));
      await authFailures.stop();
      await Promise.all(pools.map((p) => p.close()));
      await txCache.close();
      await limits.close();
      await db.close();
    } else {
      log.warn({ cut }, "drain timed out: calls cut, their holds are left to the hold sweeper");
      credits.abandon();
      await authFailures.stop();
      await db.close();
      await Promise.all(pools.map((p) => p.close(true)));
      await txCache.close();
      await limits.close();
    }
    admin?.remove();
    log.info({ ms, cut }, "drained");
  };
  let closing;
  return {
    app,
    http,
    url: http.url,
    webhooks,
    close: () => {
      closing ??= shutdown();
      return closing;
    }
  };
}

// src/app/banner.ts
var HAL_TXID2 = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
function startupBanner(config, url, where, demo) {
  const lines = [`blockgate listening on ${url}  (${where})`];
  if (!demo) return `${lines.join("\n")}
`;
  const token = demo.token ?? "$TOKEN";
  lines.push(
    `demo account "demo": ${demo.balance} CC available${demo.created ? " (created now)" : ""}`,
    demo.token ? `its token (shown once, stored hashed; it keeps working across restarts): ${demo.token}` : `its token: ${demo.hint}, printed by the start that issued it and still valid; set TOKEN to it, or issue another: npm run cli -- token issue demo`,
    "",
    "Try it \u2014 the first Bitcoin payment, Satoshi to Hal Finney (200 CC on mainnet):",
    `curl -s ${url}/${config.backends.node}/mainnet/${token} -H 'content-type: application/json' \\`,
    `  -d '{"jsonrpc":"2.0","id":1,"method":"getrawtransaction","params":["${HAL_TXID2}"]}'`,
    "",
    "The same transaction, decoded, from the Electrum backend (100 CC on mainnet):",
    `curl -s ${url}/${config.backends.electrum}/mainnet/${token} -H 'content-type: application/json' \\`,
    `  -d '{"jsonrpc":"2.0","id":1,"method":"blockchain.transaction.get","params":["${HAL_TXID2}",true]}'`,
    "",
    "Or ask the block indexer for the latest block (300 CC plus its complexity):",
    `curl -s ${url}/${config.backends.graph}/mainnet/${token} -H 'content-type: application/json' \\`,
    `  -d '{"query":"{ block(limit: 1, order_by: {height: desc}) { hash height transactions(limit: 2) { hash size_bytes } } }"}'`,
    "",
    ...liveBlocks(config, url, token),
    "Then see what it cost: npm run cli -- usage demo",
    `Explore the unified GraphQL API in a browser (GraphiQL): ${url}/${config.backends.gateway}/mainnet/${token}`,
    `Every method the node and Electrum routes serve, with its price and an example: ${url}/methods`
  );
  return `${lines.join("\n")}
`;
}
function liveBlocks(config, url, token) {
  const network = config.devnet.blockNetworks.find((n2) => config.networks.includes(n2));
  if (config.devnet.blockIntervalMs === 0 || !network) return [];
  const seconds = config.devnet.blockIntervalMs / 1e3;
  return [
    `Watch ${network} blocks arrive as devnet makes them (one every ${seconds} s; ${eventPrice(config, "newBlock", network)} CC each), or use \`npx blockgate devnet mine\`:`,
    `curl -sN ${url}/${config.backends.gateway}/${network}/${token} -H 'content-type: application/json' -H 'accept: text/event-stream' \\`,
    `  -d '{"query":"subscription { newBlock { kind height hash } }"}'`,
    ""
  ];
}

// src/app/demo.ts
var DEMO_ACCOUNT = "demo";
var DEMO_TOKEN_LABEL = "npm start";
async function prepareDemo(db, credits) {
  let account = await findAccount(db, DEMO_ACCOUNT);
  const created = !account;
  if (!account) {
    account = await createAccount(db, DEMO_ACCOUNT);
    if (credits > 0) await grantCredits(db, account.id, credits, "demo account on first start");
  }
  const id = account.id;
  return db.transaction(async (tx) => {
    const live = await tx.query(
      "SELECT hint FROM tokens WHERE account_id = $1 AND label = $2 AND revoked_at IS NULL ORDER BY id DESC LIMIT 1",
      [id, DEMO_TOKEN_LABEL]
    );
    const issued = live.rows[0] ? null : await issueToken(tx, id, DEMO_TOKEN_LABEL);
    const { rows } = await tx.query(
      "SELECT balance - held AS available FROM accounts WHERE id = $1",
      [id]
    );
    return {
      balance: rows[0].available,
      created,
      token: issued?.token ?? null,
      hint: issued?.hint ?? live.rows[0].hint
    };
  });
}

// src/app/upstreams.ts
function devnetNetworks(config) {
  return config.networks.filter(
    (n2) => config.upstreams.node?.[n2]?.includes("devnet") || config.upstreams.graph?.[n2]?.includes("devnet") || config.upstreams.electrum?.[n2]?.includes("devnet")
  );
}
function resolveEach(config, kind, env, entries, devnetEntry, realEntry) {
  const out = {};
  const problems = [];
  for (const network of config.networks) {
    out[network] = entries(network).map((entry, i) => {
      if (entry === "devnet") return devnetEntry(network);
      return realEntry(entry, (field, name) => {
        if (name === void 0) return void 0;
        const value = env[name];
        if (value === void 0) {
          problems.push(`upstreams.${kind}.${network}[${i}].${field}: ${name} is not set`);
        }
        return value;
      });
    });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out;
}
function resolveElectrumUpstreams(config, devnet, devnetSettings = {}) {
  return resolveEach(
    config,
    "electrum",
    process.env,
    (network) => config.upstreams.electrum?.[network] ?? [],
    (network) => {
      const server = devnet?.electrum.get(network);
      if (!server) throw new Error(`devnet has no Electrum server for ${network}`);
      return {
        url: server.url,
        timeoutMs: 1e4,
        connectTimeoutMs: 5e3,
        connections: 2,
        inFlightMax: 100,
        lineBytesMax: 16 * 1024 * 1024,
        pingIntervalMs: 6e4,
        reconnectMaxMs: 2e3,
        tlsVerify: true,
        ...devnetSettings
      };
    },
    (entry) => entry
  );
}
function resolveNodeUpstreams(config, devnet, env = process.env, devnetSettings = {}) {
  return resolveEach(
    config,
    "node",
    env,
    (network) => config.upstreams.node?.[network] ?? [],
    (network) => {
      const core = devnet?.cores.get(network);
      if (!core) throw new Error(`devnet has no node for ${network}`);
      return {
        url: core.url,
        user: core.user,
        password: core.password,
        timeoutMs: 1e4,
        connections: 16,
        coalesceCallsMax: CORE_COALESCE_CALLS_MAX_DEFAULT,
        ...devnetSettings
      };
    },
    (entry, fromEnv) => entry.passwordEnv ? { ...entry, password: fromEnv("passwordEnv", entry.passwordEnv) } : entry
  );
}
function resolveGraphUpstreams(config, devnet, env = process.env) {
  return resolveEach(
    config,
    "graph",
    env,
    (network) => config.upstreams.graph?.[network] ?? [],
    (network) => {
      const indexer = devnet?.indexers.get(network);
      if (!indexer) throw new Error(`devnet has no indexer for ${network}`);
      return { url: indexer.url, adminSecret: indexer.secret, timeoutMs: 1e4, connections: 16 };
    },
    (entry, fromEnv) => ({
      url: entry.url,
      adminSecret: fromEnv("adminSecretEnv", entry.adminSecretEnv),
      timeoutMs: entry.timeoutMs,
      connections: entry.connections
    })
  );
}

// src/devnet/devnet.ts
import { randomBytes as randomBytes2 } from "node:crypto";

// src/devnet/bitcoin-core/http.ts
import { timingSafeEqual } from "node:crypto";
import { setTimeout as sleep2 } from "node:timers/promises";

// src/devnet/gate.ts
var Gate = class {
  closed = null;
  hold() {
    let open;
    this.closed = new Promise((resolve) => {
      open = resolve;
    });
    return () => {
      this.closed = null;
      open();
    };
  }
  /** Resolves at once while the gate is open, else when it opens. */
  async passed() {
    if (this.closed) await this.closed;
  }
};

// src/devnet/listen.ts
import { createServer as createServer2 } from "node:http";
async function listenDevnet(serve, opts) {
  const server = createServer2((req, res) => {
    serve(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.keepAliveTimeout = opts.keepAliveTimeoutMs;
  await new Promise(
    (resolve) => server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", resolve)
  );
  const { port } = server.address();
  return {
    server,
    port,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    })
  };
}

// src/devnet/bitcoin-core/rpc-error.ts
var RpcError = class extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
  code;
  toObject() {
    return { code: this.code, message: this.message };
  }
};

// src/devnet/bitcoin-core/http.ts
var BODY_BYTES_MAX = 32 * 1024 * 1024;
var WWW_AUTHENTICATE = 'Basic realm="jsonrpc"';
async function startCoreHttp(opts) {
  const stats = { httpRequests: 0, callsRead: 0, calls: 0 };
  const gate = new Gate();
  let failing = null;
  const watchers = /* @__PURE__ */ new Set();
  const expected = Buffer.from(
    `Basic ${Buffer.from(`${opts.user}:${opts.password}`).toString("base64")}`
  );
  async function serve(req, res) {
    stats.httpRequests += 1;
    if (req.method !== "POST") {
      res.writeHead(405);
      res.end("JSONRPC server handles only POST requests");
      return;
    }
    const auth = req.headers.authorization;
    if (!auth) {
      res.writeHead(401, { "www-authenticate": WWW_AUTHENTICATE });
      res.end();
      return;
    }
    const given = Buffer.from(auth);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      await sleep2(250);
      res.writeHead(401, { "www-authenticate": WWW_AUTHENTICATE });
      res.end();
      return;
    }
    const chunks = [];
    let size = 0;
    for await (const chunk of req) {
      size += chunk.length;
      if (size > BODY_BYTES_MAX) {
        res.writeHead(413);
        res.end();
        return;
      }
      chunks.push(chunk);
    }
    const request2 = parseRequestBody(Buffer.concat(chunks).toString("utf8"));
    if (request2.kind !== "fatal") {
      const items = request2.kind === "single" ? [request2.item] : request2.items;
      const calls = items.flatMap(
        (i) => i.kind === "invalid" ? [] : [{ method: i.method, params: i.params }]
      );
      stats.callsRead += calls.length;
      for (const seen of watchers) seen(calls);
    }
    await gate.passed();
    if (failing !== null) {
      res.writeHead(failing);
      res.end(failing === 503 ? "Work queue depth exceeded" : "Internal Server Error");
      return;
    }
    const reply3 = handleBody(request2);
    if (reply3.status === 204) {
      res.writeHead(204);
      res.end();
      return;
    }
    const text = `${stringifyJson(reply3.body)}
`;
    res.writeHead(reply3.status, { "content-type": "application/json" });
    res.end(text);
  }
  function handleBody(request2) {
    if (request2.kind === "fatal") {
      return {
        status: legacyErrorStatus(request2.error.code),
        body: replyObject("1.0", null, request2)
      };
    }
    if (request2.kind === "single") {
      const item = request2.item;
      if (item.kind === "invalid") {
        return {
          status: legacyErrorStatus(item.error.code),
          body: replyObject(item.version, item.id, item)
        };
      }
      const answer3 = execute3(item);
      if (item.version === "2.0") {
        return item.id === void 0 ? { status: 204 } : { status: 200, body: replyObject("2.0", item.id, answer3) };
      }
      const status = "error" in answer3 ? legacyErrorStatus(answer3.error.code) : 200;
      return { status, body: replyObject("1.0", item.id, answer3) };
    }
    const replies = [];
    for (const item of request2.items) {
      if (item.kind === "invalid") {
        replies.push(replyObject(item.version, item.id, item));
        continue;
      }
      const answer3 = execute3(item);
      if (!(item.version === "2.0" && item.id === void 0))
        replies.push(replyObject(item.version, item.id, answer3));
    }
    if (replies.length === 0 && request2.items.length > 0) return { status: 204 };
    return { status: 200, body: replies };
  }
  function execute3(item) {
    stats.calls += 1;
    try {
      const method = opts.methods[item.method];
      if (!method) throw new RpcError(-32601, "Method not found");
      return { result: method(item.params) };
    } catch (err) {
      return { error: toRpcError2(err).toObject() };
    }
  }
  const { server, port, close } = await listenDevnet(serve, {
    host: opts.host,
    port: opts.port,
    keepAliveTimeoutMs: 3e4
    // -rpcservertimeout
  });
  return {
    server,
    url: `http://127.0.0.1:${port}/`,
    user: opts.user,
    password: opts.password,
    stats,
    hold: () => gate.hold(),
    failWith(status) {
      failing = status;
      return () => {
        failing = null;
      };
    },
    watch(seen) {
      watchers.add(seen);
      return () => watchers.delete(seen);
    },
    close
  };
}
function toRpcError2(err) {
  if (err instanceof RpcError) return err;
  return new RpcError(-1, err instanceof Error ? err.message : String(err));
}

// src/devnet/utxo.ts
var MEMPOOL_HEIGHT = 2147483647;
var DevnetUtxos = class {
  constructor(chain) {
    this.chain = chain;
  }
  chain;
  spent;
  builtAt = "";
  /** The transaction that spends `txid:vout` (a block's or the mempool's), if any. */
  spender(txid, vout) {
    return this.spends().get(`${txid}:${vout}`);
  }
  /** The coin at `txid:vout`, unspent; `includeMempool` false ignores the mempool both ways. */
  coin(txid, vout, includeMempool = true) {
    const at = this.chain.txIndex.get(txid);
    const pooled = includeMempool ? this.chain.mempool.get(txid) : void 0;
    const tx = at ? at.block.block.transactions[at.index] : pooled;
    if (!tx || vout >= tx.outputs.length) return void 0;
    const by = this.spender(txid, vout);
    if (by !== void 0 && (includeMempool || !this.chain.mempool.has(by))) return void 0;
    return {
      tx,
      vout,
      height: at ? at.block.height : MEMPOOL_HEIGHT,
      coinbase: tx.isCoinbase
    };
  }
  /** Outpoint → spending txid, rebuilt when the tip or the mempool changed. */
  spends() {
    const key = `${this.chain.tip.block.hash}:${this.chain.mempool.size}:${[...this.chain.mempool.keys()].at(-1) ?? ""}`;
    if (this.spent && this.builtAt === key) return this.spent;
    const spent = /* @__PURE__ */ new Map();
    const note = (tx) => {
      if (tx.isCoinbase) return;
      for (const i of tx.inputs) spent.set(`${i.prevTxid}:${i.vout}`, tx.txid);
    };
    for (const height of this.chain.heights()) {
      for (const tx of this.chain.byHeight.get(height).block.transactions) note(tx);
    }
    for (const tx of this.chain.mempool.values()) note(tx);
    this.spent = spent;
    this.builtAt = key;
    return spent;
  }
};

// src/devnet/bitcoin-core/block-methods.ts
import { LosslessNumber } from "lossless-json";

// src/devnet/chain-facts.ts
function blockProof(bits, network) {
  const target = deriveTarget(Number.parseInt(bits, 16), network);
  return target === void 0 ? 0n : (1n << 256n) / (target + 1n);
}
function parentOf(chain, entry) {
  if (entry.height === 0) return void 0;
  const below = chain.byHash.get(entry.block.previousblockhash);
  return below && below.height === entry.height - 1 ? below : void 0;
}
function medianTimePast(chain, entry) {
  const anchored = chain.anchors.get(entry.block.hash);
  if (anchored) return anchored.mediantime;
  const times = [];
  let at = entry;
  for (let i = 0; i < 11 && at; i++) {
    times.push(at.block.time);
    if (at.height === 0) break;
    const below = parentOf(chain, at);
    if (!below && i < 10) return void 0;
    at = below;
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
function chainWork(chain, entry) {
  const path = [];
  let at = entry;
  let base = 0n;
  while (at) {
    const cachedWork = chain.workMemo.get(at.block.hash);
    const anchored = chain.anchors.get(at.block.hash);
    if (cachedWork !== void 0 || anchored) {
      base = cachedWork ?? anchored.chainwork;
      break;
    }
    path.push(at);
    if (at.height === 0) break;
    at = parentOf(chain, at);
    if (!at) return void 0;
  }
  let work = base;
  for (let i = path.length - 1; i >= 0; i--) {
    const b = path[i];
    work += blockProof(b.block.bits, chain.network);
    chain.workMemo.set(b.block.hash, work);
  }
  return work;
}

// src/devnet/bitcoin-core/block-context.ts
function inActiveChain(chain, entry) {
  return chain.byHeight.get(entry.height) === entry;
}
function blockContext(chain, entry) {
  const active = inActiveChain(chain, entry);
  const next = active ? chain.byHeight.get(entry.height + 1) : void 0;
  const mediantime = medianTimePast(chain, entry);
  const work = chainWork(chain, entry);
  return {
    confirmations: active ? chain.confirmations(entry) : -1,
    height: entry.height,
    ...mediantime === void 0 ? {} : { mediantime },
    ...work === void 0 ? {} : { chainwork: uint256Hex(work) },
    ...next && next.block.previousblockhash === entry.block.hash ? { nextblockhash: next.block.hash } : {}
  };
}

// src/devnet/bitcoin-core/params.ts
function kindOf(value) {
  const t = uvTypeName(value);
  return t;
}
function readParams(method, raw, specs, required) {
  const positional = asPositional(
    raw,
    specs.map((s) => s[0])
  );
  if (isRpcError(positional)) throw new RpcError(positional.code, positional.message);
  const args = positional;
  if (args.length < required || args.length > specs.length) {
    throw new RpcError(RPC_MISC_ERROR, `${method} takes ${required} to ${specs.length} arguments`);
  }
  const wrong = [];
  args.forEach((value, i) => {
    const [name, ...types] = specs[i];
    const kind = kindOf(value);
    if (kind === "null") {
      if (i < required)
        wrong.push([
          `Position ${i + 1} (${name})`,
          `JSON value of type null is not of expected type ${types[0]}`
        ]);
      return;
    }
    if (!types.includes(kind)) {
      wrong.push([
        `Position ${i + 1} (${name})`,
        `JSON value of type ${kind} is not of expected type ${types[0]}`
      ]);
    }
  });
  if (wrong.length > 0) {
    throw new RpcError(RPC_TYPE_ERROR, `Wrong type passed:
${writeIndented4(wrong)}`);
  }
  return args;
}
function intArg(value, fallback) {
  if (value === null || value === void 0) return fallback;
  if (typeof value === "boolean") return Number(value);
  if (!isJsonNumber(value)) return fallback;
  if (!/^-?\d+$/.test(value.value) || !Number.isSafeInteger(Number(value.value))) {
    throw new RpcError(RPC_MISC_ERROR, "JSON integer out of range");
  }
  return Number(value.value);
}
function hashArg(value, name) {
  const text = value;
  const error = checkHash(text, name);
  if (error) throw new RpcError(error.code, error.message);
  return text.toLowerCase();
}
function hexArg(value, name) {
  const text = value;
  if (!/^([0-9a-fA-F]{2})+$/.test(text)) {
    throw new RpcError(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${text}')`);
  }
  return Buffer.from(text, "hex");
}

// src/devnet/bitcoin-core/block-methods.ts
var HEADER_KEYS = [
  "hash",
  "confirmations",
  "height",
  "version",
  "versionHex",
  "merkleroot",
  "time",
  "mediantime",
  "nonce",
  "bits",
  "target",
  "difficulty",
  "chainwork",
  "nTx",
  "previousblockhash",
  "nextblockhash"
];
function verbosityOf(value, fallback) {
  if (value === null || value === void 0) return fallback;
  if (typeof value === "boolean") return value ? 1 : 0;
  return intArg(value, fallback);
}
function blockMethods(ctx) {
  const { chain } = ctx;
  const find = (hash4) => {
    const entry = chain.byHash.get(hash4);
    if (!entry) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    return entry;
  };
  function headerJson(entry) {
    const full = blockToUniv(entry.block, {
      network: ctx.network,
      verbosity: 1,
      context: blockContext(chain, entry)
    });
    const out = {};
    for (const key of HEADER_KEYS) if (key in full) out[key] = full[key];
    return out;
  }
  return {
    getblockcount: (raw) => {
      readParams("getblockcount", raw, [], 0);
      return chain.tip.height;
    },
    getbestblockhash: (raw) => {
      readParams("getbestblockhash", raw, [], 0);
      return chain.tip.block.hash;
    },
    getdifficulty: (raw) => {
      readParams("getdifficulty", raw, [], 0);
      return new LosslessNumber(
        univalueDouble(getDifficulty(Number.parseInt(chain.tip.block.bits, 16)))
      );
    },
    getblockhash: (raw) => {
      const [height] = readParams("getblockhash", raw, [["height", "number"]], 1);
      const h = intArg(height, -1);
      const entry = chain.byHeight.get(h);
      if (!entry) throw new RpcError(RPC_INVALID_PARAMETER, "Block height out of range");
      return entry.block.hash;
    },
    getblockheader: (raw) => {
      const [hash4, verbose = null] = readParams(
        "getblockheader",
        raw,
        [
          ["blockhash", "string"],
          ["verbose", "bool"]
        ],
        1
      );
      const entry = find(hashArg(hash4, "hash"));
      if (verbose === false) return toHex(entry.block.headerBytes);
      return headerJson(entry);
    },
    getblock: (raw) => {
      const [hash4, verbosityParam = null] = readParams(
        "getblock",
        raw,
        [
          ["blockhash", "string"],
          ["verbosity|verbose", "number", "bool"]
        ],
        1
      );
      const entry = find(hashArg(hash4, "blockhash"));
      const verbosity = verbosityOf(verbosityParam, 1);
      if (verbosity <= 0) return toHex(entry.block.bytes);
      const json = blockToUniv(entry.block, {
        network: ctx.network,
        verbosity: 1,
        context: blockContext(chain, entry)
      });
      if (verbosity === 1) return json;
      const tx = entry.block.transactions.map(
        (t) => txToUniv(t, {
          network: ctx.network,
          ...t.isCoinbase ? {} : { prevouts: ctx.prevouts, prevoutDetails: verbosity >= 3 }
        })
      );
      return { ...json, tx };
    }
  };
}

// src/devnet/bitcoin-core/block-stats-method.ts
import { LosslessNumber as LosslessNumber2 } from "lossless-json";

// src/bitcoin/consensus.ts
var HALVING_INTERVAL = {
  mainnet: 21e4,
  testnet: 21e4,
  testnet4: 21e4,
  signet: 21e4,
  regtest: 150
};
var SEGWIT_HEIGHT = {
  mainnet: 481824,
  testnet: 834624,
  testnet4: 1,
  signet: 1,
  regtest: 0
};
function blockSubsidy(height, network) {
  const halvings = Math.floor(height / HALVING_INTERVAL[network]);
  if (halvings >= 64) return 0n;
  return 50n * COIN >> BigInt(halvings);
}
var MAX_BLOCK_WEIGHT = 4e6;

// src/devnet/block-stats.ts
var PER_UTXO_OVERHEAD = 41;
function outputSize(script) {
  return 8 + (script.length < 253 ? 1 : script.length <= 65535 ? 3 : 5) + script.length;
}
function unspendable(script) {
  return script.length > 0 && script[0] === OP_RETURN || script.length > MAX_SCRIPT_SIZE;
}
function truncatedMedian(values) {
  if (values.length === 0) return 0n;
  const sorted = [...values].sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
  const n2 = sorted.length;
  return n2 % 2 === 1 ? sorted[n2 >> 1] : (sorted[n2 / 2 - 1] + sorted[n2 / 2]) / 2n;
}
function percentilesByWeight(scores, totalWeight) {
  const result = [0n, 0n, 0n, 0n, 0n];
  if (scores.length === 0) return result;
  scores.sort((a, b) => a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]);
  const marks = [
    totalWeight / 10,
    totalWeight / 4,
    totalWeight / 2,
    totalWeight * 3 / 4,
    totalWeight * 9 / 10
  ];
  let next = 0;
  let cumulative = 0;
  for (const [rate, weight] of scores) {
    cumulative += weight;
    while (next < 5 && cumulative >= marks[next]) result[next++] = rate;
  }
  for (let i = next; i < 5; i++) result[i] = scores[scores.length - 1][0];
  return result;
}
var UNDO_STATS = /* @__PURE__ */ new Set([
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
  "feerate_percentiles"
]);
function blockStats(block, height, mediantime, network, spent) {
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
  let minTxSize;
  let totalFee = 0n;
  let maxFee = 0n;
  let minFee;
  let maxRate = 0n;
  let minRate;
  const sizes = [];
  const fees = [];
  const rates = [];
  for (const tx of block.transactions) {
    outputs += tx.outputs.length;
    let txOut = 0n;
    for (const out of tx.outputs) {
      txOut += out.value;
      const size = outputSize(out.scriptPubKey) + PER_UTXO_OVERHEAD;
      utxoSizeInc += size;
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
    minFee = minFee === void 0 || fee < minFee ? fee : minFee;
    totalFee += fee;
    const rate = fee * 4n / BigInt(tx.weight);
    rates.push([rate, tx.weight]);
    maxRate = rate > maxRate ? rate : maxRate;
    minRate = minRate === void 0 || rate < minRate ? rate : minRate;
  }
  const nonCoinbase = BigInt(block.transactions.length - 1);
  return {
    avgfee: nonCoinbase > 0n ? totalFee / nonCoinbase : 0n,
    avgfeerate: totalWeight ? totalFee * 4n / BigInt(totalWeight) : 0n,
    avgtxsize: nonCoinbase > 0n ? BigInt(totalSize) / nonCoinbase : 0n,
    blockhash: block.hash,
    feerate_percentiles: percentilesByWeight(rates, totalWeight),
    height,
    ins: inputs,
    maxfee: maxFee,
    maxfeerate: maxRate,
    maxtxsize: maxTxSize,
    medianfee: truncatedMedian(fees),
    ...mediantime === void 0 ? {} : { mediantime },
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
    utxo_size_inc_actual: utxoSizeIncActual
  };
}

// src/devnet/bitcoin-core/block-stats-method.ts
function toJson(value) {
  if (typeof value === "bigint") return new LosslessNumber2(value.toString());
  if (Array.isArray(value)) return value.map(toJson);
  return value;
}
function findBlock(ctx, param) {
  const { chain } = ctx;
  if (typeof param === "string") {
    const error = checkHash(param, "hash_or_height");
    if (error) throw new RpcError(error.code, error.message);
    const entry2 = chain.byHash.get(param.toLowerCase());
    if (!entry2) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    if (!inActiveChain(chain, entry2)) {
      throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block is not in chain");
    }
    return entry2;
  }
  const height = intArg(param, 0);
  if (height < 0) {
    throw new RpcError(RPC_INVALID_PARAMETER, `Target block height ${height} is negative`);
  }
  if (height > chain.tip.height) {
    throw new RpcError(
      RPC_INVALID_PARAMETER,
      `Target block height ${height} after current tip ${chain.tip.height}`
    );
  }
  const entry = chain.byHeight.get(height);
  if (!entry) throw new RpcError(RPC_INVALID_PARAMETER, "Block height out of range");
  return entry;
}
function blockStatsMethod(ctx) {
  return {
    getblockstats: (raw) => {
      const [target, statsParam = null] = readParams(
        "getblockstats",
        raw,
        [
          ["hash_or_height", "number", "string"],
          ["stats", "array"]
        ],
        1
      );
      const entry = findBlock(ctx, target);
      const wanted = [...new Set(statsParam?.map(String) ?? [])].sort();
      const all = wanted.length === 0;
      const needsUndo = all || wanted.some((s) => UNDO_STATS.has(s));
      let spent;
      if (needsUndo) {
        const lists = /* @__PURE__ */ new Map();
        for (const tx of entry.block.transactions) {
          if (tx.isCoinbase) continue;
          const list = tx.inputs.map((i) => ctx.prevouts(i.prevTxid, i.vout));
          if (list.some((p) => p === void 0)) {
            throw new RpcError(RPC_MISC_ERROR, "Can't read undo data from disk");
          }
          lists.set(tx.txid, list);
        }
        spent = (tx) => lists.get(tx.txid);
      }
      const stats = blockStats(
        entry.block,
        entry.height,
        medianTimePast(ctx.chain, entry),
        ctx.network,
        spent
      );
      const pick = all ? Object.keys(stats) : wanted;
      const out = {};
      for (const key of pick) {
        if (!(key in stats)) {
          throw new RpcError(RPC_INVALID_PARAMETER, `Invalid selected statistic '${key}'`);
        }
        out[key] = toJson(stats[key]);
      }
      return out;
    }
  };
}

// src/devnet/bitcoin-core/chain-info-methods.ts
import { LosslessNumber as LosslessNumber3 } from "lossless-json";
var CHAIN_NAME = {
  mainnet: "main",
  testnet: "test",
  testnet4: "testnet4",
  signet: "signet",
  regtest: "regtest"
};
var SIGNET_CHALLENGE = "512103ad5e0edad18cb1f0fc0d28a3d4f1f3e445640337489abb10404f2d1e086be430210359ef5021964fe22d6f8e05b2463c9540ce96883fe3b278760f048f5189f2e6c452ae";
function chainInfoMethods(ctx) {
  const { chain } = ctx;
  return {
    getblockchaininfo: (raw) => {
      readParams("getblockchaininfo", raw, [], 0);
      const tip = chain.tip;
      const bits = Number.parseInt(tip.block.bits, 16);
      const mediantime = medianTimePast(chain, tip);
      const work = chainWork(chain, tip);
      let onDisk = 0;
      for (const entry of chain.byHash.values()) onDisk += entry.block.size;
      return {
        chain: CHAIN_NAME[ctx.network],
        blocks: tip.height,
        headers: tip.height,
        bestblockhash: tip.block.hash,
        bits: tip.block.bits,
        target: uint256Hex(deriveTarget(bits, ctx.network) ?? 0n),
        difficulty: new LosslessNumber3(univalueDouble(getDifficulty(bits))),
        time: tip.block.time,
        ...mediantime === void 0 ? {} : { mediantime },
        // devnet is always synced to its own tip.
        verificationprogress: 1,
        initialblockdownload: false,
        ...work === void 0 ? {} : { chainwork: uint256Hex(work) },
        // The bytes of the blocks devnet holds (Core adds undo files and its index).
        size_on_disk: onDisk,
        pruned: false,
        ...ctx.network === "signet" ? { signet_challenge: SIGNET_CHALLENGE } : {},
        warnings: []
      };
    },
    getchaintips: (raw) => {
      readParams("getchaintips", raw, [], 0);
      const tips = [
        { height: chain.tip.height, hash: chain.tip.block.hash, branchlen: 0, status: "active" }
      ];
      const off = /* @__PURE__ */ new Map();
      for (const b of chain.invalidated()) off.set(b, "invalid");
      for (const b of chain.staleBlocks()) off.set(b, "valid-fork");
      const parents = new Set([...off.keys()].map((b) => b.block.previousblockhash));
      const ends = [...off.keys()].filter((b) => !parents.has(b.block.hash));
      for (const end of ends.sort((a, b) => b.height - a.height)) {
        let low = end;
        for (; ; ) {
          const parent = chain.byHash.get(low.block.previousblockhash);
          if (!parent || inActiveChain(chain, parent)) break;
          low = parent;
        }
        tips.push({
          height: end.height,
          hash: end.block.hash,
          branchlen: end.height - low.height + 1,
          status: off.get(end)
        });
      }
      return tips;
    }
  };
}

// src/devnet/mempool-policy.ts
var MIN_RELAY_FEERATE = 1000n;
var DUST_RELAY_FEERATE = 3000n;
var COINBASE_MATURITY = 100;
var MIN_STANDARD_TX_NONWITNESS_SIZE = 65;
function unspendable2(script) {
  return script.length > 0 && script[0] === OP_RETURN || script.length > MAX_SCRIPT_SIZE;
}
function dustThreshold(script) {
  if (unspendable2(script)) return 0n;
  const outputSize2 = 8 + (script.length < 253 ? 1 : 3) + script.length;
  const witness = script.length >= 4 && script.length <= 42 && (script[0] === 0 || script[0] >= 81 && script[0] <= 96) && script[1] === script.length - 2;
  const spend = witness ? 32 + 4 + 1 + 26 + 4 : 32 + 4 + 1 + 107 + 4;
  return BigInt(outputSize2 + spend) * DUST_RELAY_FEERATE / 1000n;
}
function formatMoney(sats) {
  const neg = sats < 0n;
  const abs = neg ? -sats : sats;
  let frac = (abs % 100000000n).toString().padStart(8, "0");
  while (frac.length > 2 && frac.endsWith("0")) frac = frac.slice(0, -1);
  return `${neg ? "-" : ""}${abs / 100000000n}.${frac}`;
}
function checkMempoolAccept(chain, utxos, tx) {
  if (tx.isCoinbase) return { code: -26, reason: "coinbase" };
  if (tx.version < 1 || tx.version > 3) return { code: -26, reason: "version" };
  if (tx.strippedSize < MIN_STANDARD_TX_NONWITNESS_SIZE)
    return { code: -26, reason: "tx-size-small" };
  for (const o of tx.outputs) {
    const type = solve(o.scriptPubKey).type;
    if (type === "nonstandard") return { code: -26, reason: "scriptpubkey" };
    if (type !== "nulldata" && o.value < dustThreshold(o.scriptPubKey))
      return { code: -26, reason: "dust" };
  }
  if (chain.mempool.has(tx.txid)) return { code: -26, reason: "txn-already-in-mempool" };
  if (tx.outputs.some((_, n2) => utxos.coin(tx.txid, n2, false) !== void 0)) {
    return { code: -27, reason: "Transaction outputs already in utxo set" };
  }
  let valueIn = 0n;
  const spendHeight = chain.tip.height + 1;
  for (const input of tx.inputs) {
    const spender = utxos.spender(input.prevTxid, input.vout);
    if (spender !== void 0 && chain.mempool.has(spender)) {
      return { code: -26, reason: "txn-mempool-conflict" };
    }
    const coin = utxos.coin(input.prevTxid, input.vout);
    if (!coin) return { code: -25, reason: "bad-txns-inputs-missingorspent" };
    if (coin.coinbase && spendHeight - coin.height < COINBASE_MATURITY) {
      return {
        code: -26,
        reason: "bad-txns-premature-spend-of-coinbase",
        debug: `tried to spend coinbase at depth ${spendHeight - coin.height}`
      };
    }
    valueIn += coin.tx.outputs[coin.vout].value;
  }
  const valueOut = tx.outputs.reduce((s, o) => s + o.value, 0n);
  if (valueIn < valueOut) {
    return {
      code: -26,
      reason: "bad-txns-in-belowout",
      debug: `value in (${formatMoney(valueIn)}) < value out (${formatMoney(valueOut)})`
    };
  }
  const fee = valueIn - valueOut;
  const minFee = BigInt(tx.vsize) * MIN_RELAY_FEERATE / 1000n;
  if (fee < minFee) {
    return { code: -26, reason: "min relay fee not met", debug: `${fee} < ${minFee}` };
  }
  return { fee, vsize: tx.vsize };
}
function rejectionText(r) {
  return r.debug === void 0 ? r.reason : `${r.reason}, ${r.debug}`;
}

// src/devnet/fee-estimate.ts
var MAX_CONF_TARGET = 1008;
function estimateFeerate(pool, feeOf, target) {
  const rates = [];
  for (const tx of pool) {
    const fee = feeOf(tx);
    if (fee !== void 0) rates.push(fee * 1000n / BigInt(tx.vsize));
  }
  if (rates.length === 0) return void 0;
  rates.sort((a, b) => a > b ? -1 : a < b ? 1 : 0);
  const rate = rates[Math.min(target, rates.length) - 1];
  return rate > MIN_RELAY_FEERATE ? rate : MIN_RELAY_FEERATE;
}

// src/devnet/bitcoin-core/mempool-entry.ts
function mempoolFee(ctx, tx) {
  return txFee(tx, (txid, vout) => {
    const parent = ctx.chain.mempool.get(txid);
    const o = parent?.outputs[vout];
    if (o) return { valueSats: o.value, scriptPubKey: o.scriptPubKey, height: 0, coinbase: false };
    return ctx.prevouts(txid, vout);
  });
}
function relatives(ctx, tx, up) {
  const pool = ctx.chain.mempool;
  const found = /* @__PURE__ */ new Map([[tx.txid, tx]]);
  const queue = [tx];
  while (queue.length > 0) {
    const t = queue.pop();
    const next = up ? t.inputs.map((i) => pool.get(i.prevTxid)).filter((p) => p !== void 0) : [...pool.values()].filter((c) => c.inputs.some((i) => i.prevTxid === t.txid));
    for (const n2 of next) {
      if (found.has(n2.txid)) continue;
      found.set(n2.txid, n2);
      queue.push(n2);
    }
  }
  return [...found.values()];
}
function sumFees(ctx, txs) {
  let total = 0n;
  for (const t of txs) {
    const fee = mempoolFee(ctx, t);
    if (fee === void 0) return void 0;
    total += fee;
  }
  return total;
}
function mempoolEntryJson(ctx, tx) {
  const ancestors = relatives(ctx, tx, true);
  const descendants = relatives(ctx, tx, false);
  const entered = ctx.entered.get(tx.txid);
  const fee = mempoolFee(ctx, tx);
  const ancestorFees = sumFees(ctx, ancestors);
  const descendantFees = sumFees(ctx, descendants);
  const signals = ancestors.some((a) => a.inputs.some((i) => i.sequence < 4294967294));
  return {
    vsize: tx.vsize,
    weight: tx.weight,
    time: entered?.time ?? Math.floor(ctx.startedAt / 1e3),
    height: entered?.height ?? ctx.chain.tip.height,
    descendantcount: descendants.length,
    descendantsize: descendants.reduce((s, t) => s + t.vsize, 0),
    ancestorcount: ancestors.length,
    ancestorsize: ancestors.reduce((s, t) => s + t.vsize, 0),
    wtxid: tx.wtxid,
    ...fee === void 0 || ancestorFees === void 0 || descendantFees === void 0 ? {} : {
      fees: {
        base: amountToJson(fee),
        modified: amountToJson(fee),
        ancestor: amountToJson(ancestorFees),
        descendant: amountToJson(descendantFees)
      }
    },
    depends: tx.inputs.map((i) => i.prevTxid).filter((id, k, all) => ctx.chain.mempool.has(id) && all.indexOf(id) === k),
    spentby: descendants.filter((d) => d !== tx && d.inputs.some((i) => i.prevTxid === tx.txid)).map((d) => d.txid),
    "bip125-replaceable": signals,
    // Submitted through this Core and, with no peers to ask for it, never broadcast.
    unbroadcast: entered !== void 0
  };
}

// src/devnet/bitcoin-core/mempool-methods.ts
var MAX_MEMPOOL_BYTES = 3e8;
var ESTIMATE_MODES = ["unset", "economical", "conservative"];
function mempoolMethods(ctx) {
  const { chain } = ctx;
  return {
    getmempoolinfo: (raw) => {
      readParams("getmempoolinfo", raw, [], 0);
      const txs = [...chain.mempool.values()];
      const fees = txs.map((t) => mempoolFee(ctx, t) ?? 0n).reduce((a, b) => a + b, 0n);
      return {
        loaded: true,
        size: txs.length,
        bytes: txs.reduce((s, t) => s + t.vsize, 0),
        // Core's allocator count is not reproducible; devnet reports the serialized bytes held.
        usage: txs.reduce((s, t) => s + t.size, 0),
        // The fees devnet knows (see mempoolEntryJson: some inputs are in blocks it lacks).
        total_fee: amountToJson(fees),
        maxmempool: MAX_MEMPOOL_BYTES,
        mempoolminfee: amountToJson(MIN_RELAY_FEERATE),
        minrelaytxfee: amountToJson(MIN_RELAY_FEERATE),
        incrementalrelayfee: amountToJson(MIN_RELAY_FEERATE),
        unbroadcastcount: ctx.entered.size,
        fullrbf: true
      };
    },
    getrawmempool: (raw) => {
      const [verbose = null, sequence = null] = readParams(
        "getrawmempool",
        raw,
        [
          ["verbose", "bool"],
          ["mempool_sequence", "bool"]
        ],
        0
      );
      if (verbose === true && sequence === true) {
        throw new RpcError(
          RPC_INVALID_PARAMETER,
          "Verbose results cannot contain mempool sequence values."
        );
      }
      const txs = [...chain.mempool.values()];
      if (verbose === true) {
        return Object.fromEntries(txs.map((t) => [t.txid, mempoolEntryJson(ctx, t)]));
      }
      const txids = txs.map((t) => t.txid);
      return sequence === true ? { txids, mempool_sequence: ctx.entered.size + 1 } : txids;
    },
    getmempoolentry: (raw) => {
      const [txid] = readParams("getmempoolentry", raw, [["txid", "string"]], 1);
      const tx = chain.mempool.get(hashArg(txid, "parameter 1"));
      if (!tx) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Transaction not in mempool");
      return mempoolEntryJson(ctx, tx);
    },
    estimatesmartfee: (raw) => {
      const [target, mode = null] = readParams(
        "estimatesmartfee",
        raw,
        [
          ["conf_target", "number"],
          ["estimate_mode", "string"]
        ],
        1
      );
      const n2 = intArg(target, 0);
      if (n2 < 1 || n2 > MAX_CONF_TARGET) {
        throw new RpcError(
          RPC_INVALID_PARAMETER,
          `Invalid conf_target, must be between 1 and ${MAX_CONF_TARGET}`
        );
      }
      if (mode !== null && !ESTIMATE_MODES.includes(mode.toLowerCase())) {
        throw new RpcError(
          RPC_INVALID_PARAMETER,
          'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"'
        );
      }
      const rate = estimateFeerate(chain.mempool.values(), (t) => mempoolFee(ctx, t), n2);
      if (rate === void 0) {
        return { errors: ["Insufficient data or no feerate found"], blocks: 0 };
      }
      return { feerate: amountToJson(rate), blocks: Math.max(2, n2) };
    }
  };
}

// src/bitcoin/header-bytes.ts
function serializeHeader(h) {
  const out = new Uint8Array(80);
  const dv = new DataView(out.buffer);
  dv.setInt32(0, h.version, true);
  out.set(fromHexReversed(h.previousblockhash), 4);
  out.set(fromHexReversed(h.merkleroot), 36);
  dv.setUint32(68, h.time, true);
  dv.setUint32(72, h.bits, true);
  dv.setUint32(76, h.nonce, true);
  return out;
}

// src/bitcoin/script-build.ts
function pushInt(n2) {
  if (n2 === 0) return Uint8Array.of(0);
  if (n2 === -1) return Uint8Array.of(79);
  if (n2 >= 1 && n2 <= 16) return Uint8Array.of(80 + n2);
  return pushBytes(scriptNum(n2));
}
function scriptNum(n2) {
  if (n2 === 0) return new Uint8Array(0);
  const neg = n2 < 0;
  let abs = Math.abs(n2);
  const bytes = [];
  while (abs > 0) {
    bytes.push(abs & 255);
    abs = Math.floor(abs / 256);
  }
  if (bytes[bytes.length - 1] & 128) bytes.push(neg ? 128 : 0);
  else if (neg) bytes[bytes.length - 1] |= 128;
  return Uint8Array.from(bytes);
}
function pushBytes(data) {
  const n2 = data.length;
  const prefix = n2 < 76 ? [n2] : n2 <= 255 ? [76, n2] : n2 <= 65535 ? [77, n2 & 255, n2 >> 8] : [78, n2 & 255, n2 >> 8 & 255, n2 >> 16 & 255, n2 >>> 24];
  const out = new Uint8Array(prefix.length + n2);
  out.set(prefix, 0);
  out.set(data, prefix.length);
  return out;
}
function concatBytes(...parts) {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
function compactSizeBytes(n2) {
  if (n2 < 253) return Uint8Array.of(n2);
  if (n2 <= 65535) return Uint8Array.of(253, n2 & 255, n2 >> 8);
  return Uint8Array.of(254, n2 & 255, n2 >> 8 & 255, n2 >> 16 & 255, n2 >>> 24);
}

// src/bitcoin/block-build.ts
function assembleBlock(template, txs, grind) {
  const merkleroot = toHexReversed(computeMerkleRoot(txs.map((t) => t.txidBytes)));
  const fields = { ...template, merkleroot };
  if (grind) fields.nonce = grind(fields);
  return parseBlock(
    concatBytes(serializeHeader(fields), compactSizeBytes(txs.length), ...txs.map((t) => t.bytes))
  );
}
function grindNonce(fields, target, tries, start = 0) {
  const header = serializeHeader(fields);
  const dv = new DataView(header.buffer);
  for (let i = 0; i < tries; i++) {
    const nonce = start + i >>> 0;
    dv.setUint32(76, nonce, true);
    if (BigInt(`0x${toHexReversed(sha256d(header))}`) <= target) return nonce;
  }
  return void 0;
}

// src/devnet/produce-block.ts
var WITNESS_COMMITMENT_HEADER = Uint8Array.of(106, 36, 170, 33, 169, 237);
var COINBASE_RESERVED_WEIGHT = 8e3;
var MAX_TRIES = 1e6;
function blockVersion(chain) {
  return chain.network === "regtest" ? 805306368 : 536870912;
}
function coinbaseFor(chain, height, script, txs, fees) {
  const commit = height >= SEGWIT_HEIGHT[chain.network];
  const outputs = [{ value: blockSubsidy(height, chain.network) + fees, scriptPubKey: script }];
  if (commit) {
    const root = computeMerkleRoot([new Uint8Array(32), ...txs.map((t) => t.wtxidBytes)]);
    outputs.push({
      value: 0n,
      scriptPubKey: concatBytes(WITNESS_COMMITMENT_HEADER, sha256d(root, new Uint8Array(32)))
    });
  }
  return parseTransaction(
    serializeTransaction({
      version: 2,
      locktime: Math.max(height - 1, 0),
      inputs: [
        {
          prevTxid: "00".repeat(32),
          prevTxidBytes: new Uint8Array(32),
          vout: 4294967295,
          scriptSig: concatBytes(pushInt(height), Uint8Array.of(0)),
          sequence: 4294967294,
          witness: commit ? [new Uint8Array(32)] : []
        }
      ],
      outputs
    })
  );
}
function selectFromMempool(chain, prevouts) {
  const picked = /* @__PURE__ */ new Map();
  const lookup = (txid, vout) => {
    const parent = picked.get(txid);
    if (!parent) return prevouts(txid, vout);
    const o = parent.outputs[vout];
    return o && { valueSats: o.value, scriptPubKey: o.scriptPubKey, height: 0, coinbase: false };
  };
  let weight = COINBASE_RESERVED_WEIGHT;
  let fees = 0n;
  let progress = true;
  while (progress) {
    progress = false;
    for (const tx of chain.mempool.values()) {
      if (picked.has(tx.txid) || weight + tx.weight > MAX_BLOCK_WEIGHT) continue;
      const fee = txFee(tx, lookup);
      if (fee === void 0) continue;
      picked.set(tx.txid, tx);
      weight += tx.weight;
      fees += fee;
      progress = true;
    }
  }
  return { txs: [...picked.values()], fees };
}
function produceBlock(chain, script, txs, fees) {
  const tip = chain.tip;
  const height = tip.height + 1;
  const bits = Number.parseInt(tip.block.bits, 16);
  const mtp = medianTimePast(chain, tip) ?? tip.block.time;
  let time = Math.max(mtp + 1, Math.floor(Date.now() / 1e3));
  for (const off of [...chain.invalidated(), ...chain.staleBlocks()]) {
    if (off.block.previousblockhash === tip.block.hash) time = Math.max(time, off.block.time + 1);
  }
  const coinbase = coinbaseFor(chain, height, script, txs, fees);
  const target = deriveTarget(bits, chain.network);
  const reachable = target !== void 0 && target >= 1n << 250n;
  const block = assembleBlock(
    { version: blockVersion(chain), previousblockhash: tip.block.hash, time, bits, nonce: 0 },
    [coinbase, ...txs],
    reachable ? (h) => grindNonce(h, target, MAX_TRIES) ?? 0 : void 0
  );
  for (const tx of txs) chain.mempool.delete(tx.txid);
  chain.addBlock(block, height);
  return chain.tip;
}
function mineBlocks(chain, prevouts, script, count) {
  const made = [];
  for (let i = 0; i < count; i++) {
    const { txs, fees } = selectFromMempool(chain, prevouts);
    made.push(produceBlock(chain, script, txs, fees));
  }
  if (made.length > 0) chain.tipChanged();
  return made;
}

// src/devnet/bitcoin-core/mining-methods.ts
var RPC_DESERIALIZATION_ERROR = -22;
function outputScript(ctx, output) {
  const desc = /^(addr|raw)\((.*)\)(#[0-9a-z]{8})?$/.exec(output);
  if (desc?.[1] === "raw" && /^([0-9a-fA-F]{2})*$/.test(desc[2]))
    return Buffer.from(desc[2], "hex");
  return addressToScript(desc?.[1] === "addr" ? desc[2] : output, ctx.network);
}
function miningMethods(ctx) {
  return {
    generatetoaddress: (raw) => {
      const [n2, address] = readParams(
        "generatetoaddress",
        raw,
        [
          ["nblocks", "number"],
          ["address", "string"],
          ["maxtries", "number"]
        ],
        2
      );
      const script = addressToScript(address, ctx.network);
      if (!script) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Error: Invalid address");
      return mineBlocks(ctx.chain, ctx.prevouts, script, intArg(n2, 0)).map(
        (b) => b.block.hash
      );
    },
    generateblock: (raw) => {
      const [output, list] = readParams(
        "generateblock",
        raw,
        [
          ["output", "string"],
          ["transactions", "array"],
          ["submit", "bool"]
        ],
        2
      );
      const script = outputScript(ctx, output);
      if (!script) {
        throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Error: Invalid address or descriptor");
      }
      const txs = [];
      for (const item of list) {
        const text = String(item);
        if (/^[0-9a-fA-F]{64}$/.test(text)) {
          const tx = ctx.chain.mempool.get(text.toLowerCase());
          if (!tx)
            throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `Transaction ${text} not in mempool.`);
          txs.push(tx);
          continue;
        }
        try {
          txs.push(parseTransaction(Buffer.from(text, "hex")));
        } catch {
          throw new RpcError(
            RPC_DESERIALIZATION_ERROR,
            `Transaction decode failed for ${text}. Make sure the tx has at least one input.`
          );
        }
      }
      const made = produceBlock(ctx.chain, script, txs, 0n);
      ctx.chain.tipChanged();
      return { hash: made.block.hash };
    }
  };
}

// src/devnet/bitcoin-core/network-methods.ts
var CORE_VERSION = 29e4;
var SUBVERSION = "/Satoshi:29.0.0/";
var PROTOCOL_VERSION = 70016;
function reach(name, reachable) {
  return { name, limited: !reachable, reachable, proxy: "", proxy_randomize_credentials: false };
}
function networkMethods(ctx) {
  return {
    uptime: (raw) => {
      readParams("uptime", raw, [], 0);
      return Math.floor((Date.now() - ctx.startedAt) / 1e3);
    },
    getnetworkinfo: (raw) => {
      readParams("getnetworkinfo", raw, [], 0);
      return {
        version: CORE_VERSION,
        subversion: SUBVERSION,
        protocolversion: PROTOCOL_VERSION,
        // NODE_NETWORK | NODE_WITNESS | NODE_NETWORK_LIMITED | NODE_P2P_V2, Core's defaults.
        localservices: "0000000000000c09",
        localservicesnames: ["NETWORK", "WITNESS", "NETWORK_LIMITED", "P2P_V2"],
        localrelay: true,
        timeoffset: 0,
        networkactive: true,
        connections: 0,
        connections_in: 0,
        connections_out: 0,
        networks: [
          reach("ipv4", true),
          reach("ipv6", true),
          reach("onion", false),
          reach("i2p", false),
          reach("cjdns", false)
        ],
        relayfee: amountToJson(MIN_RELAY_FEERATE),
        incrementalfee: amountToJson(MIN_RELAY_FEERATE),
        localaddresses: [],
        warnings: []
      };
    }
  };
}

// src/devnet/bitcoin-core/tx-methods.ts
function txReadMethods(ctx) {
  function getrawtransaction(raw) {
    const checked2 = checkGetRawTransaction(raw, ctx.network);
    if (!checked2.ok) throw new RpcError(checked2.error.code, checked2.error.message);
    const [txidParam, verbosityParam = null, blockhashParam = null] = checked2.params;
    const txid = txidParam.toLowerCase();
    if (txid === ctx.chain.byHeight.get(0)?.block.merkleroot) {
      throw new RpcError(
        RPC_INVALID_ADDRESS_OR_KEY,
        "The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved"
      );
    }
    const verbosity = verbosityParam === null ? 0 : typeof verbosityParam === "boolean" ? Number(verbosityParam) : Number(verbosityParam.value);
    let scope;
    if (blockhashParam !== null) {
      scope = ctx.chain.byHash.get(blockhashParam.toLowerCase());
      if (!scope) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block hash not found");
    }
    let tx;
    let home;
    if (scope) {
      tx = scope.block.transactions.find((t) => t.txid === txid);
      home = scope;
    } else {
      tx = ctx.chain.mempool.get(txid);
      if (!tx) {
        const at = ctx.chain.txIndex.get(txid);
        if (at) {
          tx = at.block.block.transactions[at.index];
          home = at.block;
        }
      }
    }
    if (!tx) {
      throw new RpcError(
        RPC_INVALID_ADDRESS_OR_KEY,
        scope ? "No such transaction found in the provided block. Use gettransaction for wallet transactions." : "No such mempool or blockchain transaction. Use gettransaction for wallet transactions."
      );
    }
    if (verbosity <= 0) return tx.hex;
    const result = {};
    if (scope) result.in_active_chain = true;
    const withPrevouts = verbosity >= 2 && home !== void 0 && !tx.isCoinbase;
    Object.assign(
      result,
      txToUniv(tx, { network: ctx.network, ...withPrevouts ? { prevouts: ctx.prevouts } : {} })
    );
    if (home) {
      result.blockhash = home.block.hash;
      result.confirmations = ctx.chain.confirmations(home);
      result.time = home.block.time;
      result.blocktime = home.block.time;
    }
    return result;
  }
  function decoderawtransaction(raw) {
    const positional = asPositional(raw, ["hexstring", "iswitness"]);
    if (isRpcError(positional)) throw new RpcError(positional.code, positional.message);
    const [hex, iswitness = null] = positional;
    if (typeof hex !== "string") {
      throw new RpcError(
        RPC_TYPE_ERROR,
        `Wrong type passed:
${writeIndented4([["Position 1 (hexstring)", `JSON value of type ${uvTypeName(hex)} is not of expected type string`]])}`
      );
    }
    if (iswitness !== null && typeof iswitness !== "boolean") {
      throw new RpcError(
        RPC_TYPE_ERROR,
        `Wrong type passed:
${writeIndented4([["Position 2 (iswitness)", `JSON value of type ${uvTypeName(iswitness)} is not of expected type bool`]])}`
      );
    }
    let tx;
    try {
      if (!/^([0-9a-fA-F]{2})*$/.test(hex)) throw new Error("not hex");
      tx = parseTransaction(Buffer.from(hex, "hex"));
    } catch {
      throw new RpcError(-22, "TX decode failed");
    }
    return txToUniv(tx, { network: ctx.network, includeHex: false });
  }
  return { getrawtransaction, decoderawtransaction };
}

// src/devnet/bitcoin-core/fee-params.ts
var DEFAULT_MAX_FEERATE = 10000000n;
function amountArg(value, fallback) {
  if (value === null || value === void 0) return fallback;
  const text = isJsonNumber(value) ? value.value : typeof value === "string" ? value : "";
  let sats;
  try {
    sats = parseAmount(text);
  } catch {
    throw new RpcError(RPC_TYPE_ERROR, "Invalid amount");
  }
  if (sats < 0n) throw new RpcError(RPC_TYPE_ERROR, "Amount out of range");
  if (sats > 21000000n * 100000000n) throw new RpcError(RPC_TYPE_ERROR, "Amount out of range");
  return sats;
}
function feeRateArg(value, fallback) {
  const rate = amountArg(value, fallback);
  if (rate >= 100000000n) {
    throw new RpcError(
      RPC_INVALID_PARAMETER,
      "Fee rates larger than or equal to 1BTC/kvB are not accepted"
    );
  }
  return rate;
}

// src/devnet/bitcoin-core/tx-submit-methods.ts
var RPC_DESERIALIZATION_ERROR2 = -22;
var RPC_TRANSACTION_ERROR = -25;
var MAX_PACKAGE_COUNT = 25;
function decode2(hex) {
  if (!/^([0-9a-fA-F]{2})*$/.test(hex)) return void 0;
  try {
    return parseTransaction(Buffer.from(hex, "hex"));
  } catch {
    return void 0;
  }
}
function feeAt(rate, vsize) {
  return rate * BigInt(vsize) / 1000n;
}
function txSubmitMethods(ctx) {
  const { chain } = ctx;
  return {
    sendrawtransaction: (raw) => {
      const [hex, maxfeerate = null, maxburn = null] = readParams(
        "sendrawtransaction",
        raw,
        [
          ["hexstring", "string"],
          ["maxfeerate", "number", "string"],
          ["maxburnamount", "number", "string"]
        ],
        1
      );
      const tx = decode2(hex);
      if (!tx) {
        throw new RpcError(
          RPC_DESERIALIZATION_ERROR2,
          "TX decode failed. Make sure the tx has at least one input."
        );
      }
      const burnMax = amountArg(maxburn, 0n);
      for (const o of tx.outputs) {
        const burns = o.scriptPubKey[0] === OP_RETURN || o.scriptPubKey.length > MAX_SCRIPT_SIZE;
        if (burns && o.value > burnMax) {
          throw new RpcError(
            RPC_TRANSACTION_ERROR,
            "Unspendable output exceeds maximum configured by user (maxburnamount)"
          );
        }
      }
      const rate = feeRateArg(maxfeerate, DEFAULT_MAX_FEERATE);
      if (chain.mempool.has(tx.txid)) return tx.txid;
      const verdict = checkMempoolAccept(chain, ctx.utxos, tx);
      if ("reason" in verdict) {
        const message = verdict.code === -26 ? rejectionText(verdict) : verdict.reason;
        throw new RpcError(verdict.code, message);
      }
      if (rate !== 0n && verdict.fee > feeAt(rate, verdict.vsize)) {
        throw new RpcError(
          RPC_TRANSACTION_ERROR,
          "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)"
        );
      }
      chain.addToMempool(tx);
      ctx.entered.set(tx.txid, {
        time: Math.floor(Date.now() / 1e3),
        height: chain.tip.height
      });
      return tx.txid;
    },
    testmempoolaccept: (raw) => {
      const [list, maxfeerate = null] = readParams(
        "testmempoolaccept",
        raw,
        [
          ["rawtxs", "array"],
          ["maxfeerate", "number", "string"]
        ],
        1
      );
      const hexes = list;
      if (hexes.length < 1 || hexes.length > MAX_PACKAGE_COUNT) {
        throw new RpcError(
          RPC_INVALID_PARAMETER,
          `Array must contain between 1 and ${MAX_PACKAGE_COUNT} transactions.`
        );
      }
      const rate = feeRateArg(maxfeerate, DEFAULT_MAX_FEERATE);
      const txs = hexes.map((h) => {
        const tx = typeof h === "string" ? decode2(h) : void 0;
        if (!tx) {
          throw new RpcError(
            RPC_DESERIALIZATION_ERROR2,
            `TX decode failed: ${String(h)} Make sure the tx has at least one input.`
          );
        }
        return tx;
      });
      return txs.map((tx) => {
        const head = { txid: tx.txid, wtxid: tx.wtxid };
        const verdict = checkMempoolAccept(chain, ctx.utxos, tx);
        if ("reason" in verdict) {
          const reason = verdict.code === -25 ? "missing-inputs" : verdict.reason;
          return {
            ...head,
            allowed: false,
            "reject-reason": reason,
            "reject-details": verdict.code === -25 ? reason : rejectionText(verdict)
          };
        }
        if (rate !== 0n && verdict.fee > feeAt(rate, verdict.vsize)) {
          return { ...head, allowed: false, "reject-reason": "max-fee-exceeded" };
        }
        return {
          ...head,
          allowed: true,
          vsize: verdict.vsize,
          fees: {
            base: amountToJson(verdict.fee),
            "effective-feerate": amountToJson(verdict.fee * 1000n / BigInt(verdict.vsize)),
            "effective-includes": [tx.wtxid]
          }
        };
      });
    }
  };
}

// src/devnet/bitcoin-core/util-methods.ts
function describe(script) {
  const sol = solve(script);
  switch (sol.type) {
    case "pubkeyhash":
      return { isscript: false, iswitness: false };
    case "scripthash":
      return { isscript: true, iswitness: false };
    case "witness_v0_keyhash":
      return {
        isscript: false,
        iswitness: true,
        witness_version: 0,
        witness_program: toHex(sol.hash)
      };
    case "witness_v0_scripthash":
      return {
        isscript: true,
        iswitness: true,
        witness_version: 0,
        witness_program: toHex(sol.hash)
      };
    case "witness_v1_taproot":
      return {
        isscript: true,
        iswitness: true,
        witness_version: 1,
        witness_program: toHex(sol.program)
      };
    case "anchor":
      return { isscript: true, iswitness: true, witness_version: 1, witness_program: "4e73" };
    case "witness_unknown":
      return { iswitness: true, witness_version: sol.version, witness_program: toHex(sol.program) };
    default:
      return {};
  }
}
function utilMethods(ctx) {
  return {
    decodescript: (raw) => {
      const [hex] = readParams("decodescript", raw, [["hexstring", "string"]], 1);
      const script = hex === "" ? new Uint8Array(0) : hexArg(hex, "argument");
      return decodeScriptToUniv(script, ctx.network);
    },
    validateaddress: (raw) => {
      const [address] = readParams("validateaddress", raw, [["address", "string"]], 1);
      const script = addressToScript(address, ctx.network);
      if (!script) {
        return {
          isvalid: false,
          error_locations: [],
          error: "Invalid or unsupported Segwit (Bech32) or Base58 encoding."
        };
      }
      return {
        isvalid: true,
        address,
        scriptPubKey: toHex(script),
        ...describe(script)
      };
    }
  };
}

// src/bitcoin/merkle-block.ts
function merkleBlockBytes(header, txids, match) {
  const n2 = txids.length;
  const width = (h) => n2 + (1 << h) - 1 >> h;
  const hashAt2 = (h, pos) => {
    if (h === 0) return txids[pos];
    const left = hashAt2(h - 1, pos * 2);
    const right = pos * 2 + 1 < width(h - 1) ? hashAt2(h - 1, pos * 2 + 1) : left;
    return sha256d(left, right);
  };
  const bits = [];
  const hashes = [];
  const build2 = (h, pos) => {
    let parentOfMatch = false;
    for (let p = pos << h; p < pos + 1 << h && p < n2; p++) parentOfMatch ||= match[p];
    bits.push(parentOfMatch);
    if (h === 0 || !parentOfMatch) {
      hashes.push(hashAt2(h, pos));
      return;
    }
    build2(h - 1, pos * 2);
    if (pos * 2 + 1 < width(h - 1)) build2(h - 1, pos * 2 + 1);
  };
  let height = 0;
  while (width(height) > 1) height++;
  build2(height, 0);
  const flagBytes = new Uint8Array(bits.length + 7 >> 3);
  bits.forEach((b, p) => {
    if (b) flagBytes[p >> 3] |= 1 << (p & 7);
  });
  const count = new Uint8Array(4);
  new DataView(count.buffer).setUint32(0, n2, true);
  return concatBytes(
    header,
    count,
    compactSizeBytes(hashes.length),
    ...hashes,
    compactSizeBytes(flagBytes.length),
    flagBytes
  );
}

// src/devnet/bitcoin-core/utxo-methods.ts
function utxoMethods(ctx) {
  const { chain } = ctx;
  return {
    gettxout: (raw) => {
      const [txid, n2, includeMempool = null] = readParams(
        "gettxout",
        raw,
        [
          ["txid", "string"],
          ["n", "number"],
          ["include_mempool", "bool"]
        ],
        2
      );
      const coin = ctx.utxos.coin(
        hashArg(txid, "txid"),
        intArg(n2, 0),
        includeMempool !== false
      );
      if (!coin) return null;
      const out = coin.tx.outputs[coin.vout];
      return {
        bestblock: chain.tip.block.hash,
        confirmations: coin.height === MEMPOOL_HEIGHT ? 0 : chain.tip.height - coin.height + 1,
        value: amountToJson(out.value),
        scriptPubKey: scriptPubKeyToJson(out.scriptPubKey, ctx.network),
        coinbase: coin.coinbase
      };
    },
    gettxoutproof: (raw) => {
      const [list, blockhash = null] = readParams(
        "gettxoutproof",
        raw,
        [
          ["txids", "array"],
          ["blockhash", "string"]
        ],
        1
      );
      const wanted = /* @__PURE__ */ new Set();
      for (const item of list) {
        const txid = hashArg(item, "txid");
        if (wanted.has(txid)) {
          throw new RpcError(
            RPC_INVALID_PARAMETER,
            `Invalid parameter, duplicated txid: ${item}`
          );
        }
        wanted.add(txid);
      }
      let entry;
      if (blockhash !== null) {
        entry = chain.byHash.get(hashArg(blockhash, "blockhash"));
        if (!entry) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
      } else {
        for (const txid of wanted) {
          entry = chain.txIndex.get(txid)?.block;
          if (entry) break;
        }
        if (!entry) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Transaction not yet in block");
      }
      const txs = entry.block.transactions;
      const match = txs.map((t) => wanted.has(t.txid));
      if (match.filter(Boolean).length !== wanted.size) {
        throw new RpcError(
          RPC_INVALID_ADDRESS_OR_KEY,
          "Not all transactions found in specified or retrieved block"
        );
      }
      return toHex(
        merkleBlockBytes(
          entry.block.headerBytes,
          txs.map((t) => t.txidBytes),
          match
        )
      );
    }
  };
}

// src/devnet/bitcoin-core/methods.ts
function coreMethods(chain, network, prevouts) {
  const ctx = {
    chain,
    network,
    prevouts,
    utxos: new DevnetUtxos(chain),
    startedAt: Date.now(),
    entered: /* @__PURE__ */ new Map()
  };
  return {
    ...blockMethods(ctx),
    ...blockStatsMethod(ctx),
    ...chainInfoMethods(ctx),
    ...mempoolMethods(ctx),
    ...utxoMethods(ctx),
    ...utilMethods(ctx),
    ...networkMethods(ctx),
    ...txReadMethods(ctx),
    ...txSubmitMethods(ctx),
    ...miningMethods(ctx),
    // Core's own way to stage a reorganisation (tests of the gateway's cache eviction).
    invalidateblock: (raw) => {
      const [hash4] = readParams("invalidateblock", raw, [["blockhash", "string"]], 1);
      if (!chain.invalidateBlock(hash4.toLowerCase())) {
        throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
      }
      chain.tipChanged();
      return null;
    },
    reconsiderblock: () => {
      chain.reconsiderBlocks();
      chain.tipChanged();
      return null;
    }
  };
}

// src/devnet/block-producer.ts
var DEVNET_PAYOUT = concatBytes(
  Uint8Array.of(0, 32),
  sha256(Uint8Array.of(81))
);
var ref = (b) => ({ height: b.height, hash: b.block.hash });
var BlockProducer = class {
  constructor(chain, prevouts) {
    this.chain = chain;
    this.prevouts = prevouts;
  }
  chain;
  prevouts;
  /** `count` blocks on the tip, carrying the mempool transactions devnet can price. */
  mine(count) {
    const made = mineBlocks(this.chain, this.prevouts, DEVNET_PAYOUT, count);
    return { tip: ref(this.chain.tip), connected: made.map(ref), disconnected: [] };
  }
  /**
   * A reorganisation as a chain watcher sees one: the top `depth` blocks leave the best chain
   * (their transactions back in the mempool) and `depth + 1` new blocks on the fork point
   * outgrow them, so the best chain switches to a longer branch, different above the fork point.
   * Tip listeners hear of it once, when the new branch is complete. Refused, with the reason,
   * where devnet does not hold every height from the fork point up.
   */
  reorg(depth) {
    const gone = this.chain.disconnectTop(depth);
    if (!gone) {
      return {
        refused: `cannot take ${depth} block(s) off a chain whose tip is ${this.chain.tip.height}: every height from the fork point up must be held`
      };
    }
    const made = mineBlocks(this.chain, this.prevouts, DEVNET_PAYOUT, depth + 1);
    return { tip: ref(this.chain.tip), connected: made.map(ref), disconnected: gone.map(ref) };
  }
};

// src/devnet/block-timer.ts
function startBlockTimer(producers, intervalMs, onError = (err) => process.stderr.write(`devnet: block timer: ${err.message}
`)) {
  if (intervalMs <= 0 || producers.length === 0) return { stop() {
  } };
  const timer = setInterval(() => {
    for (const producer of producers) {
      try {
        producer.mine(1);
      } catch (err) {
        onError(err);
      }
    }
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

// src/devnet/chain.ts
import { readdirSync, readFileSync as readFileSync4 } from "node:fs";

// src/bitcoin/genesis.ts
var COIN2 = 100000000n;
var OP_CHECKSIG = 172;
var SATOSHI_TIMES = "The Times 03/Jan/2009 Chancellor on brink of second bailout for banks";
var SATOSHI_KEY = "04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f";
var GENESIS = {
  mainnet: {
    timestamp: SATOSHI_TIMES,
    pubkey: SATOSHI_KEY,
    time: 1231006505,
    nonce: 2083236893,
    bits: 486604799,
    version: 1,
    reward: 50n * COIN2
  },
  testnet: {
    timestamp: SATOSHI_TIMES,
    pubkey: SATOSHI_KEY,
    time: 1296688602,
    nonce: 414098458,
    bits: 486604799,
    version: 1,
    reward: 50n * COIN2
  },
  testnet4: {
    timestamp: "03/May/2024 000000000000000000001ebd58c244970b3aa9d783bb001011fbe8ea8e98e00e",
    pubkey: "00".repeat(33),
    time: 1714777860,
    nonce: 393743547,
    bits: 486604799,
    version: 1,
    reward: 50n * COIN2
  },
  signet: {
    timestamp: SATOSHI_TIMES,
    pubkey: SATOSHI_KEY,
    time: 1598918400,
    nonce: 52613770,
    bits: 503543726,
    version: 1,
    reward: 50n * COIN2
  },
  regtest: {
    timestamp: SATOSHI_TIMES,
    pubkey: SATOSHI_KEY,
    time: 1296688602,
    nonce: 2,
    bits: 545259519,
    version: 1,
    reward: 50n * COIN2
  }
};
function genesisBlock(network) {
  const p = GENESIS[network];
  const scriptSig = concatBytes(
    pushInt(486604799),
    // CScriptNum(4) is pushed as data (01 04), not as OP_4.
    pushBytes(scriptNum(4)),
    pushBytes(new TextEncoder().encode(p.timestamp))
  );
  const coinbase = parseTransaction(
    serializeTransaction({
      version: 1,
      locktime: 0,
      inputs: [
        {
          prevTxid: "00".repeat(32),
          prevTxidBytes: new Uint8Array(32),
          vout: 4294967295,
          scriptSig,
          sequence: 4294967295,
          witness: []
        }
      ],
      outputs: [
        {
          value: p.reward,
          scriptPubKey: concatBytes(pushBytes(fromHex(p.pubkey)), Uint8Array.of(OP_CHECKSIG))
        }
      ]
    })
  );
  return assembleBlock(
    {
      version: p.version,
      previousblockhash: "00".repeat(32),
      time: p.time,
      bits: p.bits,
      nonce: p.nonce
    },
    [coinbase]
  );
}

// src/devnet/chain.ts
var DATA_DIR = `${projectPath("data", "chain")}/`;
var DevnetChain = class {
  constructor(network = "mainnet") {
    this.network = network;
  }
  network;
  /** Core's own mediantime and chainwork for blocks whose ancestors devnet lacks (951658). */
  anchors = /* @__PURE__ */ new Map();
  /** chainWork's results, by block hash (a block's work never changes). */
  workMemo = /* @__PURE__ */ new Map();
  byHash = /* @__PURE__ */ new Map();
  byHeight = /* @__PURE__ */ new Map();
  txIndex = /* @__PURE__ */ new Map();
  mempool = /* @__PURE__ */ new Map();
  tip;
  addBlock(block, height) {
    const entry = { height, block };
    this.byHash.set(block.hash, entry);
    this.byHeight.set(height, entry);
    block.transactions.forEach((tx, index) => {
      if (!this.txIndex.has(tx.txid)) this.txIndex.set(tx.txid, { block: entry, index });
    });
    if (!this.tip || height > this.tip.height) this.tip = entry;
  }
  addToMempool(tx) {
    if (this.txIndex.has(tx.txid) || this.mempool.has(tx.txid)) return;
    this.mempool.set(tx.txid, tx);
    this.changed();
  }
  /** Confirmations as Core counts them: the tip has 1. */
  confirmations(entry) {
    return this.tip.height - entry.height + 1;
  }
  /** Blocks taken off the best chain by invalidateBlock, until reconsidered. */
  invalid = [];
  /** Blocks a reorganisation replaced by a longer branch: known by hash, off the best chain. */
  stale = [];
  tipListeners = /* @__PURE__ */ new Set();
  changeListeners = /* @__PURE__ */ new Set();
  /**
   * Calls `listener` with the tip whenever an operation on the chain ends with a new best chain
   * (tipChanged); returns the function that stops it. devnet's Electrum server announces the tip
   * to its headers subscribers this way, whoever changed the chain.
   */
  onTip(listener) {
    this.tipListeners.add(listener);
    return () => this.tipListeners.delete(listener);
  }
  /**
   * Said once an operation (a batch of produced blocks, a reorganisation) is complete, not per
   * block: ElectrumX too notifies the tip once per batch of blocks it processed.
   */
  tipChanged() {
    for (const listener of this.tipListeners) listener(this.tip);
    this.changed();
  }
  /**
   * Calls `listener` whenever a script's history may have changed: a transaction entered the
   * mempool, or an operation on the chain ended (tipChanged). devnet's Electrum server re-reads
   * its sessions' subscribed statuses this way, as ElectrumX does after each mempool refresh and
   * each block; returns the function that stops it.
   */
  onChange(listener) {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }
  changed() {
    for (const listener of this.changeListeners) listener();
  }
  /**
   * Takes the best chain's blocks from `height` up off it, into `into`: their transactions other
   * than coinbases return to the mempool, the blocks stay known by hash, and the tip falls to the
   * highest block below.
   */
  takeOff(height, into) {
    for (const h of this.heights()) {
      if (h < height) continue;
      const block = this.byHeight.get(h);
      this.byHeight.delete(h);
      for (const tx of block.block.transactions) {
        if (this.txIndex.get(tx.txid)?.block !== block) continue;
        this.txIndex.delete(tx.txid);
        if (!tx.isCoinbase) this.mempool.set(tx.txid, tx);
      }
      into.push(block);
    }
    const heights = this.heights();
    this.tip = this.byHeight.get(heights[heights.length - 1]);
  }
  /**
   * Core's `invalidateblock`: the block and every block above it leave the best chain, until
   * reconsidered. How tests stage a reorganisation; devnet's chain does not validate, so there is
   * nothing else to undo.
   */
  invalidateBlock(hash4) {
    const entry = this.byHash.get(hash4);
    if (!entry || this.byHeight.get(entry.height) !== entry) return false;
    this.takeOff(entry.height, this.invalid);
    return true;
  }
  /**
   * The first half of a reorganisation: the top `depth` blocks leave the best chain as a stale
   * branch (getchaintips' valid-fork), to be outgrown by the blocks produced next. Refused (null)
   * unless every height from the fork point to the tip is held, so the new branch builds on the
   * fork point itself (on sparse mainnet: only above 951658, on blocks devnet produced).
   */
  disconnectTop(depth) {
    const fork = this.tip.height - depth;
    if (depth < 1 || fork < 0) return null;
    for (let h = fork; h <= this.tip.height; h++) if (!this.byHeight.has(h)) return null;
    const from = this.stale.length;
    this.takeOff(fork + 1, this.stale);
    return this.stale.slice(from).reverse();
  }
  /** The blocks invalidateBlock took off the best chain (getchaintips' invalid branch). */
  invalidated() {
    return this.invalid;
  }
  /** The blocks reorganisations left behind (getchaintips' valid-fork branches). */
  staleBlocks() {
    return this.stale;
  }
  /** Core's `reconsiderblock` (of every invalidated block): they are the best chain again. */
  reconsiderBlocks() {
    const blocks = this.invalid.splice(0).sort((a, b) => a.height - b.height);
    for (const b of blocks) {
      for (const tx of b.block.transactions) this.mempool.delete(tx.txid);
      this.addBlock(b.block, b.height);
    }
  }
  /** Heights held, ascending. */
  heights() {
    return [...this.byHeight.keys()].sort((a, b) => a - b);
  }
};
function bip34Height(block) {
  const script = block.transactions[0].inputs[0].scriptSig;
  const len = script[0];
  let height = 0;
  for (let i = len; i >= 1; i--) height = height * 256 + script[i];
  return height;
}
function plain(buf) {
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}
function bytesOf2(path) {
  return plain(readFileSync4(path));
}
function newDevnetChain(network) {
  const chain = new DevnetChain(network);
  if (network !== "mainnet") {
    chain.addBlock(genesisBlock(network), 0);
    return chain;
  }
  const data = mainnetData();
  for (const [hash4, anchor] of data.anchors) chain.anchors.set(hash4, anchor);
  for (const [block, height] of data.blocks) chain.addBlock(block, height);
  for (const tx of data.mempool) chain.addToMempool(tx);
  return chain;
}
var parsed = null;
function mainnetData() {
  if (parsed) return parsed;
  const blocksDir = `${DATA_DIR}blocks/`;
  const ordered2 = [[parseBlock(bytesOf2(`${blocksDir}genesis.raw`)), 0]];
  let height = 1;
  for (const raw of readBlockRecords(bytesOf2(`${blocksDir}blocks1-255.dat`))) {
    ordered2.push([parseBlock(raw), height++]);
  }
  const rawFiles = readdirSync(blocksDir).filter(
    (f) => (f.endsWith(".raw") || f.endsWith(".blk")) && f !== "genesis.raw"
  );
  const blocks = rawFiles.map((f) => parseBlock(bytesOf2(blocksDir + f)));
  for (const raw of readBlockRecords(bytesOf2(`${blocksDir}277647.dat`)))
    blocks.push(parseBlock(raw));
  const json = JSON.parse(readFileSync4(`${blocksDir}bitcoin_mainnet_951658.json`, "utf8"));
  blocks.push(parseBlock(plain(Buffer.from(json.block, "hex"))));
  for (const block of blocks) ordered2.push([block, bip34Height(block)]);
  const mempoolJson = JSON.parse(readFileSync4(`${DATA_DIR}txs/mempool.json`, "utf8"));
  const mempool = mempoolJson.txs.map(
    ({ hex }) => parseTransaction(plain(Buffer.from(hex, "hex")))
  );
  mempool.push(
    parseTransaction(
      plain(Buffer.from(readFileSync4(`${DATA_DIR}txs/huge_witness.hex`, "utf8").trim(), "hex"))
    )
  );
  mempool.push(parseTransaction(bytesOf2(`${DATA_DIR}txs/megatx.bin`)));
  parsed = {
    blocks: ordered2,
    // Core's getblock answer for 951658 gives what its 951,647 missing ancestors would.
    anchors: [
      [json.hash, { mediantime: json.mediantime, chainwork: BigInt(`0x${json.chainwork}`) }]
    ],
    mempool
  };
  return parsed;
}

// src/devnet/electrum/daemon.ts
import { setTimeout as sleep3 } from "node:timers/promises";
var DaemonError = class extends Error {
  constructor(error) {
    super(error.message);
    this.error = error;
  }
  error;
  /** repr(DaemonError(err)): how ElectrumX quotes it in `daemon error: …`. */
  pyRepr() {
    const { code, message } = this.error;
    return `DaemonError({'code': ${code}, 'message': ${pyStrRepr(message)}})`;
  }
};
var RPC_IN_WARMUP = -28;
var RPC_PARSE_ERROR = -32700;
var RETRY_FIRST_MS = 250;
var RETRY_MAX_MS = 4e3;
var Daemon = class {
  constructor(client) {
    this.client = client;
  }
  client;
  calls = 0;
  async request(method, params, signal) {
    let delay = RETRY_FIRST_MS;
    for (; ; ) {
      signal.throwIfAborted();
      this.calls += 1;
      const out = await this.client.batch([{ method, params }]);
      if (out.ok) {
        const answer3 = out.answers[0];
        if ("result" in answer3) return answer3.result;
        const code = answer3.error.code;
        if (code !== RPC_IN_WARMUP && code !== RPC_PARSE_ERROR) throw new DaemonError(answer3.error);
      }
      await sleep3(delay, void 0, { signal });
      delay = Math.min(delay * 2, RETRY_MAX_MS);
    }
  }
  close() {
    return this.client.close();
  }
};

// src/devnet/electrum/rpc-error.ts
var ElectrumRpcError = class extends Error {
  constructor(code, message, disconnect = false) {
    super(message);
    this.code = code;
    this.disconnect = disconnect;
  }
  code;
  disconnect;
};

// src/devnet/electrum/handler.ts
function checked(method, run) {
  const signature2 = ELECTRUM_SIGNATURES[method];
  return {
    required: signature2.required,
    optional: signature2.optional,
    run(session, args) {
      const out = checkBoundArgs(signature2, args);
      if (!out.ok) throw new ElectrumRpcError(out.error.code, out.error.message);
      return run(session, out.params);
    }
  };
}
async function daemonRequest(daemon, session, method, params) {
  try {
    return await daemon.request(method, params, session.signal);
  } catch (err) {
    if (err instanceof DaemonError) {
      throw new ElectrumRpcError(DAEMON_ERROR, `daemon error: ${err.pyRepr()}`);
    }
    throw err;
  }
}

// src/devnet/electrum/merkle.ts
function branchAndRoot(hashes, index) {
  let level = hashes.slice();
  let at = index;
  const branch = [];
  while (level.length > 1) {
    if (level.length % 2 === 1) level.push(level[level.length - 1]);
    branch.push(level[at ^ 1]);
    at >>= 1;
    const next = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(level[i], level[i + 1]));
    level = next;
  }
  return { branch, root: level[0] };
}

// src/devnet/electrum/headers.ts
var MAX_CHUNK_SIZE = 2016;
function headerMethods(chain) {
  const header = (height) => chain.byHeight.get(height);
  return {
    "blockchain.headers.subscribe": checked("blockchain.headers.subscribe", (session) => {
      session.subscribedHeaders = true;
      return tipHeader(chain);
    }),
    "blockchain.block.header": checked("blockchain.block.header", (_session, [h, cp]) => {
      const height = Number(h);
      const cpHeight = Number(cp);
      const entry = header(height);
      if (!entry || height > chain.tip.height) {
        throw new ElectrumRpcError(BAD_REQUEST, `height ${pyThousands(height)} out of range`);
      }
      const hex = toHex(entry.block.headerBytes);
      if (cpHeight === 0) return hex;
      return { header: hex, ...merkleProof(chain, cpHeight, height) };
    }),
    "blockchain.block.headers": checked("blockchain.block.headers", (session, [s, c, cp]) => {
      const start = Number(s);
      const cpHeight = Number(cp);
      const wanted = Math.max(0, Math.min(Number(c), MAX_CHUNK_SIZE, chain.tip.height + 1 - start));
      const parts = [];
      while (parts.length < wanted) {
        const entry = header(start + parts.length);
        if (!entry) break;
        parts.push(toHex(entry.block.headerBytes));
      }
      const count = parts.length;
      const proof = count > 0 && cpHeight !== 0 ? merkleProof(chain, cpHeight, start + count - 1) : {};
      if (compareProtocols(protocolTuple(session.protocol ?? ""), [1, 6]) >= 0) {
        return {
          count: jsonNumber(count),
          max: jsonNumber(MAX_CHUNK_SIZE),
          headers: parts,
          ...proof
        };
      }
      return {
        hex: parts.join(""),
        count: jsonNumber(count),
        max: jsonNumber(MAX_CHUNK_SIZE),
        ...proof
      };
    })
  };
}
function merkleProof(chain, cpHeight, height) {
  const max = chain.tip.height;
  if (!(height <= cpHeight && cpHeight <= max)) {
    throw new ElectrumRpcError(
      BAD_REQUEST,
      `require header height ${pyThousands(height)} <= cp_height ${pyThousands(cpHeight)} <= chain height ${pyThousands(max)}`
    );
  }
  const hashes = [];
  for (let h = 0; h <= cpHeight; h++) {
    const entry = chain.byHeight.get(h);
    if (!entry) {
      throw new ElectrumRpcError(
        BAD_REQUEST,
        `devnet holds a sparse chain: no header at height ${pyThousands(h)}, so no proof to cp_height ${pyThousands(cpHeight)}`
      );
    }
    hashes.push(entry.block.hashBytes);
  }
  const { branch, root } = branchAndRoot(hashes, height);
  return { branch: branch.map(toHexReversed), root: toHexReversed(root) };
}
function tipHeader(chain) {
  return { hex: toHex(chain.tip.block.headerBytes), height: jsonNumber(chain.tip.height) };
}

// src/devnet/electrum/fees.ts
import { LosslessNumber as LosslessNumber4 } from "lossless-json";
var HISTOGRAM_BIN_VBYTES = 1e5;
function feeMethods({ chain, daemon, prevouts }) {
  return {
    "blockchain.estimatefee": checked("blockchain.estimatefee", async (session, [n2, mode]) => {
      const target = jsonNumber(feeTarget(Number(n2)));
      const params = mode === void 0 ? [target] : [target, mode];
      const estimate = await daemonRequest(daemon, session, "estimatesmartfee", params);
      return isJsonObject(estimate) && estimate.feerate !== void 0 ? estimate.feerate : jsonNumber(-1);
    }),
    "blockchain.relayfee": checked("blockchain.relayfee", async (session) => {
      const info = await daemonRequest(daemon, session, "getnetworkinfo", []);
      return isJsonObject(info) ? info.relayfee ?? null : null;
    }),
    "mempool.get_fee_histogram": checked(
      "mempool.get_fee_histogram",
      () => compactHistogram(chain, prevouts)
    )
  };
}
function feeTarget(n2) {
  if (n2 <= 1) return 1;
  if (n2 <= 12) return n2;
  if (n2 === 25) return n2;
  if (n2 <= 48) return Math.floor(n2 / 2) * 2;
  if (n2 <= 1008) return Math.floor(n2 / 24) * 24;
  return 1008;
}
function compactHistogram(chain, prevouts) {
  const histogram = /* @__PURE__ */ new Map();
  for (const tx of chain.mempool.values()) {
    let fee = 0n;
    let known = true;
    for (const input of tx.inputs) {
      const spent = prevouts(input.prevTxid, input.vout)?.valueSats ?? mempoolOutput(chain, input);
      if (spent === void 0) known = false;
      else fee += spent;
    }
    if (!known) continue;
    for (const o of tx.outputs) fee -= o.value;
    const rate = Math.floor(10 * (Number(fee) / tx.vsize)) / 10;
    histogram.set(rate, (histogram.get(rate) ?? 0) + tx.vsize);
  }
  return compressHistogram(histogram, HISTOGRAM_BIN_VBYTES).map(([rate, size]) => [
    new LosslessNumber4(pyFloatRepr(rate)),
    jsonNumber(size)
  ]);
}
function compressHistogram(histogram, binVbytes) {
  const compact = [];
  let binSize = binVbytes;
  let cumSize = 0;
  let prevRate = null;
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
function mempoolOutput(chain, input) {
  return chain.mempool.get(input.prevTxid)?.outputs[input.vout]?.value;
}

// src/devnet/electrum/scripthash.ts
function historyJson(e) {
  const entry = { tx_hash: e.txid, height: jsonNumber(e.height) };
  if (e.height <= 0 && e.feeSats !== void 0) entry.fee = jsonNumber(e.feeSats);
  return entry;
}
function statusOf(scripts) {
  return (hash4) => scripthashStatus(scripts(hash4).history.map(historyJson)) ?? null;
}
function scripthashMethods(scripts) {
  const of = (hash4) => scripts(hash4);
  const status = statusOf(scripts);
  return {
    "blockchain.scripthash.get_history": checked(
      "blockchain.scripthash.get_history",
      (_session, [hash4]) => of(hash4).history.map(historyJson)
    ),
    // The status of the history get_history answers, remembered: the server notifies the
    // session when it changes (server.ts notifyScripthashes).
    "blockchain.scripthash.subscribe": checked(
      "blockchain.scripthash.subscribe",
      (session, [hash4]) => {
        const now = status(hash4);
        session.scripthashes.set(hash4, now);
        return now;
      }
    ),
    "blockchain.scripthash.unsubscribe": checked(
      "blockchain.scripthash.unsubscribe",
      (session, [hash4]) => session.scripthashes.delete(hash4)
    ),
    "blockchain.scripthash.get_mempool": checked(
      "blockchain.scripthash.get_mempool",
      (_session, [hash4]) => of(hash4).history.filter((e) => e.height <= 0).map(historyJson)
    ),
    "blockchain.scripthash.get_balance": checked(
      "blockchain.scripthash.get_balance",
      (_session, [hash4]) => {
        const e = of(hash4);
        return {
          confirmed: jsonNumber(e.confirmedSats),
          unconfirmed: jsonNumber(e.unconfirmedSats)
        };
      }
    ),
    "blockchain.scripthash.listunspent": checked(
      "blockchain.scripthash.listunspent",
      (_session, [hash4]) => of(hash4).utxos.map(
        (u) => ({
          tx_hash: u.txid,
          tx_pos: jsonNumber(u.vout),
          height: jsonNumber(u.height),
          value: jsonNumber(u.value)
        })
      )
    )
  };
}

// src/devnet/electrum/transactions.ts
function transactionMethods({ chain, daemon }) {
  return {
    "blockchain.transaction.get": checked(
      "blockchain.transaction.get",
      (session, [txHash2, verbose]) => {
        const flag = jsonNumber(verbose === true ? 1 : 0);
        return daemonRequest(daemon, session, "getrawtransaction", [txHash2, flag]);
      }
    ),
    "blockchain.transaction.get_merkle": checked(
      "blockchain.transaction.get_merkle",
      (_session, [hash4, h]) => {
        const height = Number(h);
        const txids = txidsAt(chain, height);
        const pos = txids.findIndex((t) => toHexReversed(t) === hash4);
        if (pos < 0) {
          throw new ElectrumRpcError(
            BAD_REQUEST,
            `tx ${pyStr(hash4)} not in block at height ${pyThousands(height)}`
          );
        }
        return {
          block_height: jsonNumber(height),
          merkle: branchAndRoot(txids, pos).branch.map(toHexReversed),
          pos: jsonNumber(pos)
        };
      }
    ),
    "blockchain.transaction.id_from_pos": checked(
      "blockchain.transaction.id_from_pos",
      (_session, [h, p, merkle]) => {
        const height = Number(h);
        const pos = Number(p);
        const txids = txidsAt(chain, height);
        const txid = txids[pos];
        if (!txid) {
          throw new ElectrumRpcError(
            BAD_REQUEST,
            `no tx at position ${pyThousands(pos)} in block at height ${pyThousands(height)}`
          );
        }
        if (merkle !== true) return toHexReversed(txid);
        return {
          tx_hash: toHexReversed(txid),
          merkle: branchAndRoot(txids, pos).branch.map(toHexReversed)
        };
      }
    ),
    "blockchain.transaction.broadcast": checked(
      "blockchain.transaction.broadcast",
      async (session, [rawTx]) => {
        try {
          return await daemon.request("sendrawtransaction", [rawTx], session.signal);
        } catch (err) {
          if (err instanceof DaemonError) {
            throw new ElectrumRpcError(
              BAD_REQUEST,
              `the transaction was rejected by network rules.

${err.error.message}
[${pyStr(rawTx)}]`
            );
          }
          throw err;
        }
      }
    )
  };
}
function txidsAt(chain, height) {
  const entry = chain.byHeight.get(height);
  if (!entry || height > chain.tip.height) {
    const why = height > chain.tip.height ? `(>${pyThousands(chain.tip.height)})` : "(devnet holds a sparse chain)";
    throw new ElectrumRpcError(
      BAD_REQUEST,
      `db error: DBError('block ${pyThousands(height)} not on disk ${why}')`
    );
  }
  return entry.block.transactions.map((tx) => tx.txidBytes);
}

// src/devnet/electrum/methods.ts
var SERVER_VERSION = "ElectrumX 1.18.0 (blockgate devnet)";
function electrumMethods(backend) {
  return {
    ...serverMethods(backend),
    ...headerMethods(backend.chain),
    ...scripthashMethods(backend.scripts),
    ...transactionMethods(backend),
    ...feeMethods(backend)
  };
}
function serverMethods({ chain, address }) {
  return {
    "server.version": {
      ...ELECTRUM_SIGNATURES["server.version"],
      run(session, [clientName = "", protocolVersion = null]) {
        if (session.svSeen) throw new ElectrumRpcError(BAD_REQUEST, "server.version already sent");
        session.svSeen = true;
        if (truthy(clientName)) session.client = pyStr(clientName).slice(0, 17);
        const negotiated = negotiateProtocol(
          protocolVersion,
          ELECTRUMX_PROTOCOL_MIN,
          ELECTRUMX_PROTOCOL_MAX
        );
        if (!negotiated) {
          throw new ElectrumRpcError(
            BAD_REQUEST,
            `unsupported protocol version: ${pyStr(protocolVersion)}`,
            true
          );
        }
        session.protocol = versionString(negotiated);
        return [SERVER_VERSION, session.protocol];
      }
    },
    "server.ping": checked("server.ping", () => null),
    "server.banner": checked(
      "server.banner",
      () => `You are connected to an ${SERVER_VERSION} server.`
    ),
    // ElectrumX's server_features, keys in its order; genesis_hash is this network's block 0.
    "server.features": checked("server.features", () => {
      const { host, port } = address();
      return {
        hosts: { [host]: { tcp_port: jsonNumber(port) } },
        pruning: null,
        server_version: SERVER_VERSION,
        protocol_min: versionString(ELECTRUMX_PROTOCOL_MIN),
        protocol_max: versionString(ELECTRUMX_PROTOCOL_MAX),
        genesis_hash: chain.byHeight.get(0).block.hash,
        hash_function: "sha256",
        services: [`tcp://${host}:${port}`]
      };
    })
  };
}
function truthy(value) {
  if (value === null || value === void 0 || value === false || value === "") return false;
  if (isJsonNumber(value)) return Number(value.value) !== 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}

// src/devnet/electrum/script-index.ts
var EMPTY = { history: [], utxos: [], confirmedSats: 0n, unconfirmedSats: 0n };
function scriptIndex(chain, prevouts) {
  let index;
  let builtFor = "";
  return (scripthash2) => {
    const state = `${chain.tip.block.hash} ${chain.mempool.size} ${[...chain.mempool.keys()].at(-1) ?? ""}`;
    if (!index || builtFor !== state) {
      index = build(chain, prevouts);
      builtFor = state;
    }
    return index.get(scripthash2) ?? EMPTY;
  };
}
function build(chain, prevouts) {
  const index = /* @__PURE__ */ new Map();
  const entry = (hash4) => {
    let e = index.get(hash4);
    if (!e) {
      e = { history: [], utxos: [], confirmedSats: 0n, unconfirmedSats: 0n };
      index.set(hash4, e);
    }
    return e;
  };
  const outputs = /* @__PURE__ */ new Map();
  const spentBy = (txid, vout) => {
    const own = outputs.get(`${txid}:${vout}`);
    if (own) return own;
    const p = prevouts(txid, vout);
    return p && { scripthash: electrumScripthash(p.scriptPubKey), value: p.valueSats, height: 0 };
  };
  const touched = (tx) => {
    const hashes = /* @__PURE__ */ new Set();
    for (const output of tx.outputs) {
      if (!isUnspendable(output.scriptPubKey)) hashes.add(electrumScripthash(output.scriptPubKey));
    }
    if (!tx.isCoinbase) {
      for (const input of tx.inputs) {
        const spent = spentBy(input.prevTxid, input.vout);
        if (spent) hashes.add(spent.scripthash);
      }
    }
    return hashes;
  };
  const confirmed = /* @__PURE__ */ new Map();
  for (const height of chain.heights()) {
    for (const tx of chain.byHeight.get(height).block.transactions) {
      for (const hash4 of touched(tx)) entry(hash4).history.push({ txid: tx.txid, height });
      if (!tx.isCoinbase) {
        for (const input of tx.inputs) {
          const key = `${input.prevTxid}:${input.vout}`;
          outputs.delete(key);
          confirmed.delete(key);
        }
      }
      tx.outputs.forEach((output, vout) => {
        if (isUnspendable(output.scriptPubKey)) return;
        const out = {
          scripthash: electrumScripthash(output.scriptPubKey),
          value: output.value,
          height
        };
        outputs.set(`${tx.txid}:${vout}`, out);
        confirmed.set(`${tx.txid}:${vout}`, { ...out, txid: tx.txid, vout });
      });
    }
  }
  for (const tx of chain.mempool.values()) {
    tx.outputs.forEach((output, vout) => {
      if (isUnspendable(output.scriptPubKey)) return;
      const out = {
        scripthash: electrumScripthash(output.scriptPubKey),
        value: output.value,
        height: 0
      };
      outputs.set(`${tx.txid}:${vout}`, out);
    });
  }
  for (const u of confirmed.values()) {
    const e = entry(u.scripthash);
    e.utxos.push({ txid: u.txid, vout: u.vout, height: u.height, value: u.value });
    e.confirmedSats += u.value;
  }
  const mempoolSpends = /* @__PURE__ */ new Set();
  for (const tx of chain.mempool.values()) {
    for (const input of tx.inputs) mempoolSpends.add(`${input.prevTxid}:${input.vout}`);
  }
  for (const tx of chain.mempool.values()) {
    const unconfirmedParent = tx.inputs.some((i) => chain.mempool.has(i.prevTxid));
    let fee = 0n;
    for (const input of tx.inputs) {
      const spent = spentBy(input.prevTxid, input.vout);
      if (!spent || fee === void 0) fee = void 0;
      else {
        fee += spent.value;
        entry(spent.scripthash).unconfirmedSats -= spent.value;
      }
    }
    if (fee !== void 0) for (const o of tx.outputs) fee -= o.value;
    const historyEntry = {
      txid: tx.txid,
      height: unconfirmedParent ? -1 : 0,
      ...fee === void 0 ? {} : { feeSats: fee }
    };
    for (const hash4 of touched(tx)) entry(hash4).history.push(historyEntry);
    tx.outputs.forEach((output, vout) => {
      if (isUnspendable(output.scriptPubKey)) return;
      const e = entry(electrumScripthash(output.scriptPubKey));
      e.unconfirmedSats += output.value;
      if (!mempoolSpends.has(`${tx.txid}:${vout}`)) {
        e.utxos.push({ txid: tx.txid, vout, height: 0, value: output.value });
      }
    });
  }
  for (const e of index.values()) {
    e.utxos = e.utxos.filter((u) => u.height === 0 || !mempoolSpends.has(`${u.txid}:${u.vout}`));
  }
  return index;
}

// src/devnet/electrum/server.ts
import { EventEmitter as EventEmitter5 } from "node:events";
import { createServer as createServer3 } from "node:net";
async function startElectrumTcp(opts) {
  const host = opts.host ?? "127.0.0.1";
  const recvBytesMax = opts.recvBytesMax ?? 1e6;
  const sendBytesMax = Math.max(35e4, opts.sendBytesMax ?? 81e5);
  const idleTimeoutMs = opts.idleTimeoutMs ?? 6e5;
  const stats = { connections: 0, open: 0, requests: 0, methods: {} };
  const events = new EventEmitter5();
  const sessions = /* @__PURE__ */ new Map();
  let server;
  let port = opts.port ?? 0;
  let notifyScheduled = false;
  function accept2(socket) {
    stats.connections += 1;
    stats.open += 1;
    const abort = new AbortController();
    const session = {
      svSeen: false,
      client: "unknown",
      protocol: null,
      subscribedHeaders: false,
      scripthashes: /* @__PURE__ */ new Map(),
      signal: abort.signal
    };
    sessions.set(socket, session);
    events.emit("connection");
    const splitter = new LineSplitter(recvBytesMax);
    let protocol = null;
    let closing = false;
    socket.setNoDelay(true);
    socket.setTimeout(idleTimeoutMs, () => socket.destroy());
    socket.on("error", () => {
    });
    socket.on("close", () => {
      abort.abort();
      sessions.delete(socket);
      stats.open -= 1;
      events.emit("disconnect");
    });
    socket.on("data", (chunk) => {
      const lines = splitter.push(chunk);
      if (lines === "too-long") {
        socket.destroy();
        return;
      }
      for (const line of lines) void handleLine(line);
    });
    const send2 = (text, thenClose = false) => {
      if (socket.destroyed || closing) return;
      socket.write(`${text}
`);
      if (thenClose) {
        closing = true;
        socket.end();
      }
    };
    async function handleLine(line) {
      let payload;
      try {
        payload = parseJson(line);
      } catch (err) {
        send2(errorMessage("v2", null, -32700, `cannot decode JSON: ${err.message}`));
        return;
      }
      protocol ??= detect(payload);
      const p = protocol;
      if (Array.isArray(payload)) {
        if (payload.length === 0) {
          send2(errorMessage(p, null, -32600, "empty batch"));
          return;
        }
        const parts = await Promise.all(payload.map((item) => handleRequest(p, item)));
        const replies = parts.filter((r) => r !== null);
        if (replies.length > 0) {
          send2(
            `[${replies.map((r) => r.text).join(", ")}]`,
            replies.some((r) => r.disconnect)
          );
        }
        return;
      }
      const reply3 = await handleRequest(p, payload);
      if (reply3) send2(reply3.text, reply3.disconnect);
    }
    async function handleRequest(p, payload) {
      if (!isJsonObject(payload)) {
        return reply(p, null, -32600, "request object must be a dictionary");
      }
      const hasId = "id" in payload;
      const id = hasId ? payload.id : null;
      if (hasId && id !== null && typeof id !== "string" && !isJsonNumber(id)) {
        return reply(p, null, -32600, `invalid "id": ${pyStr(id)}`);
      }
      const version = payload.jsonrpc;
      if (version !== void 0 && version !== "2.0" && version !== "1.0") {
        return reply(p, id, -32600, '"jsonrpc" is not "2.0"');
      }
      const method = payload.method;
      if (typeof method !== "string") {
        return reply(p, id, -32601, "request method must be a string");
      }
      const params = payload.params ?? [];
      if (!Array.isArray(params) && !isJsonObject(params)) {
        return reply(p, id, -32602, `invalid request arguments: ${pyStr(params)}`);
      }
      if (!hasId) return null;
      stats.requests += 1;
      stats.methods[method] = (stats.methods[method] ?? 0) + 1;
      events.emit("request", method);
      if (!session.svSeen && method !== "server.version") {
        return {
          ...reply(p, id, BAD_REQUEST, "use server.version to identify client"),
          disconnect: true
        };
      }
      try {
        const result = await invoke(opts.methods[method], method, params);
        events.emit("answered", method, params);
        const text = resultMessage(p, id, result);
        if (text.length > sendBytesMax) {
          return reply(
            p,
            id,
            -32600,
            `response too large (over ${pyThousands(sendBytesMax)} bytes`
          );
        }
        return { text, disconnect: false };
      } catch (err) {
        if (err instanceof ElectrumRpcError)
          return { ...reply(p, id, err.code, err.message), disconnect: err.disconnect };
        if (session.signal.aborted) return null;
        return reply(p, id, -32603, "internal server error");
      }
    }
    function invoke(handler, method, params) {
      if (!handler) throw new ElectrumRpcError(-32601, `unknown method "${method}"`);
      const args = bindArgs(method, params, handler.required, handler.optional);
      if (!Array.isArray(args)) throw new ElectrumRpcError(args.code, args.message);
      return handler.run(session, args);
    }
  }
  async function listen() {
    server = createServer3(accept2);
    await new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, host, () => resolve());
    });
    port = server.address().port;
  }
  async function stop() {
    const closed = new Promise((resolve) => server.close(() => resolve()));
    for (const socket of sessions.keys()) socket.destroy();
    await closed;
  }
  await listen();
  return {
    host,
    get port() {
      return port;
    },
    get url() {
      return `tcp://${host}:${port}`;
    },
    stats,
    events,
    announceTip() {
      const text = pyJsonDumps({
        jsonrpc: "2.0",
        method: "blockchain.headers.subscribe",
        params: [opts.tip()]
      });
      for (const [socket, session] of sessions) {
        if (session.subscribedHeaders && !socket.destroyed) socket.write(`${text}
`);
      }
    },
    notifyScripthashes() {
      if (notifyScheduled || !opts.status) return;
      notifyScheduled = true;
      setImmediate(() => {
        notifyScheduled = false;
        notifyChangedStatuses(sessions, opts.status);
      });
    },
    scripthashSubscribers(scripthash2) {
      let count = 0;
      for (const session of sessions.values()) if (session.scripthashes.has(scripthash2)) count += 1;
      return count;
    },
    stop,
    restart: listen,
    async close() {
      if (server.listening) await stop();
      await opts.onClose?.();
    }
  };
}
function notifyChangedStatuses(sessions, status) {
  const now = /* @__PURE__ */ new Map();
  for (const [socket, session] of sessions) {
    for (const [hash4, told] of session.scripthashes) {
      if (!now.has(hash4)) now.set(hash4, status(hash4));
      const current = now.get(hash4);
      if (current === told || socket.destroyed) continue;
      session.scripthashes.set(hash4, current);
      const text = pyJsonDumps({
        jsonrpc: "2.0",
        method: "blockchain.scripthash.subscribe",
        params: [hash4, current]
      });
      socket.write(`${text}
`);
    }
  }
}
function reply(p, id, code, message) {
  return { text: errorMessage(p, id, code, message), disconnect: false };
}
function detect(payload) {
  const first = Array.isArray(payload) ? payload[0] : payload;
  if (!isJsonObject(first)) return "v2";
  if (first.jsonrpc === "1.0" || "result" in first && "error" in first && !("jsonrpc" in first)) {
    return "v1";
  }
  return "v2";
}
function resultMessage(p, id, result) {
  return pyJsonDumps(p === "v1" ? { result, error: null, id } : { jsonrpc: "2.0", result, id });
}
function errorMessage(p, id, code, message) {
  const error = { code, message };
  return pyJsonDumps(p === "v1" ? { result: null, error, id } : { jsonrpc: "2.0", error, id });
}

// src/devnet/electrum/start.ts
function startDevnetElectrum(chain, core, prevouts, opts = {}) {
  const daemon = new Daemon(
    new BitcoinCoreClient({
      url: core.url,
      user: core.user,
      password: core.password,
      timeoutMs: 3e4,
      connections: 4
    })
  );
  let server;
  const stopAnnouncing = chain.onTip(() => server?.announceTip());
  const stopNotifying = chain.onChange(() => server?.notifyScripthashes());
  const scripts = scriptIndex(chain, prevouts);
  const started = startElectrumTcp({
    methods: electrumMethods({
      chain,
      daemon,
      prevouts,
      scripts,
      // Asked only once a client is connected, so the server is listening by then.
      address: () => ({ host: server.host, port: server.port })
    }),
    tip: () => tipHeader(chain),
    status: statusOf(scripts),
    ...opts,
    onClose: () => {
      stopAnnouncing();
      stopNotifying();
      return daemon.close();
    }
  });
  return started.then((s) => {
    server = s;
    return s;
  });
}

// src/devnet/indexer/server.ts
import { timingSafeEqual as timingSafeEqual2 } from "node:crypto";
import { execute as execute2 } from "graphql";

// src/http/body.ts
var BodyTooLarge = class extends Error {
};
async function readBody(req, bytesMax) {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > bytesMax) throw new BodyTooLarge();
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > bytesMax) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

// src/devnet/indexer/bool-exp.ts
function matches(exp, row, relationships = {}) {
  return truth(exp, row, relationships) === true;
}
function and(values) {
  if (values.includes(false)) return false;
  return values.includes(null) ? null : true;
}
function truth(exp, row, relationships) {
  const parts = [];
  for (const [key, value] of Object.entries(exp)) {
    if (value === void 0) continue;
    if (key === "_and") {
      parts.push(and(value.map((e) => truth(e, row, relationships))));
    } else if (key === "_or") {
      const each = value.map((e) => truth(e, row, relationships));
      parts.push(each.includes(true) ? true : each.includes(null) ? null : false);
    } else if (key === "_not") {
      const inner = truth(value, row, relationships);
      parts.push(inner === null ? null : !inner);
    } else if (relationships[key]) {
      parts.push(relationships[key](row).some((r) => matches(value, r)));
    } else {
      parts.push(compare(row[key], value));
    }
  }
  return and(parts);
}
function compare(column, ops) {
  const parts = [];
  for (const [op, operand] of Object.entries(ops)) {
    if (operand === void 0) continue;
    if (op === "_is_null") {
      parts.push(column === null === operand);
      continue;
    }
    if (column === null || operand === null) {
      parts.push(null);
      continue;
    }
    const v = operand;
    switch (op) {
      case "_eq":
        parts.push(column === v);
        break;
      case "_neq":
        parts.push(column !== v);
        break;
      case "_gt":
        parts.push(column > v);
        break;
      case "_gte":
        parts.push(column >= v);
        break;
      case "_lt":
        parts.push(column < v);
        break;
      case "_lte":
        parts.push(column <= v);
        break;
      case "_in":
        parts.push(operand.includes(column));
        break;
      case "_nin":
        parts.push(!operand.includes(column));
        break;
      default:
        throw new Error(`unknown comparison operator ${op}`);
    }
  }
  return and(parts);
}
function ordered(rows, orderBy) {
  const keys = (orderBy ?? []).flatMap(
    (o) => Object.entries(o).filter(([, dir]) => dir !== void 0)
  );
  if (keys.length === 0) return [...rows];
  return [...rows].sort((a, b) => {
    for (const [column, dir] of keys) {
      const c = compareColumn(a[column], b[column], dir);
      if (c !== 0) return c;
    }
    return 0;
  });
}
function compareColumn(a, b, dir) {
  const desc = dir.startsWith("desc");
  const nullsFirst = dir.endsWith("nulls_first") || dir === "desc";
  if (a === null || b === null) {
    if (a === b) return 0;
    return a === null === nullsFirst ? -1 : 1;
  }
  const c = a < b ? -1 : a > b ? 1 : 0;
  return desc ? -c : c;
}
function select(rows, args, relationships = {}) {
  const filtered = args.where ? rows.filter((r) => matches(args.where, r, relationships)) : rows;
  const sorted = ordered(filtered, args.order_by);
  const start = args.offset ?? 0;
  return sorted.slice(start, args.limit === void 0 ? void 0 : start + args.limit);
}

// src/devnet/indexer/tables.ts
var IndexerTables = class {
  constructor(chain) {
    this.chain = chain;
    this.blocks = chain.heights().map((height) => {
      const { block } = chain.byHeight.get(height);
      const row = {
        hash: block.hash,
        height,
        timestamp: block.time,
        transaction_count: block.transactions.length,
        size_bytes: block.size,
        transactions: (args) => select(this.transactionsOf(row), args)
      };
      this.byHash.set(block.hash, row);
      return row;
    });
  }
  chain;
  blocks;
  byHash = /* @__PURE__ */ new Map();
  txRows = /* @__PURE__ */ new Map();
  transactionsOf(row) {
    let rows = this.txRows.get(row.hash);
    if (!rows) {
      rows = this.chain.byHash.get(row.hash).block.transactions.map((tx) => ({
        hash: tx.txid,
        size_bytes: tx.size,
        input_count: tx.inputs.length,
        output_count: tx.outputs.length
      }));
      this.txRows.set(row.hash, rows);
    }
    return rows;
  }
  selectBlocks(args) {
    return select(this.blocks, args, {
      transactions: (row) => this.transactionsOf(row)
    });
  }
  blockByPk(hash4) {
    return this.byHash.get(hash4) ?? null;
  }
};

// src/devnet/indexer/server.ts
var BODY_BYTES_MAX2 = 1024 * 1024;
async function startDevnetIndexer(opts) {
  const schema = indexerSchema();
  const tables = new IndexerTables(opts.chain);
  const rootValue = {
    block: (args) => tables.selectBlocks(args),
    block_by_pk: (args) => tables.blockByPk(args.hash)
  };
  const stats = { httpRequests: 0, queries: 0, rejected: 0 };
  const expected = Buffer.from(opts.secret);
  const gate = new Gate();
  async function serve(req, res) {
    stats.httpRequests += 1;
    if (new URL(req.url ?? "/", "http://indexer").pathname !== "/v1/graphql") {
      return reply2(res, 404, { path: "$", error: "resource does not exist", code: "not-found" });
    }
    if (req.method !== "POST") {
      return reply2(res, 405, {
        path: "$",
        error: "method not allowed",
        code: "method-not-allowed"
      });
    }
    const given = Buffer.from(String(req.headers["x-hasura-admin-secret"] ?? ""));
    if (given.length !== expected.length || !timingSafeEqual2(given, expected)) {
      stats.rejected += 1;
      return errors(
        res,
        hasuraError("invalid x-hasura-admin-secret/x-hasura-access-key", "$", "access-denied")
      );
    }
    let body;
    try {
      body = await readBody(req, BODY_BYTES_MAX2);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) throw err;
      stats.rejected += 1;
      return reply2(res, 413, {
        path: "$",
        error: "request body too large",
        code: "payload-too-large"
      });
    }
    await gate.passed();
    const parsed2 = parseGraphRequest(body);
    if (!parsed2.ok) {
      stats.rejected += 1;
      return errors(res, parsed2.error);
    }
    const checked2 = checkGraphQuery(schema, parsed2.request);
    if (!checked2.ok) {
      stats.rejected += 1;
      return errors(res, checked2.error);
    }
    const { document, operation } = checked2.query;
    const result = await execute2({
      schema,
      document,
      rootValue,
      variableValues: parsed2.request.variables,
      ...operation.name ? { operationName: operation.name.value } : {}
    });
    if (result.errors?.length) {
      stats.rejected += 1;
      return errors(res, hasuraError(result.errors[0].message, "$", "unexpected"));
    }
    stats.queries += 1;
    return reply2(res, 200, { data: result.data });
  }
  const { server, port, close } = await listenDevnet(serve, {
    host: opts.host,
    port: opts.port,
    keepAliveTimeoutMs: 3e4
  });
  return {
    server,
    url: `http://127.0.0.1:${port}/v1/graphql`,
    secret: opts.secret,
    stats,
    hold: () => gate.hold(),
    close
  };
}
function errors(res, error) {
  reply2(res, 200, { errors: [error] });
}
function reply2(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
  res.end(text);
}

// src/devnet/prevouts.ts
var PREVOUTS_FILE = projectPath("data", "chain", "blocks", "277647.prevouts.json");
var MEMPOOL_PREVOUTS_FILE = projectPath("data", "chain", "txs", "mempool.prevouts.json");
function chainPrevouts(chain) {
  const shipped = chain.network === "mainnet" ? new Map([...loadPrevoutsFile(PREVOUTS_FILE), ...loadPrevoutsFile(MEMPOOL_PREVOUTS_FILE)]) : /* @__PURE__ */ new Map();
  return (txid, vout) => {
    const known = shipped.get(`${txid}:${vout}`);
    if (known) return known;
    const at = chain.txIndex.get(txid);
    if (!at) return void 0;
    const tx = at.block.block.transactions[at.index];
    const output = tx.outputs[vout];
    if (!output) return void 0;
    return {
      valueSats: output.value,
      scriptPubKey: output.scriptPubKey,
      height: at.block.height,
      coinbase: tx.isCoinbase
    };
  };
}

// src/devnet/devnet.ts
async function startDevnet(networks, opts = {}) {
  const cores = /* @__PURE__ */ new Map();
  const indexers = /* @__PURE__ */ new Map();
  const electrum = /* @__PURE__ */ new Map();
  const producers = /* @__PURE__ */ new Map();
  for (const network of networks) {
    const chain = opts.chain?.network === network ? opts.chain : newDevnetChain(network);
    const prevouts = chainPrevouts(chain);
    indexers.set(
      network,
      await startDevnetIndexer({ chain, secret: randomBytes2(16).toString("hex") })
    );
    const core = await startCoreHttp({
      methods: coreMethods(chain, network, prevouts),
      user: "devnet",
      password: randomBytes2(16).toString("hex")
    });
    cores.set(network, core);
    electrum.set(network, await startDevnetElectrum(chain, core, prevouts, opts.electrum));
    producers.set(network, new BlockProducer(chain, prevouts));
  }
  const timed = [...new Set(opts.blockNetworks ?? ["regtest"])].flatMap(
    (n2) => producers.get(n2) ?? []
  );
  const timer = startBlockTimer(timed, opts.blockIntervalMs ?? 0);
  return {
    cores,
    indexers,
    electrum,
    producers,
    async close() {
      timer.stop();
      await Promise.all([...electrum.values(), ...indexers.values()].map((e) => e.close()));
      await Promise.all([...cores.values()].map((c) => c.close()));
    }
  };
}

// src/main.ts
async function main() {
  const file = process.env.BLOCKGATE_CONFIG;
  const config = loadConfig(file, file ? {} : { devnet: { blockIntervalMs: 1e4 } });
  const devNets = devnetNetworks(config);
  const store = openStore(config, { databaseUrl: process.env.DATABASE_URL });
  store.catch(() => {
  });
  const devnet = devNets.length > 0 ? await startDevnet(devNets, config.devnet) : null;
  const gateway = await startGateway(config, {
    store,
    databaseUrl: process.env.DATABASE_URL,
    redisUrl: process.env.REDIS_URL,
    nodeUpstreams: resolveNodeUpstreams(config, devnet),
    graphUpstreams: resolveGraphUpstreams(config, devnet),
    electrumUpstreams: resolveElectrumUpstreams(config, devnet)
  });
  if (devnet) attachDevnet(gateway.app, devnet.producers);
  const where = `store: ${process.env.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : `PGlite in ${config.database.pgliteDir}`}${devnet ? "; upstreams: devnet" : ""}`;
  const demo = config.demo.enabled ? await prepareDemo(gateway.app.db, config.demo.credits) : null;
  process.stdout.write(startupBanner(config, gateway.url, where, demo));
  const stop = () => {
    gateway.close().then(() => devnet?.close()).then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`blockgate: shutdown failed: ${err.message}
`);
        process.exit(1);
      }
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
main().catch((err) => {
  process.stderr.write(
    err instanceof ConfigError ? `${err.message}
` : `blockgate failed to start: ${err.message}
`
  );
  process.exit(1);
});
