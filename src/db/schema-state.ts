import type { Queryable } from "./database.ts";
import type { Migration } from "./migration-files.ts";

/** A migration as the database recorded it; `kind` is null where it was recorded without one. */
export interface AppliedMigration {
  name: string;
  kind: string | null;
}

/** How the database's schema stands to the migrations this build carries. */
export interface SchemaState {
  /** Migrations of this build not applied: the schema is older than this code needs. */
  missing: string[];
  /** Applied migrations this build does not know: a newer build applied them. */
  ahead: AppliedMigration[];
  /** Those of `ahead` that may break this code: not declared `expand`. */
  breaking: AppliedMigration[];
}

/**
 * What the database says it applied, read without writing: no table is an empty schema, and a
 * table without the kind column (made by a build before kinds) gives null kinds.
 */
export async function appliedMigrations(db: Queryable): Promise<AppliedMigration[]> {
  const { rows: table } = await db.query<{ present: boolean }>(
    "SELECT to_regclass('schema_migrations') IS NOT NULL AS present",
  );
  if (!table[0]?.present) return [];
  // The row as JSON reads `kind` whether or not the column exists.
  const { rows } = await db.query<AppliedMigration>(
    "SELECT name, to_jsonb(m) ->> 'kind' AS kind FROM schema_migrations m ORDER BY name",
  );
  return rows;
}

/**
 * Compares the database with this build. A newer schema serves this code when every migration
 * beyond it is an expand: the rule an older build applies to what it cannot read the files of.
 * An unknown or absent kind counts as breaking, as nothing says it is safe.
 */
export function compareSchema(known: readonly Migration[], applied: readonly AppliedMigration[]) {
  const appliedNames = new Set(applied.map((m) => m.name));
  const knownNames = new Set(known.map((m) => m.name));
  const ahead = applied.filter((m) => !knownNames.has(m.name));
  return {
    missing: known.filter((m) => !appliedNames.has(m.name)).map((m) => m.name),
    ahead,
    breaking: ahead.filter((m) => m.kind !== "expand"),
  } satisfies SchemaState;
}

/** The schema does not serve this build; the message says what to run. */
export class SchemaMismatch extends Error {}

/**
 * Throws unless this build may serve the schema: nothing of its own missing (else "run blockgate
 * migrate") and nothing beyond it but expand migrations (else a newer build's contract removed
 * or changed what this code uses).
 */
export function assertServes(state: SchemaState, migrateOff: boolean): void {
  if (state.missing.length > 0) {
    const how = migrateOff ? "database.migrate is false: " : "";
    throw new SchemaMismatch(
      `the database schema is older than this version needs (${list(state.missing)} not applied); ${how}run blockgate migrate`,
    );
  }
  if (state.breaking.length > 0) {
    const named = state.breaking.map((m) => `${m.name} (${m.kind ?? "kind not recorded"})`);
    const one = state.breaking.length === 1;
    const what = one ? "is not an expand migration" : "are not expand migrations";
    throw new SchemaMismatch(
      `the database schema is newer than this version and not compatible with it: ${list(named)} applied by a newer version ${what}; run a version that knows ${one ? "it" : "them"}`,
    );
  }
}

/** The first few of a list, and how many more. */
function list(items: readonly string[]): string {
  const shown = items.slice(0, 3).join(", ");
  return items.length > 3 ? `${shown} and ${items.length - 3} more` : shown;
}
