// The settle statement alone (src/billing/ledger/settle-queue.ts writeBatch: charges, audit records and
// the account's update in one statement and one commit), on one PostgreSQL connection, by the
// number of calls it settles: 1, 4 (a batch at 8 requests in flight) and 50 (a JSON-RPC batch),
// next to a plain one-row insert and commit on the same connection (the floor of any durable
// write); and statements of 4 calls from two connections at once on the same account, as the
// gateway's two statements in flight meet on its row (per statement: wall ÷ statements). Rounds
// alternate between sizes. Each statement's calls are charged from a lease, as
// the gateway's are. Loopback only; bounded by count. Usage:
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/settle.ts [statements per round] [rounds]
import { randomBytes, randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import pg from "pg";
import { returnLease } from "../src/billing/ledger/leases.ts";
import { checkLedger } from "../src/billing/ledger/ledger.ts";
import { writeBatch } from "../src/billing/ledger/settle-queue.ts";
import type { Database } from "../src/db/database.ts";
import { openDatabase } from "../src/db/open.ts";
import { leasedAccount } from "./leased-account.ts";

const url = process.env.DATABASE_URL;
if (!url) throw new Error("DATABASE_URL (PostgreSQL) is required");
const PER_ROUND = Number(process.argv[2] ?? 100);
const ROUNDS = Number(process.argv[3] ?? 6);
const SIZES = [1, 4, 50];

const schema = `bench_${randomBytes(4).toString("hex")}`;
const db = await openDatabase({ databaseUrl: url, pgliteDir: "memory://", poolSize: 2, schema });
const leased = await leasedAccount(db);
const { item } = leased;
// One connection for what is measured, its statement prepared as the gateway's settle connections
// prepare it (Database.settles: planned with sequential scans off).
const client = new pg.Client({
  connectionString: url,
  options: `-c search_path=${schema} -c enable_seqscan=off`,
});
await client.connect();
const measured: Database = {
  ...db,
  settles: {
    planned: "index",
    async query<R extends object>(text: string, values?: readonly unknown[]) {
      const res = await client.query({ name: "settle", text, values: values as unknown[] });
      return { rows: res.rows as R[] };
    },
  },
};

// A second connection settling on the same account at once, as the gateway's second statement in
// flight does: what one statement's hold on the account row costs the other.
const client2 = new pg.Client({
  connectionString: url,
  options: `-c search_path=${schema} -c enable_seqscan=off`,
});
await client2.connect();
const measured2: Database = {
  ...db,
  settles: {
    planned: "index",
    async query<R extends object>(text: string, values?: readonly unknown[]) {
      const res = await client2.query({ name: "settle", text, values: values as unknown[] });
      return { rows: res.rows as R[] };
    },
  },
};

const insert = () =>
  client.query({
    name: "plain",
    text: "INSERT INTO audit_records(request_id, backend, network, method, outcome, http_status) VALUES ($1, 'bench', 'mainnet', 'plain', 'ok', 200)",
    values: [randomUUID()],
  });

const load = loadavg().map((l) => l.toFixed(2));
const samples = new Map<string, number[]>();
const targets: [string, () => Promise<unknown>][] = [
  ["plain one-row insert and commit", insert],
  ...SIZES.map((n): [string, () => Promise<unknown>] => [
    `settle of ${n} call${n > 1 ? "s" : ""}`,
    () => writeBatch(measured, [item(n)]),
  ]),
];
for (const [, run] of targets) for (let i = 0; i < 20; i++) await run();
/** Per round: wall time ÷ statements, 4 calls each, half on each connection, both at once. */
const twoAtOnce: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const half = Math.floor(PER_ROUND / 2);
  const started = performance.now();
  await Promise.all(
    [measured, measured2].map(async (m) => {
      for (let i = 0; i < half; i++) await writeBatch(m, [item(4)]);
    }),
  );
  twoAtOnce.push((performance.now() - started) / (2 * half));
  for (const [label, run] of targets) {
    const out = samples.get(label) ?? [];
    samples.set(label, out);
    for (let i = 0; i < PER_ROUND; i++) {
      const started = performance.now();
      await run();
      out.push(performance.now() - started);
    }
  }
}
const pct = (s: number[], q: number) => s[Math.floor(s.length * q)] ?? 0;
const fmtMs = (ms: number) => ms.toFixed(3);
console.log(
  `one connection, ${ROUNDS} rounds × ${PER_ROUND} statements per target; load average at start ${load.join(" ")}`,
);
for (const [label] of targets) {
  const s = (samples.get(label) ?? []).sort((a, b) => a - b);
  console.log(
    `${label.padEnd(34)} p50 ${pct(s, 0.5).toFixed(3)} ms  p90 ${pct(s, 0.9).toFixed(3)} ms  p99 ${pct(s, 0.99).toFixed(3)} ms`,
  );
}
console.log(
  `settle of 4 calls, two connections at once on the account: ${twoAtOnce.map(fmtMs).join(", ")} ms per statement (by round; the one-connection p50 above is the time one takes alone)`,
);
await client.end();
await client2.end();
await returnLease(db, leased.leaseId);
const bad = (await checkLedger(db)).filter((c) => !c.ok);
console.log(bad.length === 0 ? "ledger check: ok" : `ledger check FAILED: ${JSON.stringify(bad)}`);
await db.query(`DROP SCHEMA ${schema} CASCADE`);
await db.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
await db.close();
