import pg from "pg";
import type { Database, Queryable } from "./database.ts";

// int8 columns hold credits and ids; every value we store fits in 2^53, so parse them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface PostgresOptions {
  connectionString: string;
  poolSize: number;
  /** A schema to work in (created if missing); tests use one per file so they can run in parallel. */
  schema?: string;
}

export async function openPostgres(opts: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.poolSize,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
  });
  // An idle client's network error must not crash the process; the pool replaces the client.
  pool.on("error", () => {});
  if (opts.schema) {
    if (!/^[a-z_][a-z0-9_]*$/.test(opts.schema)) throw new Error("schema: lowercase identifier");
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${opts.schema}`);
  }
  const queryable = (client: pg.Pool | pg.PoolClient): Queryable => ({
    async query<R extends object>(sql: string, params?: readonly unknown[]) {
      const res = await client.query(sql, params as unknown[] | undefined);
      return { rows: res.rows as R[] };
    },
  });
  return {
    kind: "postgres",
    ...queryable(pool),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const out = await fn(queryable(client));
        await client.query("COMMIT");
        return out;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    async close() {
      await pool.end();
    },
  };
}
