// The settle statement alone on PGlite (src/billing/ledger/settle-queue.ts writeBatch), as the
// gateway runs it — vouching for its own references, planned with sequential scans off in its
// message's transaction (docs/decisions/0061) — side by side with the same statement left to the
// reference triggers (migration 011), as PGlite's settles were before: by calls per statement, 1,
// 8 (a batch at 8 requests in flight) and 50 (a JSON-RPC batch), rounds alternating between the
// two, on one in-memory store. Each statement's calls are charged from a lease, as the gateway's
// are. Bounded by count. Usage:
//   npx tsx bench/settle-pglite.ts [statements per round] [rounds]
import { loadavg } from "node:os";
import { returnLease } from "../src/billing/ledger/leases.ts";
import { checkLedger } from "../src/billing/ledger/ledger.ts";
import { writeBatch } from "../src/billing/ledger/settle-queue.ts";
import type { Database } from "../src/db/database.ts";
import { openDatabase } from "../src/db/open.ts";
import { leasedAccount } from "./leased-account.ts";

const PER_ROUND = Number(process.argv[2] ?? 300);
const ROUNDS = Number(process.argv[3] ?? 4);
const SIZES = [1, 8, 50];

const db = await openDatabase({ pgliteDir: "memory://", poolSize: 1 });
const leased = await leasedAccount(db);
const { item } = leased;
// The baseline: the same statement through the plain connection, not vouching (planned "default").
const checked: Database = {
  ...db,
  settles: { query: (text, values) => db.query(text, values), planned: "default" },
};

const load = loadavg().map((l) => l.toFixed(2));
const ways: [string, Database][] = [
  ["vouched", db],
  ["triggers", checked],
];
const samples = new Map<string, number[]>();
for (const [, on] of ways)
  for (const n of SIZES) for (let i = 0; i < 50; i++) await writeBatch(on, [item(n)]);
for (let round = 0; round < ROUNDS; round++) {
  for (const [way, on] of round % 2 === 0 ? ways : [...ways].reverse()) {
    for (const n of SIZES) {
      const out = samples.get(`${n} ${way}`) ?? [];
      samples.set(`${n} ${way}`, out);
      for (let i = 0; i < PER_ROUND; i++) {
        const started = performance.now();
        await writeBatch(on, [item(n)]);
        out.push(performance.now() - started);
      }
    }
  }
}
const p50 = (label: string) => {
  const s = (samples.get(label) ?? []).sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
};
console.log(
  `PGlite in memory, ${ROUNDS} rounds × ${PER_ROUND} statements per size and way; load average at start ${load.join(" ")}`,
);
for (const n of SIZES) {
  const [vouched, triggers] = [p50(`${n} vouched`), p50(`${n} triggers`)];
  console.log(
    `settle of ${String(n).padStart(2)} call${n > 1 ? "s" : " "}  vouched p50 ${vouched.toFixed(3)} ms  triggers p50 ${triggers.toFixed(3)} ms  vouched ÷ triggers ${(vouched / triggers).toFixed(2)}`,
  );
}
await returnLease(db, leased.leaseId);
const bad = (await checkLedger(db)).filter((c) => !c.ok);
console.log(bad.length === 0 ? "ledger check: ok" : `ledger check FAILED: ${JSON.stringify(bad)}`);
await db.close();
