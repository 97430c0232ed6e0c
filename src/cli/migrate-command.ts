import type { Config } from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import { migrate } from "../db/migrate.ts";
import { loadMigrations, type Migration } from "../db/migration-files.ts";
import {
  type AppliedMigration,
  appliedMigrations,
  assertServes,
  compareSchema,
  SchemaMismatch,
} from "../db/schema-state.ts";
import type { CommandOutput, DbCommand, Values } from "./db-command.ts";
import type { View } from "./view.ts";

/** What `blockgate migrate --json` prints: the same keys from one release to the next. */
interface MigrateResult {
  database: string;
  applied: { name: string; kind: string }[];
  /** The last migration the database has, and how many it has. */
  latest: string | null;
  migrations: number;
  /** Migrations a newer version applied, which this one does not carry. */
  ahead: { name: string; kind: string | null }[];
  /** Whether this version may serve the schema as it now is. */
  compatible: boolean;
}

/**
 * `blockgate migrate`: the schema brought to this version's, as a one-shot job before a rolling
 * upgrade; gateways with `database.migrate: false` then only check it.
 */
export const MIGRATE_COMMANDS: Record<string, DbCommand> = {
  migrate: {
    summary: "apply this version's database migrations, and say which",
    usage: "",
    operands: [],
    options: [],
    json: true,
    leavesSchema: true,
    examples: ["migrate", "DATABASE_URL=postgres://… blockgate migrate --json"],
    async run({ db, config }, _args, values) {
      return runMigrate(db, config, values);
    },
  },
};

async function runMigrate(db: Database, config: Config, values: Values): Promise<CommandOutput> {
  const applied = await migrate(db);
  const recorded = await appliedMigrations(db);
  const state = compareSchema(loadMigrations(), recorded);
  let refusal: string | null = null;
  try {
    assertServes(state, false);
  } catch (err) {
    if (!(err instanceof SchemaMismatch)) throw err;
    refusal = err.message;
  }
  const result: MigrateResult = {
    database:
      db.kind === "postgres"
        ? `PostgreSQL (${db.namespace})`
        : `PGlite in ${config.database.pgliteDir}`,
    applied: applied.map(({ name, kind }) => ({ name, kind })),
    latest: recorded.at(-1)?.name ?? null,
    migrations: recorded.length,
    ahead: state.ahead,
    compatible: refusal === null,
  };
  const code = refusal === null ? 0 : 1;
  if (values.json) return { text: JSON.stringify(result, null, 2), code };
  const { text, view } = described(result, applied, state.ahead);
  if (refusal !== null) return { text: `${text}\n${refusal}`, code };
  return { text, code, view };
}

/** The result as lines for a pipe (tab-separated rows) and as a view for a terminal. */
function described(
  result: MigrateResult,
  applied: readonly Migration[],
  ahead: readonly AppliedMigration[],
): { text: string; view: View } {
  const head =
    applied.length === 0
      ? `nothing to apply to ${result.database}: the schema is up to date`
      : `applied ${applied.length} migration${applied.length === 1 ? "" : "s"} to ${result.database}:`;
  const at = `schema at ${result.latest ?? "nothing"} (${result.migrations} migrations)`;
  const beyond =
    ahead.length === 0
      ? []
      : [
          `${ahead.length} applied by a newer version, not carried by this one: ${ahead.map((m) => `${m.name} (${m.kind ?? "kind not recorded"})`).join(", ")}`,
        ];
  const rows = applied.map((m) => `${m.name}\t${m.kind}`);
  const table = {
    columns: [{ header: "migration" }, { header: "kind" }],
    rows: applied.map((m) => [m.name, m.kind]),
    empty: "",
  };
  return {
    text: [head, ...rows, at, ...beyond].join("\n"),
    view: { parts: [head, ...(applied.length > 0 ? [{ table }] : []), at, ...beyond] },
  };
}
