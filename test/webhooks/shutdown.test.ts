import type { EventEmitter } from "node:events";
import pg from "pg";
import { expect, it, vi } from "vitest";
import { DELIVERIES } from "../../src/webhooks/queue.ts";
import { POSTGRES_URL, startTestGateway } from "../support/harness.ts";

/**
 * A delivery worker's fetch under way when the gateway stops: pg-boss, counting no job in
 * progress, says it stopped before the fetch returns, and hands the jobs over afterwards. They
 * must not be attempted on the store being closed, nor their completion be lost: each is failed
 * (to run again) before the queue's connection shuts, and nothing rejects unhandled.
 */
it("a job fetched while the gateway stops is failed to run again, not attempted on a closing store", async () => {
  const t = await startTestGateway("postgres", { webhooks: { pollMs: 500 } });
  const jobs = `${t.schema}_jobs`;
  const lock = new pg.Client({ connectionString: POSTGRES_URL });
  await lock.connect();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    // A job due, and the worker's next fetch held on the table's lock.
    await lock.query("BEGIN");
    await lock.query(`INSERT INTO ${jobs}.job (name, data) VALUES ($1, $2)`, [
      DELIVERIES,
      { messageId: "msg_late" },
    ]);
    await lock.query(`LOCK TABLE ${jobs}.job IN EXCLUSIVE MODE`);
    const pid = (lock as unknown as { processID: number }).processID;
    await vi.waitFor(
      async () => {
        const { rows } = await t.gateway.app.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))",
          [pid],
        );
        expect(rows[0]!.n).toBeGreaterThan(0);
      },
      { timeout: 10_000, interval: 50 },
    );
    // The fetch returns its job only once pg-boss has stopped (its "stopped" event).
    const boss = (t.gateway.webhooks as unknown as { boss: EventEmitter }).boss;
    boss.once("stopped", () => void lock.query("COMMIT"));
    await t.gateway.close();

    const { rows } = await lock.query<{ state: string; output: { message?: string } }>(
      `SELECT state, output FROM ${jobs}.job WHERE data->>'messageId' = 'msg_late'`,
    );
    expect(rows).toEqual([
      {
        state: "retry",
        output: expect.objectContaining({ message: expect.stringMatching(/stopping/) }),
      },
    ]);
    expect(unhandled).toEqual([]);
  } finally {
    process.off("unhandledRejection", onUnhandled);
    await t.devnet.close();
    await lock.query(`DROP SCHEMA IF EXISTS ${t.schema} CASCADE`);
    await lock.query(`DROP SCHEMA IF EXISTS ${jobs} CASCADE`);
    await lock.end();
  }
});
