import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { revokeToken } from "../../src/access/tokens.ts";
import type { Database } from "../../src/db/database.ts";
import { auditByOutcome, auditRecords } from "../support/audit.ts";
import { HAL_TXID, rpc } from "../support/harness.ts";
import { balanceOf, expectLedgerOk, fundedAccount } from "../support/ledger.ts";
import { sized } from "../support/size.ts";
import { gatewayProcesses, type SchemaStore, stopProcess } from "../support/spawn.ts";

/**
 * Credit leases across gateway processes on one PostgreSQL: each test runs real gateway
 * processes (`node dist/main.js`, as `npm start` runs them) on a schema of its own, against a devnet here.
 */
const PRICE = 200; // getrawtransaction on mainnet
/** Calls with Idempotency-Keys sent to the process killed, then again to its restart. */
const KEYED = sized(150, 400);

const processes = gatewayProcesses("l");
const store = () => processes.store();

/** A gateway process on the store; `instance` names it across restarts. */
function gateway(s: SchemaStore, instance: string, level = "warn") {
  return processes.spawn(`${s.schema}-${instance}`, s, {
    connections: 64,
    settings: { ledger: { instance }, log: { level } },
    env: { BLOCKGATE_LOG_LEVEL: level },
  });
}

/** `n` calls, `concurrency` at a time; with `keyed`, call i carries Idempotency-Key `call-i`. */
async function calls(urls: string[], token: string, n: number, concurrency: number, keyed = false) {
  const results: { i: number; status: number; requestId: string | null }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const url = `${urls[i % urls.length]}/node/mainnet/${token}`;
        try {
          const res = await fetch(url, {
            method: "POST",
            headers: keyed ? { "idempotency-key": `call-${i}` } : {},
            body: JSON.stringify(rpc("getrawtransaction", [HAL_TXID], i)),
          });
          await res.text();
          results.push({ i, status: res.status, requestId: res.headers.get("x-request-id") });
        } catch {
          results.push({ i, status: 0, requestId: null }); // the connection was reset
        }
      }
    }),
  );
  return results;
}

async function accountRow(db: Database, id: number) {
  const { balance, held, leased } = await balanceOf(db, id);
  return { balance, held, leased };
}

