import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { projectPath } from "../util/paths.ts";
import { loadMigrations } from "./migration-files.ts";

/**
 * Where `npm run build` leaves a migrated PGlite data dir for the migrations of `dir`: named for
 * their names, kinds and statements, so a build made from other migrations is never taken for
 * this one's.
 */
export function builtSnapshotPath(dir: string): string {
  const hash = createHash("sha256");
  for (const m of loadMigrations(dir)) hash.update(`${m.name}\0${m.kind}\0${m.sql}\0`);
  return projectPath("dist", `pglite-${hash.digest("hex").slice(0, 16)}.tar.gz`);
}

/**
 * The built snapshot a new PGlite folder starts from instead of running initdb, which takes
 * seconds of WebAssembly on every first start; none when this build has none for `dir`.
 */
export function builtSnapshot(dir: string): string | undefined {
  const path = builtSnapshotPath(dir);
  return existsSync(path) ? path : undefined;
}
