// Built by `npm run build` from src/ (scripts/build.mjs); do not edit.

// src/db/postgres.ts
import pg from "pg";
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
async function openPostgres(opts) {
  const pool = new pg.Pool({
    connectionString: opts.connectionString,
    max: opts.poolSize,
    ...opts.schema ? { options: `-c search_path=${opts.schema}` } : {}
  });
  pool.on("error", () => {
  });
  if (opts.schema) {
    if (!/^[a-z_][a-z0-9_]*$/.test(opts.schema)) throw new Error("schema: lowercase identifier");
    await pool.query(`CREATE SCHEMA IF NOT EXISTS ${opts.schema}`);
  }
  const queryable = (client) => ({
    async query(sql, params) {
      const res = await client.query(sql, params);
      return { rows: res.rows };
    }
  });
  return {
    kind: "postgres",
    ...queryable(pool),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        const out = await fn(queryable(client));
        await client.query("COMMIT");
        return out;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {
        });
        throw err;
      } finally {
        client.release();
      }
    },
    async exec(sql) {
      await pool.query(sql);
    },
    async close() {
      await pool.end();
    }
  };
}
export {
  openPostgres
};
