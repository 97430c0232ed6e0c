import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { ensureBuild } from "../../scripts/ensure-build.mjs";
import { type ResolvedChromium, resolveChromium } from "./chromium.ts";
import { migratedSnapshot } from "./pglite-snapshot.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** A migrated PGlite data-dir tarball; in-memory stores start from it (openPglite). */
    pgliteSnapshot: string;
    /** The browser the browser tests launch, or why there is none (they fail with it, not skip). */
    chromium: ResolvedChromium | { error: string };
  }
}

/**
 * Runs once per `vitest run`, before any worker: dist/ built when stale, which the CLI's and the
 * gateway's processes run (as `npx blockgate` and `npm start` do), so that no test file pays for
 * the build or races another on it; the migrated PGlite snapshot, taken from that build (kept
 * until src/db/ changes); and the browser found (and unpacked, on a fresh install) once, so
 * parallel browser test files never race on it.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  // Vitest runs a global setup once per project (the root and each of vitest.config.ts's
  // projects): the snapshot, the browser and dist/ are made once and given to every project.
  // Each project imports this file afresh, so what they share lives on the process's global.
  const holder = globalThis as { [SHARED]?: ReturnType<typeof prepare> };
  holder[SHARED] ??= prepare();
  const { file, chromium, scratch } = await holder[SHARED];
  project.provide("pgliteSnapshot", file);
  project.provide("chromium", chromium);
  return () => rmSync(scratch, { recursive: true, force: true });
}

const SHARED = Symbol.for("blockgate.test.global-setup");

async function prepare() {
  const scratch = runScratch();
  // dist/ first: its PGlite snapshot is the tests' too (pglite-snapshot.ts).
  const snapshot = ensureBuild().then(migratedSnapshot);
  const [file, chromium] = await Promise.all([snapshot, findChromium()]);
  return { file, chromium, scratch };
}

/**
 * The run's temporary folders (os.tmpdir(), for the workers and every process they start) in a
 * folder of its own, on a RAM file system where the machine has one: tests make PGlite folders and
 * npm installs of thousands of files, and creating files on the disk file system cost the suite
 * several seconds of system CPU (docs/keeping-the-suite-fast.md). Removed with all it holds once
 * the run ends, so nothing a test left behind outlives it.
 */
function runScratch(): string {
  let dir: string;
  try {
    dir = mkdtempSync("/dev/shm/blockgate-tests-");
  } catch {
    dir = mkdtempSync(join(tmpdir(), "blockgate-tests-"));
  }
  process.env.TMPDIR = dir;
  return dir;
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
