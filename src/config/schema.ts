import { z } from "zod";
import { DEFAULT_PRICES, type PricedMethod } from "../billing/pricing/price-list.ts";
import { parseRange, RANGE_HINT } from "../util/address-range.ts";

/** Networks the gateway may offer; each route's network segment must be one of the configured ones. */
export const NETWORK_NAMES = ["mainnet", "testnet", "testnet4", "signet", "regtest"] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];

const networkName = z.enum(NETWORK_NAMES);

/**
 * Calls of concurrent requests combined into one JSON-RPC batch to a node, at most (see
 * src/upstreams/bitcoin-core/combine.ts for why 16). devnet's entries use it too.
 */
export const CORE_COALESCE_CALLS_MAX_DEFAULT = 16;

/** Bitcoin Core upstream: basic auth, a cookie file, or none (devnet fills its own in). */
const bitcoinCoreUpstream = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  user: z.string().min(1).optional(),
  password: z.string().optional(),
  /** Name of an environment variable holding the password, to keep secrets out of the file. */
  passwordEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/)
    .optional(),
  /** `<datadir>/.cookie`, read at start and re-read after a 401 (Core rewrites it on restart). */
  cookieFile: z.string().min(1).optional(),
  timeoutMs: z.number().int().positive().max(300_000).default(10_000),
  connections: z.number().int().positive().max(256).default(16),
  /**
   * The calls of concurrent requests that arrive within one turn of the event loop go to the
   * node as one JSON-RPC batch of at most this many calls (a request's calls are never split). The network's pool combines before
   * failover, so it keeps to the smallest value among its node upstreams; 0 turns combining off.
   */
  coalesceCallsMax: z
    .number()
    .int()
    .nonnegative()
    .max(1_000)
    .default(CORE_COALESCE_CALLS_MAX_DEFAULT),
});
export type BitcoinCoreUpstreamConfig = z.infer<typeof bitcoinCoreUpstream>;

/**
 * Where a network's verified chain starts when not at genesis: a block the operator trusts (as
 * Core prints it: getblockheader's `height`, `hash` and `chainwork`). The headers of its
 * difficulty period below it are read from the upstreams and must link up to `hash`.
 */
const checkpoint = z.strictObject({
  height: z.number().int().positive(),
  hash: z.string().regex(/^[0-9a-f]{64}$/, "expected 64 lowercase hex digits"),
  chainwork: z.string().regex(/^[0-9a-f]{1,64}$/, "expected hex, as Core prints chainwork"),
});

/**
 * One network's verification. `enabled` defaults to true, except on mainnet without a checkpoint:
 * following mainnet from genesis means holding some 950,000 headers.
 */
const networkVerification = z.strictObject({
  enabled: z.boolean().optional(),
  checkpoint: checkpoint.optional(),
});

/** `"devnet"` means: start devnet's in-process server for this network and use it. */
const nodeUpstream = z.union([z.literal("devnet"), bitcoinCoreUpstream]);

/** A Hasura-style indexer: its GraphQL endpoint and the admin secret, read from the environment. */
const indexerUpstream = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  /** Name of an environment variable holding `x-hasura-admin-secret`. */
  adminSecretEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/)
    .optional(),
  timeoutMs: z.number().int().positive().max(300_000).default(10_000),
  connections: z.number().int().positive().max(256).default(16),
});

/** `"devnet"`: devnet's in-process indexer for this network. */
const graphUpstream = z.union([z.literal("devnet"), indexerUpstream]);

/**
 * Electrum server upstream: `tcp://host:port` in plain text, `ssl://` or `tls://` over TLS (Electrum
 * servers often use self-signed certificates: name a `caFile`, or turn `tlsVerify` off).
 */
const electrumUpstream = z.strictObject({
  url: z
    .string()
    .regex(/^(tcp|ssl|tls):\/\/[^/:]+:\d+\/?$/, "expected tcp://, ssl:// or tls://host:port"),
  /** Per request, queueing on a connection included; a late answer is dropped. */
  timeoutMs: z.number().int().positive().max(300_000).default(10_000),
  connectTimeoutMs: z.number().int().positive().max(60_000).default(5_000),
  /** Persistent connections kept open to this server; requests are pipelined on them by id. */
  connections: z.number().int().positive().max(32).default(2),
  /** Requests awaiting an answer on one connection; more fail fast (the pool tries another server). */
  inFlightMax: z.number().int().positive().max(10_000).default(100),
  /** One answer line; ElectrumX sends at most 8,100,000 B, Fulcrum buffers 8,000,000 B. */
  lineBytesMax: z
    .number()
    .int()
    .positive()
    .max(256 * 1024 * 1024)
    .default(16 * 1024 * 1024),
  /** server.ping after this much silence: servers drop clients idle for ~10 minutes. */
  pingIntervalMs: z.number().int().positive().max(600_000).default(60_000),
  /** Reconnect backoff doubles from 250 ms up to this. */
  reconnectMaxMs: z.number().int().positive().max(600_000).default(10_000),
  tlsVerify: z.boolean().default(true),
  caFile: z.string().min(1).optional(),
});
export type ElectrumUpstreamConfig = z.infer<typeof electrumUpstream>;
const electrumUpstreamEntry = z.union([z.literal("devnet"), electrumUpstream]);

