import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import pg from "pg";
import { expect, inject } from "vitest";
import { issueToken } from "../../src/access/tokens.ts";
import { type RunningGateway, startGateway } from "../../src/app/app.ts";
import {
  resolveElectrumUpstreams,
  resolveGraphUpstreams,
  resolveNodeUpstreams,
} from "../../src/app/upstreams.ts";
import { createAccount } from "../../src/billing/ledger/accounts.ts";
import { checkLedger, grantCredits } from "../../src/billing/ledger/ledger.ts";
import { parseConfig } from "../../src/config/load.ts";
import type {
  BitcoinCoreUpstreamConfig,
  ConfigInput,
  ElectrumUpstreamConfig,
} from "../../src/config/schema.ts";
import type { Database } from "../../src/db/database.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { type Devnet, type DevnetOptions, startDevnet } from "../../src/devnet/devnet.ts";

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

/**
 * The run's migrated PGlite snapshot (test/support/global-setup.ts) for an in-memory store, so a
 * test does not pay for initdb; a store on disk starts as `npm start` does.
 */
export function pgliteSnapshotFor(pgliteDir: string): { pgliteSnapshot?: string } {
  return pgliteDir.startsWith("memory://") ? { pgliteSnapshot: inject("pgliteSnapshot") } : {};
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
  });
  const ownDevnet = devnetOptions.devnet === undefined;
  const devnet = devnetOptions.devnet ?? (await startDevnet(config.networks, devnetOptions));
  const schema =
    store === "postgres" ? (sharedSchema ?? `t_${randomBytes(6).toString("hex")}`) : null;
  const logs: string[] = [];
  const gateway = await startGateway(config, {
    databaseUrl: store === "postgres" ? POSTGRES_URL : undefined,
    ...(store === "pglite" ? pgliteSnapshotFor(config.database.pgliteDir) : {}),
    ...(schema ? { databaseSchema: schema } : {}),
    nodeUpstreams: resolveNodeUpstreams(config, devnet, process.env, devnetOptions.coreClient),
    graphUpstreams: resolveGraphUpstreams(config, devnet),
    electrumUpstreams: resolveElectrumUpstreams(config, devnet, devnetOptions.electrumClient),
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
    async account(name, credits) {
      const db = gateway.app.db;
      const acc = await createAccount(db, name);
      if (credits > 0) await grantCredits(db, acc.id, credits);
      const issued = await issueToken(db, acc.id);
      return { id: acc.id, token: issued.token, tokenId: issued.id };
    },
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

/** An account's balance and holds, and its audit records counted and summed by outcome. */
export async function accountTotals(db: Database, accountId: number) {
  const { rows } = await db.query<{ balance: number; held: number }>(
    "SELECT balance, held FROM accounts WHERE id = $1",
    [accountId],
  );
  const audit = await db.query<{ outcome: string; n: number; charged: number }>(
    `SELECT outcome, count(*)::int AS n, sum(charged_cc)::int AS charged FROM audit_records
     WHERE account_id = $1 GROUP BY outcome ORDER BY outcome`,
    [accountId],
  );
  return { account: rows[0], audit: audit.rows };
}

/** An account's audit records, oldest first: method, charge and outcome. */
export async function auditRows(db: Database, accountId: number) {
  const { rows } = await db.query<{ method: string; charged_cc: number; outcome: string }>(
    "SELECT method, charged_cc, outcome FROM audit_records WHERE account_id = $1 ORDER BY id",
    [accountId],
  );
  return rows;
}

/**
 * After a race of requests on an account that was granted exactly `paid` × `price` CC: `paid` of
 * them were charged `price` each and the rest refused with 429, each with its one audit record,
 * the balance is spent to zero with nothing left held, and the ledger checks out.
 */
export async function expectSpentExactly(
  db: Database,
  accountId: number,
  o: { paid: number; refused: number; price: number },
): Promise<void> {
  const totals = await accountTotals(db, accountId);
  expect(totals.account).toEqual({ balance: 0, held: 0 });
  expect(totals.audit).toEqual([
    { outcome: "insufficient_credits", n: o.refused, charged: 0 },
    { outcome: "ok", n: o.paid, charged: o.paid * o.price },
  ]);
  const check = (await checkLedger(db)).find((c) => c.accountId === accountId)!;
  expect(check).toMatchObject({ charged: o.paid * o.price, balance: 0, held: 0, ok: true });
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

/** Real mainnet facts the tests lean on (see data/chain/README.md). */
/**
 * Real txids devnet's Core knows (block 277647's 213), distinct, in a stable order: for calls
 * that must each reach the node (identical calls in flight share one trip).
 */
export function blockTxids(height = 277647): string[] {
  return [...loadDevnetChain().txIndex.entries()]
    .filter(([, at]) => at.block.height === height)
    .map(([txid]) => txid);
}

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

/**
 * The latest aggregated failed-authentication record of a route (src/access/auth-failures.ts),
 * written now rather than when its minute is over: a 401 has no record of its own.
 */
export async function latestAuthFailure(t: TestGateway, backend: string) {
  await t.gateway.app.authFailures.flush(true);
  const { rows } = await t.gateway.app.db.query<Record<string, unknown>>(
    `SELECT account_id, token_id, backend, network, method, outcome, error_code, http_status,
       estimated_cc, charged_cc, calls FROM audit_records
     WHERE outcome = 'unauthenticated' AND backend = $1 ORDER BY id DESC LIMIT 1`,
    [backend],
  );
  return rows;
}
