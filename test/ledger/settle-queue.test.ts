import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { processCpuUs } from "../../bench/process-cpu.ts";
import { createAccount } from "../../src/billing/ledger/accounts.ts";
import type { AuditInput } from "../../src/billing/ledger/audit.ts";
import { takeLease } from "../../src/billing/ledger/leases.ts";
import { grantCredits, reserve } from "../../src/billing/ledger/ledger.ts";
import { SettleQueue } from "../../src/billing/ledger/settle-queue.ts";
import type { Database } from "../../src/db/database.ts";
import { openDatabase } from "../../src/db/open.ts";
import { auditCount } from "../support/audit.ts";
import { memoryStore, POSTGRES_URL } from "../support/harness.ts";
import { balanceOf, expectLedgerOk } from "../support/ledger.ts";

/** Group commit (src/billing/ledger/settle-queue.ts) on both stores: batching, failure, backpressure. */
function record(accountId: number, charged: number, method = "getrawtransaction"): AuditInput {
  return {
    requestId: randomUUID(),
    accountId,
    tokenId: null,
    backend: "node",
    network: "mainnet",
    method,
    outcome: "ok",
    httpStatus: 200,
    estimatedCc: charged,
    chargedCc: charged,
  };
}

/** A gather clock that moves a microsecond each time it is read, whatever the machine's pace. */
function testClock(): () => number {
  let tick = 0;
  return () => {
    tick += 0.001;
    return tick;
  };
}