/**
 * An Esplora server (electrs' REST API, as blockstream.info and mempool.space serve it): the
 * API's base URL, the one a client is given (`https://blockstream.info/api`).
 */
const esploraUpstream = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  timeoutMs: z.number().int().positive().max(300_000).default(10_000),
  connections: z.number().int().positive().max(256).default(16),
});
export type EsploraUpstreamConfig = z.infer<typeof esploraUpstream>;
/** `"devnet"`: devnet's in-process Esplora for this network. */
const esploraUpstreamEntry = z.union([z.literal("devnet"), esploraUpstream]);

const perNetwork = <T extends z.ZodType>(item: T) =>
  z.partialRecord(networkName, z.array(item).min(1));

/**
 * A table with a `default` and entries under keys `keyOk` accepts (a network, `<type>.<field>`),
 * each key checked so that a typo fails at boot with its path rather than going unused.
 */
const keyedTable = (
  value: z.ZodNumber,
  keyOk: (key: string) => boolean,
  expected: (key: string) => string,
) =>
  z
    .strictObject({ default: value })
    .catchall(value)
    .superRefine((table, ctx) => {
      for (const key of Object.keys(table)) {
        if (key !== "default" && !keyOk(key)) {
          ctx.addIssue({ code: "custom", path: [key], message: expected(key) });
        }
      }
    });

const isNetwork = (key: string) => (NETWORK_NAMES as readonly string[]).includes(key);
const unknownNetwork = (key: string) => `unknown network "${key}"`;

/** A price per network: `default` applies to every network not named. */
const priceTable = keyedTable(z.number().int().nonnegative(), isNetwork, unknownNetwork);

/** Every JSON-RPC method's price table, defaulting to src/billing/pricing/price-list.ts. */
const methodPrices = Object.fromEntries(
  Object.entries(DEFAULT_PRICES).map(([method, prices]) => [
    method,
    priceTable.default({ ...prices }),
  ]),
) as { [M in PricedMethod]: z.ZodDefault<typeof priceTable> };

/** CC per complexity point per network: `default` applies to every network not named. */
const rateTable = keyedTable(z.number().nonnegative().max(1_000_000), isNetwork, unknownNetwork);

/**
 * Per-field complexity weights, keyed `<type>.<field>` as the indexer schema names them
 * (`query_root.block`, `block.transactions`, `block.hash`); `default` weighs every other field.
 */
const weightTable = keyedTable(
  z.number().int().nonnegative().max(1_000),
  (key) => /^[_A-Za-z][_0-9A-Za-z]*\.[_A-Za-z][_0-9A-Za-z]*$/.test(key),
  () => "expected <type>.<field>",
);

export const DEFAULT_GRAPH_WEIGHTS = {
  default: 1,
  // A select on the block table, and the join from a block to its transactions: more work per
  // row than reading a column of a row already found.
  "query_root.block": 2,
  "block.transactions": 2,
} as const;

/** A request rate with a burst, for one scope of a plan. */
const rateRule = z.strictObject({
  requestsPerSecond: z.number().int().positive().max(1_000_000),
  /** Requests allowed above the rate, once per `limits.burstWindowSeconds`. */
  burst: z.number().int().nonnegative().max(1_000_000).default(0),
});

/** A plan: every limit optional (absent: none). */
const plan = z.strictObject({
  /** Per token. */
  token: rateRule.optional(),
  /** Per account, all its tokens together. */
  account: rateRule.optional(),
  /** Calls in flight per account. */
  concurrentCalls: z.number().int().positive().max(100_000).optional(),
  /** Credits an account may be charged per UTC day. */
  creditsPerDay: z.number().int().positive().optional(),
  /** Credits an account may be charged per billing cycle (`billing.cycle`). */
  creditsPerCycle: z.number().int().positive().optional(),
});

/** One price of a fixed size: `credits` CC for `sats` satoshis. */
const topupPackage = z.strictObject({
  credits: z.number().int().positive().max(1e12),
  sats: z.number().int().positive().max(21e14),
});

/** Confirmations a top-up payment needs before it is credited. */
const confirmationCount = z.number().int().min(1).max(1_000);

/**
 * Top-ups: invoices paid in bitcoin to fresh addresses of a watch-only descriptor, credited once
 * their payment is `confirmations` deep (decision 0050).
 */
