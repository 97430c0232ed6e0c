import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { kindOf, loadMigrations } from "../../src/db/migration-files.ts";
import { openDatabase, type SchemaPolicy } from "../../src/db/open.ts";
import { POSTGRES_URL } from "../support/harness.ts";
import { CONTRACT_SQL, EXPAND_SQL, laterBuilds } from "../support/migrations.ts";

/**
 * The migrator and the start-up check on PostgreSQL, a schema per test: migrations recorded with
 * their kinds, and which schemas a build serves without migrating (docs/operators/migrations.md).
 */
const schemas: string[] = [];
const opened: Database[] = [];
const laterBuild = laterBuilds();

afterAll(async () => {
  for (const db of opened) await db.close();
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

/** Opens `schema` (a new one by default) as a start would with `migrations`, from `dir`'s build. */
async function open(migrations: SchemaPolicy, schema = newSchema(), dir?: string) {
  const db = await openDatabase({
    databaseUrl: POSTGRES_URL,
    schema,
    pgliteDir: "",
    poolSize: 2,
    migrations,
    migrationsDir: dir,
  });
  opened.push(db);
  return { db, schema };
}

function newSchema(): string {
  const schema = `mg_${randomBytes(5).toString("hex")}`;
  schemas.push(schema);
  return schema;
}

const recorded = async (db: Database) =>
  (
    await db.query<{ name: string; kind: string | null }>(
      "SELECT name, kind FROM schema_migrations ORDER BY name",
    )
  ).rows;

describe("migration files", () => {
  it("each of this build's declares its kind; a file that does not is refused by name", () => {
    const own = loadMigrations();
    expect(own.length).toBeGreaterThan(0);
    for (const m of own) expect(m.name).toMatch(/^\d{3}_[a-z0-9_]+\.sql$/);
    expect(new Set(own.map((m) => m.kind))).toEqual(new Set(["expand"]));
    expect(kindOf("x.sql", "-- note\n-- migration: contract\nDROP TABLE t;")).toBe("contract");
    for (const sql of [
      "CREATE TABLE t ();",
      "-- migration: shrink",
      "-- migration: expand\n-- migration: expand",
    ]) {
      expect(() => kindOf("020_bad.sql", sql)).toThrow(/migration 020_bad\.sql: declare its kind/);
    }
  });
});

describe("migrate and the start-up check (PostgreSQL)", () => {
  it("records each migration with its kind; a second run applies nothing", async () => {
    const { db } = await open("leave");
    const applied = await migrate(db);
    expect(applied.map((m) => m.name)).toEqual(loadMigrations().map((m) => m.name));
    expect(await recorded(db)).toEqual(applied.map(({ name, kind }) => ({ name, kind })));
    expect(await migrate(db)).toEqual([]);
  });

  it("a start that only checks refuses an empty or an older schema, naming what is missing", async () => {
    const { schema } = await open("leave");
    await expect(open("check", schema)).rejects.toThrow(
      /schema is older than this version needs \(001_ledger\.sql, .* and \d+ more not applied\); database\.migrate is false: run blockgate migrate/,
    );
    const own = loadMigrations();
    const last = own.at(-1)!.name;
    const { db } = await open("leave", schema);
    // The build before this one: every file but the last.
    const earlier = laterBuild({});
    rmSync(join(earlier, last));
    await migrate(db, earlier);
    await expect(open("check", schema)).rejects.toThrow(
      `older than this version needs (${last} not applied)`,
    );
    // A start that migrates brings it up to date, and then one that checks is served.
    await open("apply", schema);
    await open("check", schema);
  });

  it("a newer schema serves this build while all beyond it are expand; a contract one is refused, also by a build that migrates", async () => {
    const { db, schema } = await open("apply");
    const next = laterBuild({ "990_upgrade_notes.sql": EXPAND_SQL });
    expect((await migrate(db, next)).map((m) => m.name)).toEqual(["990_upgrade_notes.sql"]);
    await open("check", schema);
    await open("apply", schema);
    // The next build's own view of it: up to date.
    await open("check", schema, next);

    const after = laterBuild({
      "990_upgrade_notes.sql": EXPAND_SQL,
      "991_notes_gone.sql": CONTRACT_SQL,
    });
    await migrate(db, after);
    const refusal =
      "the database schema is newer than this version and not compatible with it: 991_notes_gone.sql (contract) applied by a newer version is not an expand migration; run a version that knows it";
    await expect(open("check", schema)).rejects.toThrow(refusal);
    await expect(open("apply", schema)).rejects.toThrow(refusal);
    // The build that carries the contract serves it; the one between (expand only) does not.
    await open("check", schema, after);
    await expect(open("check", schema, next)).rejects.toThrow("991_notes_gone.sql (contract)");
  });

  it("a table from before kinds were recorded: checked as it is, its kinds filled in by the next migrate", async () => {
    const { db, schema } = await open("apply");
    await db.query("ALTER TABLE schema_migrations DROP COLUMN kind");
    await open("check", schema);
    // A migration nothing says is safe counts as breaking.
    await db.query("INSERT INTO schema_migrations(name) VALUES ('990_unknown.sql')");
    await expect(open("check", schema)).rejects.toThrow("990_unknown.sql (kind not recorded)");
    await db.query("DELETE FROM schema_migrations WHERE name = '990_unknown.sql'");
    expect(await migrate(db)).toEqual([]);
    expect(new Set((await recorded(db)).map((m) => m.kind))).toEqual(new Set(["expand"]));
  });
});
