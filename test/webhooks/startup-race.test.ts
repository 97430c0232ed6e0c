import { randomBytes } from "node:crypto";
import pg from "pg";
import { expect, it } from "vitest";
import { openDatabase } from "../../src/db/open.ts";
import { openQueue } from "../../src/webhooks/queue.ts";
import { POSTGRES_URL } from "../support/harness.ts";

/**
 * Processes of one deployment start together on an empty database (replicas rolled out at once):
 * each creates the schema, migrates and installs pg-boss's tables. `IF NOT EXISTS` is not safe
 * against a concurrent CREATE, so without care the slower process fails to start.
 */
it("two processes opening a new PostgreSQL schema at once both start: store, migrations and job queue", async () => {
  const schema = `race_${randomBytes(4).toString("hex")}`;
  const open = () =>
    openDatabase({ databaseUrl: POSTGRES_URL, pgliteDir: "", poolSize: 4, schema });
  const dbs = await Promise.all([open(), open()]);
  try {
    const queues = await Promise.all(dbs.map((db) => openQueue(db)));
    for (const { boss, queueDb } of queues) {
      await boss.stop({ graceful: false, close: false, wait: true });
      await queueDb.close();
    }
    const { rows } = await dbs[0]!.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM schema_migrations",
    );
    expect(rows[0]!.n).toBeGreaterThan(0);
  } finally {
    await Promise.all(dbs.map((db) => db.close()));
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
    await client.end();
  }
});
