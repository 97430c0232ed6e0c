import { lostCreateRace } from "./concurrent-create.ts";
import type { Database, Queryable } from "./database.ts";
import { loadMigrations, MIGRATIONS_DIR, type Migration } from "./migration-files.ts";

/** Held by whoever changes the schema: processes starting together take turns. */
const MIGRATION_LOCK = 7001001;

/**
 * Applies the migrations of `dir` not yet applied, in file-name order, each in its own
 * transaction, and records each with its kind. Returns those it applied.
 */
export async function migrate(db: Database, dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  const migrations = loadMigrations(dir);
  await ensureMigrationsTable(db, migrations);
  const applied: Migration[] = [];
  for (const migration of migrations) {
    const done = await db.transaction(async (tx) => {
      // Several gateway processes may start at once against one PostgreSQL: one migrates, the
      // others wait on the lock and then see the row.
      await lock(db, tx);
      const seen = await tx.query("SELECT 1 FROM schema_migrations WHERE name = $1", [
        migration.name,
      ]);
      if (seen.rows.length > 0) return false;
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await tx.query("INSERT INTO schema_migrations(name, kind) VALUES ($1, $2)", [
        migration.name,
        migration.kind,
      ]);
      return true;
    });
    if (done) applied.push(migration);
  }
  return applied;
}

const lock = async (db: Database, tx: Queryable) => {
  if (db.kind === "postgres") await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`);
};

/**
 * The table of applied migrations, with the kind of each: an older build reads there what a
 * newer one applied, since it has not the files. Rows written before kinds were recorded get
 * theirs from this build's files.
 */
async function ensureMigrationsTable(db: Database, migrations: readonly Migration[]) {
  try {
    await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), kind text)`);
  } catch (err) {
    // Processes starting together on an empty schema: the table exists, all this wanted.
    if (!lostCreateRace(err)) throw err;
  }
  await db.transaction(async (tx) => {
    await lock(db, tx);
    await tx.query("ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS kind text");
    await tx.query(
      `UPDATE schema_migrations m SET kind = k.kind
       FROM unnest($1::text[], $2::text[]) AS k(name, kind)
       WHERE m.name = k.name AND m.kind IS NULL`,
      [migrations.map((m) => m.name), migrations.map((m) => m.kind)],
    );
  });
}

/** Splits on `;` at line ends, keeping `$$ … $$` bodies whole (one statement per query call). */
function splitStatements(sql: string): string[] {
  const out: string[] = [];
  let current = "";
  let inDollar = false;
  for (const line of sql.split("\n")) {
    if (line.trimStart().startsWith("--") && !inDollar) continue;
    current += `${line}\n`;
    if ((line.match(/\$\$/g) ?? []).length % 2 === 1) inDollar = !inDollar;
    if (!inDollar && line.trimEnd().endsWith(";")) {
      out.push(current.trim());
      current = "";
    }
  }
  if (current.trim() !== "") out.push(current.trim());
  return out;
}