const topups = z.strictObject({
  /** The network invoices are paid on. */
  network: networkName.default("mainnet"),
  /**
   * A ranged watch-only output descriptor (xpub/tpub, ending in `*`); with a multipath step
   * (`<0;1>`) its first branch is used. A private key is refused.
   */
  descriptor: z.string().min(1).max(4_096),
  /** The price: satoshis per 1,000 CC, rounded up per invoice. */
  satsPer1000Credits: z.number().int().positive().max(21e14).optional(),
  /** Fixed sizes, each at its own price; an amount that is one of them costs its price. */
  packages: z.array(topupPackage).max(100).default([]),
  /** No invoice for fewer satoshis (dust and fees make small payments cost more than they buy). */
  minimumSats: z.number().int().positive().max(21e14).default(10_000),
  /** How long an invoice's price holds: a payment first seen later is not credited by itself. */
  invoiceTtlMinutes: z.number().int().positive().max(43_200).default(60),
  /** One count, or one per network (the top-up's network's, else 1 for a test network, 3 for mainnet). */
  confirmations: z
    .union([confirmationCount, z.partialRecord(networkName, confirmationCount)])
    .default({ mainnet: 3 }),
  /** Addresses of expired invoices stay watched this long, so late payments are seen. */
  lateWatchMinutes: z.number().int().nonnegative().max(525_600).default(10_080),
  /** The sweep of watched invoices beside their Electrum subscriptions and chain events. */
  sweepMs: z.number().int().positive().max(3_600_000).default(30_000),
  /** Invoices one account may hold open at once. */
  openPerAccountMax: z.number().int().positive().max(10_000).default(20),
});
export type TopupsConfig = z.infer<typeof topups>;

