import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { builtSnapshot } from "../../src/db/built-snapshot.ts";
import { MIGRATIONS_DIR } from "../../src/db/migration-files.ts";
import { writeMigratedSnapshot } from "../../src/db/snapshot.ts";

const CACHE_DIR = fileURLToPath(
  new URL("../../node_modules/.cache/blockgate-pglite/", import.meta.url),
);
const DB_DIR = fileURLToPath(new URL("../../src/db/", import.meta.url));
const PGLITE_PACKAGE = new URL(
  "../../node_modules/@electric-sql/pglite/package.json",
  import.meta.url,
);

/**
 * The migrated PGlite snapshot every in-memory store of a run starts from, kept between runs:
 * initdb and the migrations take seconds that every worker would wait for. It is named for
 * what it is made from (src/db/, the migrations with it, and PGlite's version), so any change
 * to those makes a new one. Worktrees share node_modules and may differ in src/db/, so another
 * snapshot is removed only once it has gone unused for days.
 */
export async function migratedSnapshot(): Promise<string> {
  const file = join(CACHE_DIR, `${inputsHash()}.tar`);
  if (existsSync(file)) {
    // Marks it used, for removeUnused in other worktrees' runs.
    utimesSync(file, new Date(), new Date());
    return file;
  }
  mkdirSync(CACHE_DIR, { recursive: true });
  // Written aside and renamed: a run that starts meanwhile never reads half a snapshot.
  const staging = `${file}.${process.pid}.staging`;
  // The one `npm run build` left in dist/ is the same migrations applied the same way: taken
  // as it is (unzipped) rather than made again, which is an initdb.
  const built = builtSnapshot(MIGRATIONS_DIR);
  if (built) writeFileSync(staging, gunzipSync(readFileSync(built)));
  else await writeMigratedSnapshot(staging);
  renameSync(staging, file);
  removeUnused();
  return file;
}

const UNUSED_MS = 3 * 24 * 3600_000;

function removeUnused(): void {
  for (const name of readdirSync(CACHE_DIR)) {
    const path = join(CACHE_DIR, name);
    if (Date.now() - statSync(path).mtimeMs > UNUSED_MS) rmSync(path, { force: true });
  }
}

function inputsHash(): string {
  const hash = createHash("sha256");
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort(byName)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else hash.update(`${path.slice(DB_DIR.length)}\0`).update(readFileSync(path));
    }
  };
  walk(DB_DIR);
  hash.update(readFileSync(PGLITE_PACKAGE));
  return hash.digest("hex").slice(0, 32);
}

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1);
