import type { EventEmitter } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { expect, it, vi } from "vitest";
import { liveOwner } from "../../src/access/tokens.ts";
import { DELIVERIES } from "../../src/webhooks/queue.ts";
import { registerEndpoint } from "../../src/webhooks/register.ts";
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

/**
 * A batch's POSTs wait for a slot (webhooks.concurrency): once the gateway stops, those still
 * waiting are not sent, so the drain waits for the POSTs under way only. They are recorded as
 * attempts to retry, uncharged; the one under way is delivered and charged.
 */
it("a stopping gateway sends none of a batch's POSTs still waiting for a slot", async () => {
  const t = await startTestGateway("postgres", {
    networks: ["regtest"],
    events: { pollMs: 600_000 },
    webhooks: {
      allowTargets: ["127.0.0.1/32"],
      concurrency: 1,
      pollMs: 500,
      retryDelayMs: 600_000,
    },
  });
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const paths: string[] = [];
  const receiver = createServer((req, res) => {
    paths.push(req.url ?? "");
    req.resume();
    void held.then(() => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const { db, config, webhookTargets } = t.gateway.app;
    const accounts: number[] = [];
    for (const n of [1, 2, 3]) {
      const account = await t.account(`stopping-${n}`, 100);
      accounts.push(account.id);
      const owner = (await liveOwner(db, account.tokenId))!;
      const { endpoint } = await registerEndpoint(db, config, webhookTargets, owner, {
        url: `${base}/hook-${n}`,
        network: "regtest",
        event: "newBlock",
        args: {},
      });
      await db.query(
        "INSERT INTO webhook_messages(id, endpoint_id, event_id, payload) VALUES ($1, $2, 'e', '{}')",
        [`msg_stopping_${n}`, endpoint.id],
      );
    }
    // One batch of three jobs: the first POST is held by the receiver, the others wait a slot.
    await client.query(
      `INSERT INTO ${t.schema}_jobs.job (name, data)
       SELECT $1, jsonb_build_object('messageId', 'msg_stopping_' || n) FROM generate_series(1, 3) n`,
      [DELIVERIES],
    );
    await vi.waitFor(() => expect(paths).toHaveLength(1), { timeout: 10_000, interval: 20 });
    const closing = t.gateway.close();
    const deliveries = (t.gateway.webhooks as unknown as { deliveries: { stopped: boolean } })
      .deliveries;
    await vi.waitFor(() => expect(deliveries.stopped).toBe(true), { timeout: 10_000 });
    release();
    await closing;

    expect(paths).toHaveLength(1);
    const { rows } = await client.query<{ status: string; result: string; error: string | null }>(
      `SELECT m.status, a.result, a.error FROM ${t.schema}.webhook_messages m
       JOIN ${t.schema}.webhook_attempts a ON a.message_id = m.id
       WHERE m.id LIKE 'msg_stopping_%' ORDER BY m.status, m.id`,
    );
    expect(rows).toEqual([
      { status: "delivered", result: "delivered", error: null },
      { status: "pending", result: "retry", error: "not sent: the gateway is stopping" },
      { status: "pending", result: "retry", error: "not sent: the gateway is stopping" },
    ]);
    const { rows: charged } = await client.query<{ n: number; cc: number }>(
      `SELECT count(*)::int AS n, coalesce(sum(charged_cc), 0)::int AS cc
       FROM ${t.schema}.audit_records WHERE account_id = ANY($1::bigint[])`,
      [accounts],
    );
    expect(charged).toEqual([{ n: 3, cc: 5 }]);
  } finally {
    release();
    await new Promise((resolve) => receiver.close(resolve));
    await t.devnet.close();
    await client.query(`DROP SCHEMA IF EXISTS ${t.schema} CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS ${t.schema}_jobs CASCADE`);
    await client.end();
  }
});
