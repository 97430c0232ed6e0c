import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { MIGRATIONS_DIR } from "../../src/db/migration-files.ts";

/** A later build's own migration: one table of its own and a nullable column on the audit log. */
export const EXPAND_SQL = `-- migration: expand
CREATE TABLE upgrade_notes (id bigserial PRIMARY KEY, note text);
ALTER TABLE audit_records ADD COLUMN region text;
`;

/** A later build's contract: it removes what its expand added, as a release after it would. */
export const CONTRACT_SQL = `-- migration: contract
DROP TABLE upgrade_notes;
`;

/**
 * The migrations directory of a later build: this build's files and `extra` (file name to SQL),
 * for the migrator to apply as that build would. The folders go when the test file ends.
 */
export function laterBuilds() {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return (extra: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), "bg-migrations-"));
    dirs.push(dir);
    cpSync(MIGRATIONS_DIR, dir, { recursive: true });
    for (const [name, sql] of Object.entries(extra)) writeFileSync(join(dir, name), sql);
    return dir;
  };
}