export const configSchema = z.strictObject({
  server: z
    .strictObject({
      host: z.string().default("127.0.0.1"),
      port: z.number().int().min(0).max(65535).default(8545),
      bodyBytesMax: z
        .number()
        .int()
        .positive()
        .max(64 * 1024 * 1024)
        .default(1024 * 1024),
      /**
       * One request's answer, at most: what its upstreams send back for it, and what the gateway
       * renders for it. A request the gateway can tell is over it (the blocks it asks for are
       * known) is refused before any upstream call, not charged; one found over it as the
       * answer comes is cut off there (RESPONSE_TOO_LARGE) and charged as answered.
       */
      responseBytesMax: z
        .number()
        .int()
        .min(64 * 1024)
        .max(1024 * 1024 * 1024)
        .default(64 * 1024 * 1024),
      /** Requests in one JSON-RPC batch; each is charged, so this also caps one request's cost. */
      batchItemsMax: z.number().int().positive().max(10_000).default(100),
      /**
       * Arrays and objects inside one another in a request body; deeper is refused as unreadable
       * JSON before any parser runs (Bitcoin Core's own bound is 512).
       */
      jsonDepthMax: z.number().int().positive().max(10_000).default(512),
      /** Slow clients: a request's headers must arrive within this (node's headersTimeout). */
      headersTimeoutMs: z.number().int().positive().max(600_000).default(10_000),
      /** ... and the whole request, headers and body, within this (node's requestTimeout). */
      requestTimeoutMs: z.number().int().positive().max(3_600_000).default(60_000),
      /** An idle keep-alive connection is closed after this. */
      keepAliveTimeoutMs: z.number().int().positive().max(600_000).default(5_000),
      /**
       * Open connections from one client address; the next is answered 429 RATE_LIMITED and
       * closed. 0: no limit (behind a proxy every client shares its address: limit there). The
       * default leaves room for a wallet backend with hundreds of calls in flight on one address.
       */
      connectionsPerAddressMax: z.number().int().nonnegative().max(1_000_000).default(1_024),
      /**
       * Failed authentications from one client address, per `authFailureWindowMs`, answered at
       * once; each further one waits `authDelayBaseMs`, doubling up to `authDelayMaxMs` (Bitcoin
       * Core waits 250 ms after a wrong RPC password), and past that the address is locked out
       * until its window ends: a token this process has not seen recently gets 429 RATE_LIMITED at
       * once, without a database lookup. 0 for authDelayBaseMs: no delay and no lock-out.
       */
      authFailuresFree: z.number().int().nonnegative().max(1_000_000).default(20),
      authDelayBaseMs: z.number().int().nonnegative().max(60_000).default(250),
      authDelayMaxMs: z.number().int().nonnegative().max(60_000).default(4_000),
      authFailureWindowMs: z.number().int().positive().max(3_600_000).default(60_000),
      /**
       * On SIGTERM/SIGINT, how long calls in flight may take to finish (and settle) before the
       * rest are cut; a cut call is never charged, its hold is left to the hold sweeper.
       */
      drainTimeoutMs: z.number().int().nonnegative().max(300_000).default(10_000),
      /**
       * HTTPS beside the plain listener, on the same routes (host: server.host), for clients that
       * only speak HTTPS to a host name. Absent: plain HTTP only (TLS ended by a proxy in front).
       */
      tls: z
        .strictObject({
          /** 0: any free port (tests). */
          port: z.number().int().min(0).max(65535).default(8443),
          /** PEM certificate (chain) for the names clients use. */
          certFile: z.string().min(1),
          keyFile: z.string().min(1),
        })
        .optional(),
      /**
       * Worker processes `blockgate start` forks to share its ports (docs/operators/workers.md):
       * a number, or `auto` for one per core; 0 serves in the process started. Above 1 needs
       * PostgreSQL and upstreams outside the gateway. BLOCKGATE_WORKERS (`--workers`) wins.
       */
      workers: z.union([z.literal("auto"), z.number().int().nonnegative().max(1_024)]).default(0),
    })
    .prefault({}),
  /** /readyz: how long its checks may take and how long their results are reused. */
  readiness: z
    .strictObject({
      /** Bound on the database query and on each upstream probe. */
      timeoutMs: z.number().int().positive().max(10_000).default(1_000),
      /**
       * A result (a probe, the database check, or a real call's outcome) is reused this long, so
       * however often /readyz is asked, each upstream sees at most one probe per period.
       */
      cacheMs: z.number().int().min(100).max(60_000).default(2_000),
    })
    .prefault({}),
  /**
   * Upstream resilience, for every pool of several upstreams (docs/operators/operations.md, "Upstream resilience"): a
   * circuit breaker per upstream, reads retried on another upstream after a failure or a timeout,
   * and hedged (sent to a second upstream too) when the first is slow. Calls with effects are
   * never retried after they may have reached an upstream, nor hedged.
   */
  failover: z
    .strictObject({
      /**
       * One attempt of a read, per backend, when the pool has another upstream to try: past it the
       * attempt counts as a timeout and the read goes to another upstream. Shorter than the
       * upstream's own timeoutMs (the whole call's budget) so there is time left to try another.
       */
      attemptTimeoutMs: z
        .strictObject({
          node: z.number().int().positive().max(300_000).default(2_000),
          electrum: z.number().int().positive().max(300_000).default(2_000),
          graph: z.number().int().positive().max(300_000).default(5_000),
          esplora: z.number().int().positive().max(300_000).default(2_000),
        })
        .prefault({}),
      /** Attempts of one read, hedges and retries included, each on a different upstream. */
      attemptsMax: z.number().int().min(1).max(10).default(3),
      hedge: z
        .strictObject({
          /** false: a read waits for its attempt's answer or timeout before another is tried. */
          enabled: z.boolean().default(true),
          /**
           * A read not answered after this quantile of the pool's recent answer times (clamped to
           * minMs – maxMs) is also sent to another upstream; the first answer wins.
           */
          quantile: z.number().min(0.5).max(0.999).default(0.95),
          minMs: z.number().int().nonnegative().max(60_000).default(50),
          /** Also the delay used until the pool has seen 20 answers. */
          maxMs: z.number().int().positive().max(60_000).default(500),
        })
        .prefault({}),
      breaker: z
        .strictObject({
          /** Consecutive failures (refused, dropped, timed out, outpaced by a hedge) that open it. */
          failuresMax: z.number().int().positive().max(1_000).default(5),
          /** ... or this share of failures among the last windowCalls outcomes. */
          failureRate: z.number().min(0.01).max(1).default(0.5),
          windowCalls: z.number().int().min(2).max(10_000).default(20),
          /** Open this long (no calls) before one trial call may pass (half-open). */
          openMs: z.number().int().positive().max(600_000).default(5_000),
        })
        .prefault({}),
      /**
       * Each upstream without a recent answer, or with its breaker not closed, is probed this
       * often in the background; a probe that answers closes its breaker. 0: no background probes.
       */
      healthCheckIntervalMs: z.number().int().nonnegative().max(600_000).default(2_000),
    })
    .prefault({}),
  /**
   * Operator credentials for /metrics and /admin/*: SHA-256 digests (hex) of `bgo_` bearer tokens
   * (`blockgate operator-token` makes one); the tokens themselves are never stored.
   */
  operator: z
    .strictObject({
      tokenSha256: z
        .array(
          z
            .string()
            .regex(/^[0-9a-fA-F]{64}$/, "expected a SHA-256 digest: 64 hex digits")
            .transform((hex) => hex.toLowerCase()),
        )
        .max(64)
        .default([]),
    })
    .prefault({}),
  /** Literal path segments for each backend kind. */
  backends: z
    .strictObject({
      gateway: z
        .string()
        .regex(/^[a-z0-9-]+$/)
        .default("gateway"),
      node: z
        .string()
        .regex(/^[a-z0-9-]+$/)
        .default("node"),
      electrum: z
        .string()
        .regex(/^[a-z0-9-]+$/)
        .default("electrum"),
      graph: z
        .string()
        .regex(/^[a-z0-9-]+$/)
        .default("graph"),
      esplora: z
        .string()
        .regex(/^[a-z0-9-]+$/)
        .default("esplora"),
    })
    .prefault({}),
  networks: z
    .array(networkName)
    .min(1)
    .default([...NETWORK_NAMES]),
  database: z
    .strictObject({
      /** Embedded PGlite folder, used when DATABASE_URL is not set. `memory://` keeps it in memory. */
      pgliteDir: z.string().default(".blockgate/db"),
      poolSize: z.number().int().positive().max(100).default(10),
      /**
       * Whether a start applies the migrations this version carries. false: it only checks the
       * schema, refusing one older than it needs (run `blockgate migrate` first) or one a newer
       * version changed beyond expand migrations (docs/operators/migrations.md).
       */
      migrate: z.boolean().default(true),
    })
    .prefault({}),
  upstreams: z
    .strictObject({
      /** Absent: devnet's Bitcoin Core for every configured network (filled in by parseConfig). */
      node: perNetwork(nodeUpstream).optional(),
      /** Absent: devnet's indexer for every configured network (filled in by parseConfig). */
      graph: perNetwork(graphUpstream).optional(),
      /** Absent: devnet for every configured network (filled in by parseConfig). */
      electrum: perNetwork(electrumUpstreamEntry).optional(),
      /** Absent: devnet's Esplora for every configured network (filled in by parseConfig). */
      esplora: perNetwork(esploraUpstreamEntry).optional(),
    })
    .prefault({}),
  pricing: z
    .strictObject({
      ...methodPrices,
      /** Each event a subscription delivers (charged as it is delivered). */
      events: z
        .strictObject({
          newBlock: priceTable.default({ default: 5, mainnet: 10 }),
          transactionConfirmations: priceTable.default({ default: 5, mainnet: 10 }),
          mempoolFees: priceTable.default({ default: 5, mainnet: 10 }),
          /** A block's activity of one address: the block's scan is shared by every subscriber. */
          addressActivity: priceTable.default({ default: 5, mainnet: 10 }),
          /** A warning that the account's balance went under its low-balance threshold (webhook). */
          creditsLow: priceTable.default({ default: 0 }),
          /** An Electrum header notification pushed on a socket session (WebSocket or TLS). */
          "blockchain.headers.subscribe": priceTable.default({ default: 5, mainnet: 10 }),
          /** An Electrum script-hash notification (its status changed) pushed on a socket session. */
          "blockchain.scripthash.subscribe": priceTable.default({ default: 5, mainnet: 10 }),
        })
        .prefault({}),
      /** A graph query costs `base` + ceil(complexity × `perPoint`): half price off mainnet. */
      graph: z
        .strictObject({
          base: priceTable.default({ default: 150, mainnet: 300 }),
          perPoint: rateTable.default({ default: 0.5, mainnet: 1 }),
        })
        .prefault({}),
    })
    .prefault({}),
  /** The graph route: complexity weights and the limits a query must keep to. */
  graph: z
    .strictObject({
      weights: weightTable.default({ ...DEFAULT_GRAPH_WEIGHTS }),
      /** Rows a list is priced at when neither `limit` nor a height range bounds it. */
      listSizeDefault: z.number().int().positive().max(100_000).default(100),
      /** Largest `limit` accepted; a larger one is refused, never cut. */
      pageSizeMax: z.number().int().positive().max(100_000).default(1_000),
      /** Deepest field (root fields are depth 1; the schema's deepest field is at 3). */
      depthMax: z.number().int().positive().max(50).default(5),
      /** Aliased fields in one query: aliases fan one request out into many selects. */
      aliasesMax: z.number().int().nonnegative().max(1_000).default(10),
      /**
       * Most lexical tokens in one document, counted while parsing and stopped past it: a body
       * within server.bodyBytesMax can hold some 260,000 (an `_in` list of heights), each
       * costing its AST some 300 bytes and the parser time, before any other limit looks.
       */
      tokensMax: z.number().int().positive().max(1_000_000).default(10_000),
      /** Highest complexity accepted (the audit log keeps it as a 32-bit integer). */
      complexityMax: z.number().int().positive().max(2_000_000_000).default(10_000_000),
      /** The indexer's whole answer, failover included; past it the query is not charged. */
      queryTimeoutMs: z.number().int().positive().max(300_000).default(15_000),
    })
    .prefault({}),
  /** Chain events: each network's best chain followed through its full node (src/events/). */
  events: z
    .strictObject({
      /** How often the leading process asks each node for its tip; 0 follows no chain. */
      pollMs: z.number().int().nonnegative().max(600_000).default(1_000),
      /** Heights of each chain remembered, so a reorganisation up to this deep is announced. */
      reorgDepthMax: z.number().int().positive().max(10_000).default(100),
      /** How often a process that does not lead tries to take the lead over. */
      leaderRetryMs: z.number().int().positive().max(600_000).default(2_000),
      /**
       * REDIS_URL set: events fan out on the Redis channel `<this><database>.<schema>`; deployments
       * sharing one Redis and databases of the same name need prefixes of their own.
       */
      redisChannelPrefix: z
        .string()
        .regex(/^[A-Za-z0-9:._-]{0,64}$/)
        .default("blockgate:chain_event:"),
      /** A PUBLISH to Redis slower than this fails: the event goes through NOTIFY instead. */
      redisTimeoutMs: z.number().int().positive().max(10_000).default(200),
    })
    .prefault({}),
  /**
   * The verified header chain: each network's headers followed from every node and Electrum
   * server, checked as Core checks them, and the upstreams compared against it (src/verify/chain/).
   */
  verification: z
    .strictObject({
      /** false: no header chain is kept and no upstream is compared. */
      enabled: z.boolean().default(true),
      /** How often each upstream's tip is read (Electrum servers are also heard at each new tip). */
      pollMs: z.number().int().positive().max(600_000).default(1_000),
      /**
       * An upstream whose chain has less work than the verified best by more than this many
       * blocks' work (at the tip's difficulty) is inconsistent: a block or two in flight is not.
       */
      lagBlocksMax: z.number().int().nonnegative().max(1_000).default(3),
      /** Headers asked of an upstream in one call (Electrum servers give at most 2016). */
      batchHeadersMax: z.number().int().positive().max(2_016).default(2_000),
      /** Per network: where its chain starts, or off. */
      networks: z.partialRecord(networkName, networkVerification).default({}),
    })
    .prefault({}),
  /**
   * Webhooks: an account's endpoints told of chain events by signed HTTP POSTs (Standard
   * Webhooks), queued in the database (pg-boss) and retried with growing delays (src/webhooks/).
   */
  webhooks: z
    .strictObject({
      /** Endpoints one account may hold. */
      endpointsPerAccountMax: z.number().int().positive().max(10_000).default(20),
      /**
       * Addresses a target may resolve to although private, loopback, link-local or otherwise
       * not public (CIDR blocks, e.g. "127.0.0.1/32"): by default none, so webhooks cannot reach
       * the operator's own network.
       */
      allowTargets: z
        .array(z.string().refine((v) => parseRange(v) !== null, { message: RANGE_HINT }))
        .max(100)
        .default([]),
      /** One delivery attempt: connecting, sending and the endpoint's answer. */
      timeoutMs: z.number().int().positive().max(60_000).default(10_000),
      /** The delay before the first retry; each later one doubles it, up to `retryDelayMaxMs`. */
      retryDelayMs: z.number().int().positive().max(3_600_000).default(10_000),
      retryDelayMaxMs: z
        .number()
        .int()
        .positive()
        .max(86_400_000)
        .default(3 * 3_600_000),
      /** How long a message is retried from its first attempt, then marked failed. */
      retryWindowMs: z
        .number()
        .int()
        .positive()
        .max(7 * 86_400_000)
        .default(86_400_000),
      /** How often each process's worker looks for deliveries due (pg-boss: at least 500 ms). */
      pollMs: z.number().int().min(500).max(60_000).default(1_000),
      /** Deliveries one process sends at once. */
      concurrency: z.number().int().positive().max(1_000).default(10),
    })
    .prefault({}),
  /** Electrum sessions: WebSocket (`ws://…/electrum/<network>/<token>`) and the TLS listener. */
  electrum: z
    .strictObject({
      /**
       * Script hashes one session may subscribe to; the next is refused as ElectrumX refuses past
       * MAX_SESSION_SUBS (code 1). Each is held on the process's upstream subscription
       * (upstreamSubscriptionsMax), or else read again at every chain event, so this bounds a
       * session's upstream work.
       */
      subscriptionsMax: z.number().int().positive().max(100_000).default(1_000),
      /**
       * Script hashes one process holds subscribed on its own connection to a network's Electrum
       * server, shared by every session that subscribed to them (notified as soon as the mempool
       * or a block changes them). ElectrumX refuses a session past MAX_SESSION_SUBS (50,000 by
       * default); past this cap a session's script hash is read again at each chain event instead.
       */
      upstreamSubscriptionsMax: z.number().int().positive().max(1_000_000).default(10_000),
      /**
       * What `server.donation_address` answers on each network (ElectrumX's DONATION_ADDRESS);
       * a network left out answers "", as ElectrumX does without one.
       */
      donationAddress: z.partialRecord(networkName, z.string().max(100)).default({}),
      /**
       * Newline-delimited JSON-RPC over TLS for stock wallets, which cannot put a token in a path:
       * the token is the first label of the TLS server name (SNI), `<token>.<network>.<suffix>`,
       * or `<token>.<suffix>` for `network`. Absent: no listener.
       */
      tls: z
        .strictObject({
          host: z.string().default("127.0.0.1"),
          /** 0: any free port (tests). Electrum's usual TLS port is 50002. */
          port: z.number().int().min(0).max(65535).default(50002),
          /** PEM certificate (chain) covering `*.<network>.<suffix>` (and `*.<suffix>`). */
          certFile: z.string().min(1),
          keyFile: z.string().min(1),
          /** The names' common part, e.g. `electrum.example.com`. */
          serverNameSuffix: z
            .string()
            .regex(/^[a-z0-9-]+(\.[a-z0-9-]+)*$/, "expected a lowercase DNS name"),
          /** The network of names without a network label (`<token>.<suffix>`); absent: none. */
          network: networkName.optional(),
        })
        .optional(),
    })
    .prefault({}),
  /** The unified GraphQL API. */
  graphql: z
    .strictObject({
      /** Transactions per JSON-RPC batch to the full node: N lookups make ceil(N / batchSize) round trips. */
      batchSize: z.number().int().positive().max(1000).default(50),
      /**
       * Most items one list may hold, on every route, written or given as a variable: a list
       * argument of this API or the graph route (`txids`, an `_in` of heights, the items of lists
       * inside a list counted as its own) and a JSON-RPC list param (gettxoutproof's txids).
       */
      listItemsMax: z.number().int().positive().max(10_000).default(500),
      depthMax: z.number().int().positive().max(100).default(12),
      /**
       * Most addresses one descriptor scan may derive and look up: what a scan reserves, and
       * where it stops with LIMIT_EXCEEDED (a gapLimit over it is refused before anything runs).
       * Above listItemsMax, every scan is refused: its look-ups count as items of the request.
       */
      descriptorAddressesMax: z.number().int().positive().max(10_000).default(200),
      aliasesMax: z.number().int().positive().max(1000).default(30),
      tokensMax: z.number().int().positive().max(100_000).default(5000),
      /**
       * Parsed documents kept by their text, in bytes (estimated: text and AST); a document over
       * 1/64 of it is parsed each time. 0: every request is parsed and validated anew.
       */
      documentCacheBytesMax: z
        .number()
        .int()
        .nonnegative()
        .max(1024 * 1024 * 1024)
        .default(32 * 1024 * 1024),
      /**
       * Queries asking the indexer alone (its columns under `block`/`block_by_pk`), or
       * transactions by txid alone, planned to be answered without Yoga once one has executed:
       * plans kept, by document shape (the text but for its literal values). 0: every request is
       * executed by Yoga.
       */
      queryPlansMax: z.number().int().nonnegative().max(100_000).default(512),
      /**
       * How long after a planned query's indexer trip ends an identical planned query may still
       * take its answer, at most: never longer than the trip itself took, never past a new tip
       * (decision 0058). 0: only trips in flight are shared.
       */
      sharedAfterTripMs: z.number().int().nonnegative().max(1_000).default(10),
    })
    .prefault({}),
  /** Billing cycles, anchored at each account's creation: monthly by default. */
  billing: z
    .strictObject({
      /** Credits bought with bitcoin (src/billing/topups/); absent: no top-ups. */
      topups: topups.optional(),
      cycle: z
        .strictObject({
          unit: z.enum(["month", "day"]).default("month"),
          length: z.number().int().positive().max(366).default(1),
        })
        .prefault({}),
    })
    .prefault({}),
  dashboard: z
    .strictObject({
      /** How long a dashboard sign-in lasts. */
      sessionTtlMs: z
        .number()
        .int()
        .positive()
        .default(12 * 3600_000),
    })
    .prefault({}),
  /** Confirmed raw transactions, shared by the node and Electrum routes (src/cache/). */
  cache: z
    .strictObject({
      /** Bytes of raw transactions held; 0 turns the cache off. */
      bytesMax: z
        .number()
        .int()
        .nonnegative()
        .max(16 * 1024 * 1024 * 1024)
        .default(64 * 1024 * 1024),
      /**
       * Bytes of indexer answers about deep blocks (the graph route's block_by_pk), beside
       * bytesMax; 0 turns them off.
       */
      blockBytesMax: z
        .number()
        .int()
        .nonnegative()
        .max(16 * 1024 * 1024 * 1024)
        .default(16 * 1024 * 1024),
      /**
       * Bytes of the unified API's whole answers about deep blocks (a `block` list bounded by
       * height, `block_by_pk`: served again without executing), beside bytesMax; 0 turns them off.
       */
      gatewayBytesMax: z
        .number()
        .int()
        .nonnegative()
        .max(16 * 1024 * 1024 * 1024)
        .default(16 * 1024 * 1024),
      /**
       * Bytes (estimated) of transactions the unified API keeps decoded, with their outputs'
       * addresses, by the hex the node sent: the same transaction asked again is not decoded
       * again. Any depth, mempool included (the entry is used only for identical bytes); the
       * node is still asked. 0 turns it off.
       */
      decodedBytesMax: z
        .number()
        .int()
        .nonnegative()
        .max(16 * 1024 * 1024 * 1024)
        .default(16 * 1024 * 1024),
      /**
       * Bytes of Esplora answers a block's hash fixes for good (`/block/:hash`, its header, raw
       * bytes, txids, one txid by index), per network, beside bytesMax; 0 turns them off.
       */
      esploraBytesMax: z
        .number()
        .int()
        .nonnegative()
        .max(16 * 1024 * 1024 * 1024)
        .default(16 * 1024 * 1024),
      /** Only transactions and blocks this deep are kept, so a reorganisation cannot move them. */
      minConfirmations: z.number().int().positive().max(1_000_000).default(6),
      /**
       * How long the node's tip is trusted when answering from the cache: a reorganisation is
       * noticed (and what it touched evicted) at most this long after the node made it.
       */
      tipTtlMs: z.number().int().nonnegative().max(60_000).default(1_000),
      /** The shared tier, used when REDIS_URL is set: what every gateway process can read. */
      redis: z
        .strictObject({
          /** Prepended to every key, so several deployments can share one Redis. */
          keyPrefix: z
            .string()
            .regex(/^[A-Za-z0-9:._-]{0,64}$/)
            .default("blockgate:cache:"),
          /** A Redis command slower than this counts as a miss: the upstream answers instead. */
          timeoutMs: z.number().int().positive().max(10_000).default(50),
          /** How long an entry lives in Redis (reorganisations evict sooner). */
          ttlMs: z
            .number()
            .int()
            .positive()
            .max(365 * 86_400_000)
            .default(7 * 86_400_000),
        })
        .prefault({}),
    })
    .prefault({}),
  /**
   * Plans by name (src/limits/): request rates, calls in flight and credit caps. An account is put
   * on one with `blockgate account plan`; an account on none is on `limits.defaultPlan`.
   */
  plans: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]{0,31}$/), plan).default({}),
  limits: z
    .strictObject({
      /** The plan of accounts put on none; null: such accounts have credits only. */
      defaultPlan: z.string().nullable().default(null),
      /** A plan's `burst` is available once per this many seconds. */
      burstWindowSeconds: z.number().int().positive().max(3_600).default(60),
      /** Prepended to the limits' Redis keys (REDIS_URL set). */
      redisKeyPrefix: z
        .string()
        .regex(/^[A-Za-z0-9:._-]{0,64}$/)
        .default("blockgate:limits:"),
      /**
       * A Redis command slower than this fails: meanwhile each process holds request rates and
       * calls in flight on its own, and credit caps are checked against the ledger.
       */
      redisTimeoutMs: z.number().int().positive().max(10_000).default(100),
    })
    .prefault({}),
  ledger: z
    .strictObject({
      /**
       * The TTL of holds and credit leases: a gateway process silent this long is dead, and its
       * leases and holds are given back (a restarted instance gives back its predecessor's at
       * once). Must be at least the longest upstream timeout, so no call outlives its credits.
       */
      holdTimeoutMs: z.number().int().positive().max(3_600_000).default(120_000),
      /**
       * This gateway's name among the processes sharing a database, stable across restarts. Absent:
       * host and port (a random name when the port is 0).
       */
      instance: z
        .string()
        .regex(/^[A-Za-z0-9._:@-]{1,128}$/)
        .optional(),
      /** A credit lease holds this much of the account's recent rate (CC/s), in ms. */
      leaseWindowMs: z.number().int().nonnegative().max(60_000).default(250),
      /** A lease covers at least this many calls of the price being reserved; 0 turns leases off. */
      leaseMinCalls: z.number().int().nonnegative().max(10_000).default(16),
      /**
       * Leases are taken only while the account keeps this many times the lease available
       * besides; below that, each call holds its own credits, so the last credits are exact.
       */
      leaseKeepFactor: z.number().int().nonnegative().max(1_000).default(4),
      /** A lease unused this long is given back. */
      leaseIdleMs: z.number().int().positive().max(600_000).default(2_000),
      /** Most audit records one settle statement writes (group commit). */
      batchRowsMax: z.number().int().positive().max(100_000).default(2_000),
      /** Most audit records waiting to be written; callers beyond it wait (none is dropped). */
      pendingRowsMax: z.number().int().positive().max(10_000_000).default(50_000),
      /**
       * Under load, the longest a settle statement waits for the rest of its batch, in µs (group
       * commit's commit_delay): on PostgreSQL for as many calls as the recent statements held,
       * while calls arrive faster than statements are written; on PGlite for the calls still
       * executing and for as many as the clients keep in flight. 0: every statement starts at once.
       */
      settleGatherUs: z.number().int().nonnegative().max(10_000).default(1_000),
    })
    .prefault({}),
  idempotency: z
    .strictObject({
      /** How long an Idempotency-Key and its stored answer are kept for retries. */
      windowMs: z
        .number()
        .int()
        .positive()
        .max(7 * 24 * 3_600_000)
        .default(24 * 3_600_000),
    })
    .prefault({}),
  /** devnet's own behaviour, where it serves a network (upstreams given as `devnet`). */
  devnet: z
    .strictObject({
      /**
       * A block on each of blockNetworks' tips this often, carrying the mempool transactions
       * devnet can price; 0: blocks only on command (`blockgate devnet mine`).
       */
      blockIntervalMs: z.number().int().nonnegative().max(3_600_000).default(0),
      /** The networks the timer mines on; those devnet does not serve are skipped. */
      blockNetworks: z.array(networkName).max(NETWORK_NAMES.length).default(["regtest"]),
    })
    .prefault({}),
  /** First run with an empty database: create an account with credits and print a token for it. */
  demo: z
    .strictObject({
      enabled: z.boolean().default(true),
      credits: z.number().int().nonnegative().default(1_000_000),
    })
    .prefault({}),
  log: z
    .strictObject({
      level: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
      /**
       * `json`: one JSON object per line on standard output (for collectors). `pretty`: one
       * readable line each on standard error. `auto`: pretty when standard output is a terminal.
       */
      format: z.enum(["auto", "json", "pretty"]).default("auto"),
    })
    .prefault({}),
});

export type Config = z.infer<typeof configSchema>;
export type FailoverConfig = Config["failover"];
export type ConfigInput = z.input<typeof configSchema>;
