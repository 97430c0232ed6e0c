import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { Writable } from "node:stream";
import pg from "pg";
import { inject } from "vitest";
import { type RunningGateway, startGateway } from "../../src/app/app.ts";
import {
  resolveElectrumUpstreams,
  resolveEsploraUpstreams,
  resolveGraphUpstreams,
  resolveNodeUpstreams,
} from "../../src/app/upstreams.ts";
import { parseConfig } from "../../src/config/load.ts";
import type {
  BitcoinCoreUpstreamConfig,
  ConfigInput,
  ElectrumUpstreamConfig,
  NetworkName,
} from "../../src/config/schema.ts";
import type { Database } from "../../src/db/database.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { type Devnet, type DevnetOptions, startDevnet } from "../../src/devnet/devnet.ts";
import { fundedAccount } from "./ledger.ts";
import { pooledPglite } from "./pglite-pool.ts";

export type StoreKind = "pglite" | "postgres";

/**
 * The PostgreSQL the suite runs against. CI sets DATABASE_URL; a developer machine of this
 * project's kind has the same server at this address. Unreachable means the suite fails: the
 * PostgreSQL store is never skipped.
 */
export const POSTGRES_URL =
  process.env.TEST_DATABASE_URL ??
  process.env.DATABASE_URL ??
  "postgres://postgres@127.0.0.1:5432/test";

export interface TestGateway {
  gateway: RunningGateway;
  devnet: Devnet;
  url: string;
  /** Every log line the gateway wrote, for assertions that tokens never appear. */
  logs: string[];
  schema: string | null;
  account(name: string, credits: number): Promise<{ id: number; token: string; tokenId: number }>;
  close(): Promise<void>;
}

let snapshot: Blob | undefined;

/**
 * The run's migrated PGlite snapshot (test/support/global-setup.ts) for an in-memory store, so a
 * test does not pay for initdb; a store on disk starts as `npm start` does. Read once per worker:
 * a worker starts many stores from it.
 */
export function pgliteSnapshotFor(pgliteDir: string): { pgliteSnapshot?: Blob } {
  if (!pgliteDir.startsWith("memory://")) return {};
  snapshot ??= new Blob([readFileSync(inject("pgliteSnapshot"))]);
  return { pgliteSnapshot: snapshot };
}

/**
 * A migrated PGlite store in memory for a test without a gateway: from the worker's pool
 * (pglite-pool.ts), as new as one loaded from the snapshot, and given back at `close()`. Loading
 * one anew (`openDatabase`) costs the worker a few tenths of a second of CPU.
 */
export function memoryStore(): Promise<Database> {
  return pooledPglite(pgliteSnapshotFor("memory://").pgliteSnapshot as Blob);
}

/**
 * A store in memory comes from the worker's pool (pglite-pool.ts), as new as one loaded from the
 * snapshot; one on disk, or one left unmigrated, starts as `npm start` starts it.
 */
function pgliteStore(database: { pgliteDir: string; migrate: boolean }) {
  const { pgliteSnapshot } = pgliteSnapshotFor(database.pgliteDir);
  if (pgliteSnapshot instanceof Blob && database.migrate && database.pgliteDir === "memory://") {
    return { store: pooledPglite(pgliteSnapshot) };
  }
  return { pgliteSnapshot };
}