// Each test starts real gateway processes (module load, migrations, a unified API warmed in the
// background): on a shared two-core machine the default 30 s timeout leaves too little room.
// What they assert does not depend on time, except the revocation's one-second bound, which is
// the requirement itself.
describe("credit leases across two gateway processes (PostgreSQL)", { timeout: 90_000 }, () => {
  const K = sized(100, 300);
  const SENT = sized(170, 500);
  const WARM = sized(20, 60);
  // One pair of processes on one schema for the two tests below, each on an account of its own:
  // a process start costs seconds of CPU, and neither test is about how the pair started. At info
  // level, for the revocation test's log lines; stopped (and the ledgers checked) after both.
  describe("one pair of processes", () => {
    let s: SchemaStore;
    let a: Awaited<ReturnType<typeof gateway>>;
    let b: Awaited<ReturnType<typeof gateway>>;
    const stopped: number[] = [];
    beforeAll(async () => {
      s = await store();
      [a, b] = await Promise.all([gateway(s, "a", "info"), gateway(s, "b", "info")]);
    }, 90_000);
    afterAll(async () => {
      await Promise.all([stopProcess(a.child), stopProcess(b.child)]);
      // Stopped, the processes have given their leases back: each account's ledger holds.
      for (const id of stopped) await expectLedgerOk(s.db, id, { held: 0, leased: 0 });
      await s.db.close();
    });

    it(`${SENT} concurrent calls on an account funded for exactly ${K}: ${K} answered, ${SENT - K} refused`, async () => {
      const { id, token } = await fundedAccount(s.db, "shared", K * PRICE);
      const urls = [a.url, b.url];
      // A steady start, so both processes take leases; then the rest all at once, to one of them:
      // the credits the other holds in its lease must come back (a recall), or some of the
      // affordable calls would be refused.
      const warm = await calls(urls, token, WARM, 4);
      const { rows: leases } = await s.db.query<{ n: number }>(
        "SELECT count(DISTINCT process_id)::int AS n FROM ledger_entries WHERE kind = 'lease'",
      );
      expect(leases[0]!.n).toBe(2);
      const burst = await calls([b.url], token, SENT - WARM, SENT - WARM);
      const all = [...warm, ...burst];
      // As a histogram, so an answer of any other status (a reset is 0) shows what it was.
      const statuses: Record<number, number> = {};
      for (const r of all) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
      expect(statuses).toEqual({ 200: K, 429: SENT - K });
      expect(await accountRow(s.db, id)).toEqual({ balance: 0, held: 0, leased: 0 });
      expect(await auditByOutcome(s.db, { accountId: id })).toEqual([
        { outcome: "insufficient_credits", n: SENT - K, charged: 0 },
        { outcome: "ok", n: K, charged: K * PRICE },
      ]);
      await expectLedgerOk(s.db, id, { balance: 0, held: 0, leased: 0 });
      stopped.push(id);
    });

    it("a token revoked elsewhere is refused by a process that had it cached within one second", async () => {
      const issued = await fundedAccount(s.db, "revoked", 1_000_000);
      // At info level each process logs the moment a revocation signal reaches it: the bound is
      // timed from the revoking commit to that moment in each process, so the test measures the
      // signal, not the latency of HTTP probes on a busy machine. (Both processes share one clock.)
      // Both processes have the token in their caches.
      for (const url of [a.url, b.url, a.url, b.url]) {
        expect((await calls([url], issued.token, 1, 1))[0]!.status).toBe(200);
      }
      const revoked = Date.now();
      expect(await revokeToken(s.db, { id: issued.tokenId })).toBe(true);
      const received = (output: () => string): number | undefined =>
        output()
          .split("\n")
          .filter((line) => line.includes('"token revocation received"'))
          .map((line) => JSON.parse(line) as { time: number; tokenId: number; dropped: number })
          .find((entry) => entry.tokenId === issued.tokenId && entry.dropped > 0)?.time;
      const arrivals = await vi.waitFor(
        () => {
          const times = [received(a.output), received(b.output)];
          expect(times).not.toContain(undefined);
          return times as number[];
        },
        { timeout: 10_000, interval: 10 },
      );
      for (const at of arrivals) expect(at - revoked).toBeLessThan(1_000);
      // And having dropped it, neither process lets the token through again.
      const [ra, rb] = await Promise.all([
        calls([a.url], issued.token, 1, 1),
        calls([b.url], issued.token, 1, 1),
      ]);
      expect([ra[0]!.status, rb[0]!.status]).toEqual([401, 401]);
      stopped.push(issued.id);
    });
  });

  it("SIGKILL under load: the restarted instance gets its leases back at once, not a TTL later", async () => {
    const s = await store();
    const { id, token } = await fundedAccount(s.db, "killed", 10_000_000);
    const first = await gateway(s, "gw-1");
    // Load (each call with its Idempotency-Key) until the process holds a lease, then kill it
    // with calls in flight.
    const load = calls([first.url], token, KEYED, 16, true);
    await vi.waitFor(async () => expect((await accountRow(s.db, id)).leased).toBeGreaterThan(0), {
      timeout: 20_000,
      interval: 20,
    });
    first.child.kill("SIGKILL");
    const seen = await load;
    expect((await accountRow(s.db, id)).leased).toBeGreaterThan(0);

    // The TTL is two minutes; the restart must not wait for it.
    const restarted = await gateway(s, "gw-1");
    const after = await accountRow(s.db, id);
    expect(after.leased).toBe(0);
    expect(after.held).toBe(0);
    await expectLedgerOk(s.db, id);
    // Every 200 the client received has its audit record, with its charge.
    const answered = seen.filter((r) => r.status === 200).map((r) => r.requestId as string);
    const audited = await auditRecords(s.db, { accountId: id, chargedCc: PRICE }, ["request_id"]);
    const charged = new Set(audited.map((r) => r.request_id));
    expect(answered.filter((r) => !charged.has(r))).toEqual([]);

    // Every call retried with its key: each key is charged exactly once, whatever the first
    // attempt's fate (answered, cut before its charge, or charged with its answer lost).
    const retried = await calls([restarted.url], token, KEYED, 16, true);
    expect(retried.filter((r) => r.status !== 200)).toEqual([]);
    await stopProcess(restarted.child);
    await expectLedgerOk(s.db, id, { charged: KEYED * PRICE, held: 0, leased: 0 });
    await s.db.close();
  });
});
