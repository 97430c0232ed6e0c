import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { writeMigratedSnapshot } from "../../src/db/snapshot.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** A migrated PGlite data-dir tarball; in-memory stores start from it (openPglite). */
    pgliteSnapshot: string;
  }
}

/** Runs once per `vitest run`, before any worker: initdb and migrations, paid once. */
export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), "blockgate-pglite-"));
  const file = join(dir, "migrated.tar");
  await writeMigratedSnapshot(file);
  project.provide("pgliteSnapshot", file);
  return () => rmSync(dir, { recursive: true, force: true });
}
