import { writeFileSync } from "node:fs";
import { basename } from "node:path";
import { builtSnapshotPath } from "./built-snapshot.ts";
import { migrate } from "./migrate.ts";
import { MIGRATIONS_DIR } from "./migration-files.ts";
import { createPglite, wrapPglite } from "./pglite.ts";

/**
 * Writes a fresh, fully migrated in-memory PGlite's data dir to `file` (a tarball, gzipped when
 * asked), for `openPglite(dir, { fromSnapshot: file })`. initdb is most of PGlite's start-up time.
 */
export async function writeMigratedSnapshot(
  file: string,
  compression: "none" | "gzip" = "none",
): Promise<void> {
  const pg = await createPglite("memory://");
  try {
    await migrate(wrapPglite(pg));
    // A clean checkpoint, so a database started from the copy has no WAL to replay.
    await pg.exec("CHECKPOINT");
    const tarball = await pg.dumpDataDir(compression);
    writeFileSync(file, new Uint8Array(await tarball.arrayBuffer()));
  } finally {
    await pg.close();
  }
}

/** The file name of the snapshot `npm run build` makes for this build's migrations. */
export function builtSnapshotName(): string {
  return basename(builtSnapshotPath(MIGRATIONS_DIR));
}

/**
 * Writes the snapshot `npm run build` puts in dist/ to `file`. Gzipped: it ships in the package.
 */
export async function writeBuiltSnapshot(file: string): Promise<void> {
  await writeMigratedSnapshot(file, "gzip");
}