/** Starts devnet and a gateway on port 0 with a fresh store (PGlite in memory, or a PG schema). */
export async function startTestGateway(
  store: StoreKind = "pglite",
  overrides: ConfigInput = {},
  /** Join an existing PostgreSQL schema (a second gateway process on the same ledger). */
  sharedSchema?: string,
  /** devnet's server settings, and the gateway's settings for its devnet Electrum and node entries. */
  devnetOptions: DevnetOptions & {
    electrumClient?: Partial<Omit<ElectrumUpstreamConfig, "url">>;
    coreClient?: Partial<Omit<BitcoinCoreUpstreamConfig, "url" | "user" | "password">>;
    /** The response cache's Redis (none: memory only, whatever REDIS_URL says). */
    redisUrl?: string;
    /** devnet already running (a second gateway on the same upstreams); not closed by close(). */
    devnet?: Devnet;
  } = {},
): Promise<TestGateway> {
  const config = parseConfig({
    database: { pgliteDir: "memory://" },
    demo: { enabled: false },
    log: { level: "info" },
    ...overrides,
    // Tests send bad tokens by the hundred from 127.0.0.1: the failed-authentication throttle is
    // off unless a test turns it on (test/http/auth-throttle.security.test.ts).
    server: { port: 0, authDelayBaseMs: 0, ...overrides.server },
    // No chain follower polls devnet's nodes unless a test asks for one (test/events/): other
    // tests count the calls devnet's Core receives.
    events: { pollMs: 0, ...overrides.events },
    // Nor does the verified chain follow them, for the same reason (test/verify/ turns it on).
    verification: { enabled: false, ...overrides.verification },
    // With no chain follower no new tip is heard, and tests count the indexer's requests: an
    // ended trip answers no later one unless a test asks (test/graphql/shared-after-trip.test.ts).
    graphql: { sharedAfterTripMs: 0, ...overrides.graphql },
  });
  const ownDevnet = devnetOptions.devnet === undefined;
  const devnet = devnetOptions.devnet ?? (await startDevnet(config.networks, devnetOptions));
  const schema =
    store === "postgres" ? (sharedSchema ?? `t_${randomBytes(6).toString("hex")}`) : null;
  const logs: string[] = [];
  const gateway = await startGateway(config, {
    databaseUrl: store === "postgres" ? POSTGRES_URL : undefined,
    ...(store === "pglite" ? pgliteStore(config.database) : {}),
    ...(schema ? { databaseSchema: schema } : {}),
    nodeUpstreams: resolveNodeUpstreams(config, devnet, process.env, devnetOptions.coreClient),
    graphUpstreams: resolveGraphUpstreams(config, devnet),
    electrumUpstreams: resolveElectrumUpstreams(config, devnet, devnetOptions.electrumClient),
    esploraUpstreams: resolveEsploraUpstreams(config, devnet),
    noAdminFile: true,
    redisUrl: devnetOptions.redisUrl,
    logDestination: new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(chunk.toString("utf8"));
        done();
      },
    }),
  });
  return {
    gateway,
    devnet,
    url: gateway.url,
    logs,
    schema,
    account: (name, credits) => fundedAccount(gateway.app.db, name, credits),
    async close() {
      await gateway.close();
      if (ownDevnet) await devnet.close();
      if (schema && !sharedSchema) {
        const client = new pg.Client({ connectionString: POSTGRES_URL });
        await client.connect();
        await client.query(`DROP SCHEMA ${schema} CASCADE`);
        // pg-boss's tables, beside ours (src/webhooks/queue.ts).
        await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
        await client.end();
      }
    },
  };
}

/**
 * Resolves once the network's Electrum upstreams (those at `indexes`, else all) each have an open
 * connection. The gateway opens them in the background: a request sent before finds none (503).
 */
export async function electrumConnected(
  t: TestGateway,
  network = "mainnet",
  indexes?: readonly number[],
): Promise<void> {
  const upstreams = t.gateway.app.electrum.get(network as NetworkName)!.upstreams;
  await Promise.all(
    upstreams
      .filter((_, i) => indexes === undefined || indexes.includes(i))
      .map((u) => (u.connected ? undefined : once(u, "connected"))),
  );
}

/** POSTs a JSON body (a string is sent as it is) and returns status, headers and parsed body. */
export async function post(
  url: string,
  body: unknown,
): Promise<{ status: number; headers: Headers; text: string; json: unknown }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export function rpc(method: string, params: unknown[] | Record<string, unknown>, id: unknown = 1) {
  return { jsonrpc: "2.0", id, method, params };
}

/**
 * Real txids devnet's Core knows (block 277647's 213), distinct, in a stable order: for calls
 * that must each reach the node (identical calls in flight share one trip).
 */
export function blockTxids(height = 277647): string[] {
  return [...loadDevnetChain().txIndex.entries()]
    .filter(([, at]) => at.block.height === height)
    .map(([txid]) => txid);
}

/** Real mainnet facts the tests lean on (see data/chain/README.md). */
export const HAL_TXID = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
export const BLOCK_170 = "00000000d1145790a8694403d4063f323d499e655c83426834d4ce2f8dd4a2ee";
export const GENESIS_COINBASE = "4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b";

/** The raw text devnet's Core answers to a 2.0 call, asked directly (not through the gateway). */
export async function askDevnetCore(
  devnet: Devnet,
  method: string,
  params: unknown[],
  network: "mainnet" | "testnet" | "testnet4" | "signet" | "regtest" = "mainnet",
): Promise<string> {
  const core = devnet.cores.get(network)!;
  const res = await fetch(core.url, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${core.user}:${core.password}`).toString("base64")}`,
    },
    body: JSON.stringify(rpc(method, params)),
  });
  return res.text();
}
