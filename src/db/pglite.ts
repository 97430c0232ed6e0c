import { mkdirSync } from "node:fs";
import { PGlite, types } from "@electric-sql/pglite";
import type { Database, Queryable } from "./database.ts";

/** Embedded PostgreSQL (WebAssembly): a folder on disk, or `memory://` for tests. */
export async function openPglite(dataDir: string): Promise<Database> {
  if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir, {
    // Same numbers as the pg driver gives: int8 as a JS number (all our values fit in 2^53).
    parsers: { [types.INT8]: (v: string) => Number(v) },
  });
  const queryable = (q: Pick<PGlite, "query">): Queryable => ({
    async query<R extends object>(sql: string, params?: readonly unknown[]) {
      const res = await q.query<R>(sql, params as unknown[] | undefined);
      return { rows: res.rows };
    },
  });
  return {
    kind: "pglite",
    ...queryable(db),
    // PGlite is one connection: its transactions run one at a time, which is what makes them safe.
    transaction: (fn) => db.transaction((tx) => fn(queryable(tx))),
    async exec(sql: string) {
      await db.exec(sql);
    },
    async close() {
      await db.close();
    },
  };
}
