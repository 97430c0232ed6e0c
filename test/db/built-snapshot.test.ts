import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { builtSnapshot } from "../../src/db/built-snapshot.ts";
import { loadMigrations, MIGRATIONS_DIR } from "../../src/db/migration-files.ts";
import { openDatabase } from "../../src/db/open.ts";
import { fundedAccount } from "../support/ledger.ts";
import { EXPAND_SQL, laterBuilds } from "../support/migrations.ts";

/**
 * A new PGlite folder starts from the migrated data dir `npm run build` made (the suite's global
 * setup builds dist/) instead of running initdb; a folder with a database opens as it is.
 */
const dir = mkdtempSync(join(tmpdir(), "bg-built-snapshot-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const laterBuild = laterBuilds();

const open = (pgliteDir: string) => openDatabase({ pgliteDir, poolSize: 1 });

describe("a new PGlite folder", () => {
  it("starts migrated from the build's snapshot, and keeps what it is given across reopens", async () => {
    expect(builtSnapshot(MIGRATIONS_DIR)).toBeDefined();
    const opened = new Date();
    const folder = join(dir, "db");
    const db = await open(folder);
    const rows = await db.query<{ name: string; applied_at: Date }>(
      "SELECT name, applied_at FROM schema_migrations ORDER BY name",
    );
    expect(rows.rows.map((r) => r.name)).toEqual(loadMigrations().map((m) => m.name));
    // Applied when the build made the snapshot, not by this open.
    for (const r of rows.rows) expect(r.applied_at.getTime()).toBeLessThan(opened.getTime());
    const { id } = await fundedAccount(db, "kept", 700);
    await db.close();

    // The folder now holds a database: reopened as it is, never replaced by the snapshot.
    const again = await open(folder);
    const kept = await again.query<{ id: number }>("SELECT id FROM accounts WHERE name = 'kept'");
    expect(kept.rows).toEqual([{ id }]);
    await again.close();
  });

  it("of a build with other migrations has no snapshot of this build's to start from", () => {
    expect(builtSnapshot(laterBuild({ "990_upgrade_notes.sql": EXPAND_SQL }))).toBeUndefined();
  });
});
