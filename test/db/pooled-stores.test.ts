import { expect, it } from "vitest";
import type { Database } from "../../src/db/database.ts";
import { startTestGateway } from "../support/harness.ts";

/** The rows of the tables a new store holds rows in, and the store's transaction counter. */
async function seen(db: Database) {
  const rows = async (table: string) =>
    (await db.query(`SELECT * FROM ${table} ORDER BY 1`)).rows as unknown[];
  const { rows: txid } = await db.query<{ xid: string }>("SELECT txid_current()::text AS xid");
  return {
    xid: BigInt(txid[0]!.xid),
    rows: {
      migrations: await rows("schema_migrations"),
      version: await rows("public_jobs.version"),
      queue: await rows("public_jobs.queue"),
    },
  };
}

// The pool (test/support/pglite-pool.ts) refills a table that holds rows in a new store only
// when it was written to: a row changed in place, one deleted or one added must each be undone.
it("a pooled store written to in its tables with rows comes back as new", async () => {
  // Reset once already: a store's first reset refills those tables whatever they hold.
  await (await startTestGateway()).close();
  const first = await startTestGateway();
  const before = await seen(first.gateway.app.db);
  await first.gateway.app.db.exec(
    `UPDATE schema_migrations SET kind = 'changed' WHERE name = (SELECT min(name) FROM schema_migrations);
     DELETE FROM public_jobs.version;
     INSERT INTO schema_migrations(name, kind) VALUES ('999_added', 'expand')`,
  );
  await first.close();
  const second = await startTestGateway();
  try {
    const after = await seen(second.gateway.app.db);
    // The same store again (its transactions went on counting), with the rows of a new one.
    expect(after.xid).toBeGreaterThan(before.xid);
    expect(after.rows).toEqual(before.rows);
  } finally {
    await second.close();
  }
});
