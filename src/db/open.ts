import { builtSnapshot } from "./built-snapshot.ts";
import type { Database } from "./database.ts";
import { migrate } from "./migrate.ts";
import { loadMigrations, MIGRATIONS_DIR } from "./migration-files.ts";
import { appliedMigrations, assertServes, compareSchema } from "./schema-state.ts";

/**
 * What opening does to the schema: `apply` migrates it (config `database.migrate`, the default);
 * `check` only reads it, and refuses a schema this build cannot serve; `leave` neither
 * (`blockgate migrate`, which reports what it does itself).
 */
export type SchemaPolicy = "apply" | "check" | "leave";

export interface OpenOptions {
  /** PostgreSQL when set; embedded PGlite otherwise. */
  databaseUrl?: string | undefined;
  pgliteDir: string;
  /**
   * A migrated PGlite data-dir tarball a new store starts from (tests: `memory://` stores);
   * without it a new folder starts from the build's, when the build has one for these migrations.
   */
  pgliteSnapshot?: string | Blob | undefined;
  poolSize: number;
  schema?: string;
  /** Default `apply`. */
  migrations?: SchemaPolicy;
  /** Where the migrations are (default: this build's); tests stand in a later build's. */
  migrationsDir?: string | undefined;
}

/**
 * Opens the configured store and brings its schema up to date (also when it started from a
 * snapshot: then there is nothing left to apply, but correctness never depends on the snapshot),
 * or checks it serves this build.
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
        fromSnapshot: opts.pgliteSnapshot ?? builtSnapshot(opts.migrationsDir ?? MIGRATIONS_DIR),
      });
  try {
    await prepareSchema(db, opts.migrations ?? "apply", opts.migrationsDir ?? MIGRATIONS_DIR);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

/**
 * Migrates (or not) and then checks: even a build that migrates refuses a schema a newer build
 * contracted, which it would not fail on until some query did.
 */
async function prepareSchema(db: Database, policy: SchemaPolicy, dir: string): Promise<void> {
  if (policy === "leave") return;
  if (policy === "apply") await migrate(db, dir);
  assertServes(compareSchema(loadMigrations(dir), await appliedMigrations(db)), policy === "check");
}
