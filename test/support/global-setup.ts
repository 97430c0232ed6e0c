import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { writeMigratedSnapshot } from "../../src/db/snapshot.ts";
import { type ResolvedChromium, resolveChromium } from "./chromium.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** A migrated PGlite data-dir tarball; in-memory stores start from it (openPglite). */
    pgliteSnapshot: string;
    /** The browser the browser tests launch, or why there is none (they fail with it, not skip). */
    chromium: ResolvedChromium | { error: string };
  }
}

/**
 * Runs once per `vitest run`, before any worker: initdb and migrations, paid once; and the browser
 * found (and unpacked, on a fresh install) once, so parallel browser test files never race on it.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  const dir = mkdtempSync(join(tmpdir(), "blockgate-pglite-"));
  const file = join(dir, "migrated.tar");
  const [, chromium] = await Promise.all([writeMigratedSnapshot(file), findChromium()]);
  project.provide("pgliteSnapshot", file);
  project.provide("chromium", chromium);
  return () => rmSync(dir, { recursive: true, force: true });
}

/** A missing browser fails the browser tests only, with this message; the other tests still run. */
async function findChromium(): Promise<ResolvedChromium | { error: string }> {
  const started = performance.now();
  try {
    const found = await resolveChromium();
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`browser tests: Chromium from ${found.source} (${seconds} s): ${found.path}`);
    return found;
  } catch (err) {
    return { error: (err as Error).message };
  }
}
