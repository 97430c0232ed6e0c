// Durable charges per second on one hot account: the metering layer's reserve → settle (credit
// leases, group commit; src/billing/ledger/credits.ts) with no HTTP and no upstream, so the ledger alone
// is measured. Each charge is an audit record and a charge entry, committed before it counts.
// Printed side by side in one run: PostgreSQL with one process and with two (one account shared),
// and PGlite (one process: it is an embedded, single-process database), plus the per-call
// protocol without leases or batching (the baseline: a guarded hold, then a settle statement).
// Loopback only; bounded by time. Usage:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/ledger.ts [seconds] [callers]
import { fork } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import pino from "pino";
import { createAccount } from "../src/billing/ledger/accounts.ts";
import type { AuditInput } from "../src/billing/ledger/audit.ts";
import { Credits } from "../src/billing/ledger/credits.ts";
import { checkLedger, grantCredits, reserve, settle } from "../src/billing/ledger/ledger.ts";
import type { Database } from "../src/db/database.ts";
import { openDatabase } from "../src/db/open.ts";

const isWorker = process.argv[2] === "--worker";
// A worker gets the run's settings from its parent's environment.
const SECONDS = Number((isWorker ? process.env.BENCH_SECONDS : process.argv[2]) ?? 5);
const CALLERS = Number((isWorker ? process.env.BENCH_CALLERS : process.argv[3]) ?? 256);
const PRICE = 200;
const url = process.env.DATABASE_URL;

interface Result {
  charges: number;
  seconds: number;
  p50: number;
  p99: number;
}

function record(accountId: number): AuditInput {
  return {
    requestId: randomUUID(),
    accountId,
    tokenId: null,
    backend: "node",
    network: "mainnet",
    method: "getrawtransaction",
    outcome: "ok",
    errorCode: null,
    httpStatus: 200,
    estimatedCc: PRICE,
    chargedCc: PRICE,
    upstream: "bench",
    durationMs: 0,
  };
}

/** `callers` loops, each reserving and settling one call at a time, for `seconds`. */
async function load(charge: () => Promise<boolean>): Promise<Result> {
  const latencies: number[] = [];
  const started = performance.now();
  const until = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        if (!(await charge())) throw new Error("a charge was refused: fund the account more");
        latencies.push(performance.now() - t);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    charges: latencies.length,
    seconds: (performance.now() - started) / 1000,
    p50: latencies[Math.floor(latencies.length * 0.5)] ?? 0,
    p99: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
  };
}

async function withCredits(db: Database, accountId: number): Promise<Result> {
  const credits = new Credits(db, pino({ level: "silent" }), {
    processId: randomUUID(),
    instance: `bench-${randomUUID()}`,
    ttlMs: 60_000,
    leaseWindowMs: 250,
    leaseMinCalls: 16,
    leaseKeepFactor: 4,
    leaseIdleMs: 2_000,
    batchRowsMax: 2_000,
    pendingRowsMax: 50_000,
  });
  await credits.start();
  const out = await load(async () => {
    const r = await credits.reserve(accountId, PRICE);
    if (!r.ok) return false;
    await credits.settle(accountId, r.claim, [record(accountId)]);
    return true;
  });
  await credits.stop();
  return out;
}

async function perCall(db: Database, accountId: number): Promise<Result> {
  return load(async () => {
    const r = await reserve(db, accountId, PRICE);
    if (!r.ok) return false;
    await settle(db, accountId, r.hold, [record(accountId)]);
    return true;
  });
}

async function open(schema?: string): Promise<Database> {
  return openDatabase({
    databaseUrl: url,
    pgliteDir: "memory://",
    poolSize: 20,
    ...(schema ? { schema } : {}),
  });
}

// A worker process: charges the given account in the given schema and prints its result.
if (isWorker) {
  const [, , , , schema, account] = process.argv;
  const db = await open(schema);
  const out = await withCredits(db, Number(account));
  await db.close();
  process.send?.(out);
  process.exit(0);
}

function worker(schema: string, accountId: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = fork(
      fileURLToPath(import.meta.url),
      ["--worker", "", schema, String(accountId)],
      {
        execArgv: ["--import", "tsx"],
        env: { ...process.env, BENCH_SECONDS: String(SECONDS), BENCH_CALLERS: String(CALLERS) },
      },
    );
    child.once("message", (m) => resolve(m as Result));
    child.once("exit", (code) => code !== 0 && reject(new Error(`worker exited ${code}`)));
  });
}

async function funded(db: Database, name: string): Promise<number> {
  const account = await createAccount(db, name);
  await grantCredits(db, account.id, 1_000_000_000_000);
  return account.id;
}

async function verify(db: Database): Promise<string> {
  const bad = (await checkLedger(db)).filter((c) => !c.ok);
  return bad.length === 0 ? "ledger check ok" : `LEDGER CHECK FAILED: ${JSON.stringify(bad)}`;
}

const fmt = (label: string, r: Result) =>
  `${label.padEnd(44)} ${(r.charges / r.seconds).toFixed(0).padStart(7)} charges/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`;

console.log(`one hot account, ${CALLERS} concurrent callers per process, ${SECONDS} s per run`);
const rows: [string, Result][] = [];
if (url) {
  const schema = `bench_ledger_${randomBytes(4).toString("hex")}`;
  const db = await open(schema);
  const base = await perCall(db, await funded(db, "per-call"));
  rows.push(["PostgreSQL, per-call hold + settle (baseline)", base]);
  const one = await worker(schema, await funded(db, "one"));
  rows.push(["PostgreSQL, leases + group commit, 1 process", one]);
  const shared = await funded(db, "two");
  const [a, b] = await Promise.all([worker(schema, shared), worker(schema, shared)]);
  const two = {
    charges: (a as Result).charges + (b as Result).charges,
    seconds: Math.max((a as Result).seconds, (b as Result).seconds),
    p50: Math.max((a as Result).p50, (b as Result).p50),
    p99: Math.max((a as Result).p99, (b as Result).p99),
  };
  rows.push(["PostgreSQL, leases + group commit, 2 processes", two]);
  for (const [label, r] of rows) console.log(fmt(label, r));
  console.log(
    `ratio leases ÷ per-call (1 process) = ${(one.charges / one.seconds / (base.charges / base.seconds)).toFixed(1)}x`,
  );
  console.log(await verify(db));
  await db.query(`DROP SCHEMA ${schema} CASCADE`);
  await db.close();
}
{
  delete process.env.DATABASE_URL;
  const db = await openDatabase({ pgliteDir: "memory://", poolSize: 1 });
  const base = await perCall(db, await funded(db, "per-call"));
  const leased = await withCredits(db, await funded(db, "one"));
  console.log(fmt("PGlite, per-call hold + settle (baseline)", base));
  console.log(fmt("PGlite, leases + group commit, 1 process", leased));
  console.log(
    `ratio leases ÷ per-call (PGlite) = ${(leased.charges / leased.seconds / (base.charges / base.seconds)).toFixed(1)}x`,
  );
  console.log(await verify(db));
  await db.close();
}
