import { writeFileSync } from "node:fs";
import { migrate } from "./migrate.ts";
import { createPglite, wrapPglite } from "./pglite.ts";

/**
 * Writes a fresh, fully migrated in-memory PGlite's data dir to `file` (an uncompressed tarball),
 * for `openPglite("memory://", { fromSnapshot: file })`. initdb is most of PGlite's start-up time.
 */
export async function writeMigratedSnapshot(file: string): Promise<void> {
  const pg = await createPglite("memory://");
  try {
    await migrate(wrapPglite(pg));
    // A clean checkpoint, so a database started from the copy has no WAL to replay.
    await pg.exec("CHECKPOINT");
    const tarball = await pg.dumpDataDir("none");
    writeFileSync(file, new Uint8Array(await tarball.arrayBuffer()));
  } finally {
    await pg.close();
  }
}
