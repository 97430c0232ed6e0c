import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { projectPath } from "../util/paths.ts";

/** The migrations this build carries: `NNN_title.sql`, applied in file-name order. */
export const MIGRATIONS_DIR = projectPath("src", "db", "migrations");

/**
 * What a migration does to code that ran before it (docs/decisions, "expand and contract"):
 * `expand` only adds (tables, nullable or defaulted columns, indexes), so older code keeps working
 * on the schema; `contract` removes, renames or tightens, so older code may break.
 */
export type MigrationKind = "expand" | "contract";

export interface Migration {
  name: string;
  kind: MigrationKind;
  sql: string;
}

/** The declaration each file carries on a line of its own: `-- migration: expand`. */
const DECLARATION = /^--\s*migration:\s*(\S+)\s*$/gm;

/** The file's declared kind; a file that declares none, or another word, is refused. */
export function kindOf(name: string, sql: string): MigrationKind {
  const declared = [...sql.matchAll(DECLARATION)].map((m) => m[1]);
  if (declared.length !== 1 || (declared[0] !== "expand" && declared[0] !== "contract")) {
    throw new Error(
      `migration ${name}: declare its kind once, on a line "-- migration: expand" or "-- migration: contract"`,
    );
  }
  return declared[0];
}

/** Every migration in `dir`, in the order they apply, each with its declared kind. */
export function loadMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name), "utf8");
      return { name, kind: kindOf(name, sql), sql };
    });
}
