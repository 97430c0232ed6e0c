import { writeFileSync } from "node:fs";
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

/**
 * The snapshot `npm run build` puts in `outDir` (dist/, or the folder a build is made in), named
 * as builtSnapshotPath names it. Gzipped: it ships in the package.
 */
export async function writeBuiltSnapshot(outDir: string): Promise<void> {
  const name = builtSnapshotPath(MIGRATIONS_DIR).split("/").at(-1)!;
  await writeMigratedSnapshot(`${outDir}/${name}`, "gzip");
}
