import { expect, it } from "vitest";
import { openDatabase } from "../../src/db/open.ts";
import { QueueDb } from "../../src/webhooks/queue.ts";
import { POSTGRES_URL } from "../support/harness.ts";

/**
 * pg-boss sends a finished job's `complete` without awaiting it, so at shutdown one of its
 * statements could reach the store after the gateway closed it: an unhandled "Cannot use a pool
 * after calling end". The queue's way into the store waits for what is on its way, then drops.
 */
it("shutting the queue's database waits for its statements on their way, then drops new ones", async () => {
  const db = await openDatabase({ databaseUrl: POSTGRES_URL, pgliteDir: "", poolSize: 2 });
  const queueDb = new QueueDb(db);
  const order: string[] = [];
  const slow = queueDb
    .executeSql("SELECT pg_sleep(0.2), 1 AS one", [])
    .then((r) => order.push(`answered ${(r.rows[0] as { one: number }).one}`));
  await queueDb.close().then(() => order.push("shut"));
  await slow;
  expect(order).toEqual(["answered 1", "shut"]);
  await db.close();
  // The store is closed: a statement pg-boss sends now never reaches it, and nothing rejects.
  // The result has no rows, which pg-boss reads as nothing fetched (`rows || []`) and nothing
  // completed (`rows ? rows[0].count : 0`): an empty list of rows would throw in the latter.
  await expect(queueDb.executeSql("SELECT 1", [])).resolves.not.toHaveProperty("rows");
});
