import type { Database } from "./database.ts";
import { migrate } from "./migrate.ts";

export interface OpenOptions {
  /** PostgreSQL when set; embedded PGlite otherwise. */
  databaseUrl?: string | undefined;
  pgliteDir: string;
  /** A migrated PGlite data-dir tarball to start a `memory://` database from (tests). */
  pgliteSnapshot?: string | undefined;
  poolSize: number;
  schema?: string;
}

/**
 * Opens the configured store and brings its schema up to date (also when it started from a
 * snapshot: then there is nothing left to apply, but correctness never depends on the snapshot).
 */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  // Each driver is loaded only when used: a PostgreSQL deployment never compiles PGlite's
  // WebAssembly module loader, and an embedded start does not load pg.
  const db = opts.databaseUrl
    ? await (await import("./postgres.ts")).openPostgres({
        connectionString: opts.databaseUrl,
        poolSize: opts.poolSize,
        ...(opts.schema ? { schema: opts.schema } : {}),
      })
    : await (await import("./pglite.ts")).openPglite(opts.pgliteDir, {
        fromSnapshot: opts.pgliteSnapshot,
      });
  try {
    await migrate(db);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}
