import { z } from "zod";

/** Networks the gateway may offer; each route's network segment must be one of the configured ones. */
export const NETWORK_NAMES = ["mainnet", "testnet", "testnet4", "signet", "regtest"] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];

const networkName = z.enum(NETWORK_NAMES);

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
});
export type BitcoinCoreUpstreamConfig = z.infer<typeof bitcoinCoreUpstream>;

/** `"devnet"` means: start devnet's in-process server for this network and use it. */
const nodeUpstream = z.union([z.literal("devnet"), bitcoinCoreUpstream]);

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

const perNetwork = <T extends z.ZodType>(item: T) =>
  z.partialRecord(networkName, z.array(item).min(1));

const price = z.number().int().nonnegative();
/** A price per network: `default` applies to every network not named. */
const priceTable = z
  .strictObject({ default: price })
  .catchall(price)
  .superRefine((table, ctx) => {
    for (const key of Object.keys(table)) {
      if (key !== "default" && !(NETWORK_NAMES as readonly string[]).includes(key)) {
        ctx.addIssue({ code: "custom", path: [key], message: `unknown network "${key}"` });
      }
    }
  });

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
      /** Requests in one JSON-RPC batch; each is charged, so this also caps one request's cost. */
      batchItemsMax: z.number().int().positive().max(10_000).default(100),
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
    })
    .prefault({}),
  upstreams: z
    .strictObject({
      node: perNetwork(nodeUpstream).default(() => ({
        mainnet: ["devnet" as const],
        testnet: ["devnet" as const],
        testnet4: ["devnet" as const],
        signet: ["devnet" as const],
        regtest: ["devnet" as const],
      })),
      /** Absent: devnet for every configured network (filled in by parseConfig). */
      electrum: perNetwork(electrumUpstreamEntry).optional(),
    })
    .prefault({}),
  pricing: z
    .strictObject({
      getrawtransaction: priceTable.default({ default: 100, mainnet: 200 }),
      "blockchain.transaction.get": priceTable.default({ default: 50, mainnet: 100 }),
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
      /** Only transactions this deep are kept, so a reorganisation cannot move them. */
      minConfirmations: z.number().int().positive().max(1_000_000).default(6),
      /** How long a full node's block count is trusted when answering from the cache. */
      tipTtlMs: z.number().int().nonnegative().max(60_000).default(1_000),
    })
    .prefault({}),
  ledger: z
    .strictObject({
      /** A reservation older than this was orphaned by a crash; it is voided, never charged. */
      holdTimeoutMs: z
        .number()
        .int()
        .positive()
        .default(10 * 60_000),
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
    })
    .prefault({}),
});

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
