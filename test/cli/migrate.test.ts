import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLine, runDbCommand } from "../../src/cli/commands.ts";
import { renderView } from "../../src/cli/view.ts";
import { parseConfig } from "../../src/config/load.ts";
import type { Database } from "../../src/db/database.ts";
import { migrate } from "../../src/db/migrate.ts";
import { loadMigrations } from "../../src/db/migration-files.ts";
import { openDatabase } from "../../src/db/open.ts";
import { POSTGRES_URL } from "../support/harness.ts";
import { CONTRACT_SQL, EXPAND_SQL, laterBuilds } from "../support/migrations.ts";

/**
 * `blockgate migrate` as the CLI and a PGlite gateway run it (one schema of PostgreSQL, made
 * here and left empty for the command): what it prints for a pipe, a terminal and --json, and
 * its exit codes. test/e2e/rolling-upgrade.test.ts runs it as a process.
 */
const schema = `cm_${randomBytes(5).toString("hex")}`;
const config = parseConfig({ networks: ["regtest"] });
const laterBuild = laterBuilds();
const own = loadMigrations();
const last = own.at(-1)!.name;
let db: Database;

beforeAll(async () => {
  db = await openDatabase({
    ...{ databaseUrl: POSTGRES_URL, schema, pgliteDir: "", poolSize: 2 },
    migrations: "leave",
  });
});
afterAll(async () => {
  await db.close();
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

const run = (...argv: string[]) => runDbCommand(db, ["migrate", ...argv], config);
const json = async (...argv: string[]) => {
  const out = await run("--json", ...argv);
  return { code: out.code, json: JSON.parse(out.text) as unknown };
};

describe("blockgate migrate", () => {
  it("prints what it applied: a line each for a pipe, a table on a terminal, then nothing left", async () => {
    const first = await run();
    expect(first.code).toBe(0);
    const head = `applied ${own.length} migrations to PostgreSQL (test.${schema}):`;
    expect(first.text.split("\n")).toEqual([
      head,
      ...own.map((m) => `${m.name}\texpand`),
      `schema at ${last} (${own.length} migrations)`,
    ]);
    const screen = renderView(first.view!, false).split("\n");
    expect(screen[0]).toBe(head);
    expect(screen[1]).toMatch(/^migration +kind$/);
    expect(screen[2]).toMatch(/^001_ledger\.sql +expand$/);

    expect(await json()).toEqual({
      code: 0,
      json: {
        database: `PostgreSQL (test.${schema})`,
        applied: [],
        latest: last,
        migrations: own.length,
        ahead: [],
        compatible: true,
      },
    });
    expect((await run()).text.split("\n")[0]).toBe(
      `nothing to apply to PostgreSQL (test.${schema}): the schema is up to date`,
    );
  });

  it("names what a newer version applied: expand serves this version (exit 0), a contract does not (exit 1)", async () => {
    await migrate(db, laterBuild({ "990_upgrade_notes.sql": EXPAND_SQL }));
    const ahead = await run();
    expect(ahead.code).toBe(0);
    expect(ahead.text).toContain(
      "1 applied by a newer version, not carried by this one: 990_upgrade_notes.sql (expand)",
    );
    expect((await json()).json).toMatchObject({
      latest: "990_upgrade_notes.sql",
      ahead: [{ name: "990_upgrade_notes.sql", kind: "expand" }],
      compatible: true,
    });

    await migrate(
      db,
      laterBuild({ "990_upgrade_notes.sql": EXPAND_SQL, "991_notes_gone.sql": CONTRACT_SQL }),
    );
    const refused = await run();
    expect(refused.code).toBe(1);
    expect(refused.text.split("\n").at(-1)).toBe(
      "the database schema is newer than this version and not compatible with it: 991_notes_gone.sql (contract) applied by a newer version is not an expand migration; run a version that knows it",
    );
    expect(await json()).toMatchObject({ code: 1, json: { compatible: false } });
  });

  it("its own mistakes: one line, its usage, exit 2", () => {
    for (const [argv, line] of [
      [["migrate", "now"], 'blockgate migrate: unexpected argument "now"'],
      [["migrate", "--dry-run"], "blockgate migrate: unknown option --dry-run"],
    ] as const) {
      const parsed = parseLine(argv);
      expect("out" in parsed && parsed.out.code).toBe(2);
      const text = "out" in parsed ? parsed.out.text.split("\n") : [];
      expect(text.slice(0, 2)).toEqual([line, "usage: blockgate migrate"]);
    }
  });
});