describe.each(["pglite", "postgres"] as const)("the settle queue (%s)", (kind) => {
  let db: Database;
  const schema = `sq_${randomBytes(4).toString("hex")}`;
  beforeAll(async () => {
    db =
      kind === "pglite"
        ? await memoryStore()
        : await openDatabase({ databaseUrl: POSTGRES_URL, schema, pgliteDir: "", poolSize: 8 });
  });
  afterAll(async () => {
    if (kind === "postgres") await db.query(`DROP SCHEMA ${schema} CASCADE`);
    await db.close();
  });

  async function account(name: string, credits: number): Promise<number> {
    const a = await createAccount(db, `${name}-${randomBytes(3).toString("hex")}`);
    await grantCredits(db, a.id, credits);
    return a.id;
  }

  /** An account with a lease, and a call of 10 CC from it settled on a given queue. */
  async function leasedCalls(name: string) {
    const id = await account(name, 1_000_000);
    const taken = await takeLease(db, id, 100_000, 0, "test-process");
    if (!taken) throw new Error("lease");
    const settle = (queue: SettleQueue) =>
      queue.settle({
        accountId: id,
        hold: null,
        leaseId: taken.lease.id,
        records: [record(id, 10)],
      });
    return { id, settle };
  }

  it("writes concurrent settles together, each with its own audit records, in fewer statements", async () => {
    const id = await account("batched", 100_000);
    const queue = new SettleQueue(db, { batchRowsMax: 1000, pendingRowsMax: 10_000 });
    const holds = await Promise.all(
      Array.from({ length: 40 }, async () => {
        const r = await reserve(db, id, 200);
        if (!r.ok || !r.hold) throw new Error("reserve");
        return r.hold;
      }),
    );
    const out = await Promise.all(
      holds.map((hold, i) =>
        queue.settle({
          accountId: id,
          hold,
          leaseId: null,
          records: [record(id, i % 2 === 0 ? 200 : 150), record(id, 0, "refused")],
        }),
      ),
    );
    expect(queue.stats.batches).toBeLessThan(40);
    expect(queue.stats.items).toBe(40);
    expect(out.every((o) => o.auditIds.length === 2)).toBe(true);
    expect(new Set(out.flatMap((o) => o.auditIds)).size).toBe(80);
    // Each item's records keep their order: the charged call first, its refused sibling second.
    for (const o of out) expect(o.auditIds[0]!).toBeLessThan(o.auditIds[1]!);
    await expectLedgerOk(db, id, { held: 0, charged: 20 * 200 + 20 * 150 });
  });

  it("a bad item fails alone, with nothing of it written; the others of its batch commit", async () => {
    const id = await account("failing", 10_000);
    const queue = new SettleQueue(db, { batchRowsMax: 1000, pendingRowsMax: 10_000 });
    const taken = await takeLease(db, id, 1_000, 0, "test-process");
    if (!taken) throw new Error("lease");
    const before = await auditCount(db, { accountId: id });
    const results = await Promise.allSettled([
      queue.settle({
        accountId: id,
        hold: null,
        leaseId: taken.lease.id,
        records: [record(id, 300)],
      }),
      // More than the lease holds: the accounts' CHECK refuses it.
      queue.settle({
        accountId: id,
        hold: null,
        leaseId: taken.lease.id,
        records: [record(id, 5_000)],
      }),
      queue.settle({
        accountId: id,
        hold: null,
        leaseId: taken.lease.id,
        records: [record(id, 300)],
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/ledger settle failed/);
    const after = await auditCount(db, { accountId: id });
    expect(after - before).toBe(2);
    expect(await balanceOf(db, id)).toMatchObject({ balance: 10_000 - 600, leased: 1_000 - 600 });
    await expectLedgerOk(db, id);
  });

  it("under a steady load a statement waits for as many calls as the recent ones held; without the wait they split", async () => {
    const { id, settle } = await leasedCalls("gathered");
    /** Statements taken by eight calls arriving one per turn of the event loop, after a batch of eight. */
    async function steady(queue: SettleQueue): Promise<number> {
      await Promise.all(Array.from({ length: 8 }, () => settle(queue)));
      const before = queue.stats.batches;
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < 8; i++) {
        calls.push(settle(queue));
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await Promise.all(calls);
      return queue.stats.batches - before;
    }
    // The gather on a clock of the test's own, a microsecond a reading: calls come fast and the
    // bound is far off, whatever the machine's pace. On the machine's clock a loaded machine could
    // make the first of the eight look like a trickle and go alone, leaving seven to wait for an
    // eighth until the bound (it did, in CI, with the bound at 30 s: a hang, not a failure).
    const gathering = new SettleQueue(db, {
      batchRowsMax: 1000,
      pendingRowsMax: 10_000,
      gatherMaxUs: 1_000_000,
      gatherClock: testClock(),
    });
    expect(await steady(gathering)).toBe(1);
    expect(
      await steady(new SettleQueue(db, { batchRowsMax: 1000, pendingRowsMax: 10_000 })),
    ).toBeGreaterThan(1);
    // One call where eight were expected is written once the bound has passed.
    const bounded = new SettleQueue(db, {
      batchRowsMax: 1000,
      pendingRowsMax: 10_000,
      gatherMaxUs: 2_000,
    });
    await Promise.all(Array.from({ length: 8 }, () => settle(bounded)));
    await settle(bounded);
    expect(bounded.stats).toMatchObject({ batches: 2, items: 9 });
    await expectLedgerOk(db, id);
  });

  it("in process, a statement waits for the calls still executing; a call alone never waits", async () => {
    const { id, settle } = await leasedCalls("coming");
    /** Statements taken by six calls, each done executing a turn of the event loop after the last. */
    async function staggered(queue: SettleQueue): Promise<number> {
      const before = queue.stats.batches;
      const done = Array.from({ length: 6 }, () => queue.coming());
      const calls: Promise<unknown>[] = [];
      for (const finished of done) {
        finished();
        calls.push(settle(queue));
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await Promise.all(calls);
      return queue.stats.batches - before;
    }
    // The bound on a clock of the test's own, so that a slow machine does not end the wait early.
    const opts = { batchRowsMax: 1000, pendingRowsMax: 10_000, gatherMaxUs: 1_000_000 };
    const clock = testClock();
    const inProcess = new SettleQueue(db, { ...opts, gatherClock: clock, inProcess: true });
    expect(await staggered(inProcess)).toBe(1);
    expect(await staggered(new SettleQueue(db, { ...opts, gatherClock: clock }))).toBeGreaterThan(
      1,
    );
    // A call alone is written at once, though the bound is far off.
    const started = performance.now();
    await settle(inProcess);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(inProcess.stats.items).toBe(7);
    await expectLedgerOk(db, id);
  });

  it("a statement waiting for the rest of its batch waits idle, not turning the event loop", async () => {
    const { id, settle } = await leasedCalls("idle-wait");
    const opts = { batchRowsMax: 1000, pendingRowsMax: 10_000, gatherMaxUs: 1_000_000 };
    const queue = new SettleQueue(db, { ...opts, inProcess: true });
    const executing = queue.coming();
    const first = settle(queue);
    // The statement waits for the call still executing, which comes back 150 ms later.
    // The main thread's CPU alone: the process's counts V8's compiler and collector threads too,
    // busy meanwhile in a worker that shares its process with other test files.
    const mainThread = () => processCpuUs(`self/task/${process.pid}`);
    const cpu = mainThread();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 150));
    const used = mainThread() - cpu;
    executing();
    await Promise.all([first, settle(queue)]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(149);
    expect(queue.stats).toMatchObject({ batches: 1, items: 2 });
    // Turning the event loop for those 150 ms took about as much CPU; waiting takes next to none.
    expect(used / 1000).toBeLessThan(50);
    await expectLedgerOk(db, id);
  });

  it("in process, a statement waits for the calls the clients keep in flight, up to its bound", async () => {
    const { id, settle } = await leasedCalls("returning");
    const opts = {
      batchRowsMax: 1000,
      pendingRowsMax: 10_000,
      gatherClock: testClock(),
      inProcess: true,
    };
    /** Statements taken by two halves of calls, the second a few turns of the event loop later. */
    async function halves(queue: SettleQueue, sizes: [number, number]): Promise<number> {
      const before = queue.stats.batches;
      const calls: Promise<unknown>[] = [];
      for (let i = 0; i < sizes[0]; i++) calls.push(settle(queue));
      for (let t = 0; t < 3; t++) await new Promise<void>((resolve) => setImmediate(resolve));
      for (let i = 0; i < sizes[1]; i++) calls.push(settle(queue));
      await Promise.all(calls);
      return queue.stats.batches - before;
    }
    const eight = () => 8;
    const waits = new SettleQueue(db, { ...opts, gatherMaxUs: 1_000_000, callsInFlight: eight });
    expect(await halves(waits, [4, 4])).toBe(1);
    // Without the clients' count, the halves are written apart.
    const apart = new SettleQueue(db, { ...opts, gatherMaxUs: 1_000_000 });
    expect(await halves(apart, [4, 4])).toBe(2);
    // Calls that never come: the statement goes at its bound (the test's clock runs per read).
    const bounded = new SettleQueue(db, { ...opts, gatherMaxUs: 50, callsInFlight: eight });
    expect(await halves(bounded, [4, 0])).toBe(1);
    await expectLedgerOk(db, id);
  });

  it("a full queue makes callers wait; every record is written", async () => {
    const id = await account("pressed", 1_000_000);
    const queue = new SettleQueue(db, { batchRowsMax: 4, pendingRowsMax: 8 });
    const taken = await takeLease(db, id, 100_000, 0, "test-process");
    if (!taken) throw new Error("lease");
    const out = await Promise.all(
      Array.from({ length: 60 }, () =>
        queue.settle({
          accountId: id,
          hold: null,
          leaseId: taken.lease.id,
          records: [record(id, 10)],
        }),
      ),
    );
    expect(out).toHaveLength(60);
    expect(queue.stats.peakQueuedRows).toBeLessThanOrEqual(8);
    expect(queue.stats.rows).toBe(60);
    expect(await auditCount(db, { accountId: id })).toBe(60);
  });
});
