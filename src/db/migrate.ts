import { readdirSync, readFileSync } from "node:fs";
import { projectPath } from "../util/paths.ts";
import { lostCreateRace } from "./concurrent-create.ts";
import type { Database } from "./database.ts";

const MIGRATIONS_DIR = `${projectPath("src", "db", "migrations")}/`;

/** Applies the migrations not yet applied, in file-name order, each in its own transaction. */
export async function migrate(db: Database): Promise<string[]> {
  try {
    await db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`);
  } catch (err) {
    // Processes starting together on an empty schema: the table exists, all this wanted.
    if (!lostCreateRace(err)) throw err;
  }
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith(".sql"))
    .sort();
  const applied: string[] = [];
  for (const name of files) {
    const sql = readFileSync(MIGRATIONS_DIR + name, "utf8");
    const done = await db.transaction(async (tx) => {
      // Several gateway processes may start at once against one PostgreSQL: one migrates, the
      // others wait on the lock and then see the row.
      if (db.kind === "postgres") await tx.query("SELECT pg_advisory_xact_lock(7001001)");
      const seen = await tx.query("SELECT 1 FROM schema_migrations WHERE name = $1", [name]);
      if (seen.rows.length > 0) return false;
      for (const statement of splitStatements(sql)) await tx.query(statement);
      await tx.query("INSERT INTO schema_migrations(name) VALUES ($1)", [name]);
      return true;
    });
    if (done) applied.push(name);
  }
  return applied;
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
