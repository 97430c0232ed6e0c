// `npm run build`: compiles src/ into dist/ with esbuild (a dev dependency; production runs dist/).
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { DASHBOARD_BUNDLE, DIST, inputsHash, ROOT, SERVER_BUNDLE, STAMP } from "./build-config.mjs";

/** Writes a complete build into `outDir` (which must be empty or absent). */
export async function buildInto(outDir) {
  const { build } = await import("esbuild");
  const hash = inputsHash();
  await build({ ...SERVER_BUNDLE, absWorkingDir: ROOT, outdir: outDir });
  await build({ ...DASHBOARD_BUNDLE, absWorkingDir: ROOT, outfile: join(outDir, "dashboard.js") });
  writeFileSync(join(outDir, "BUILD-INPUTS"), `${hash}\n`);
}

function filesUnder(dir) {
  const out = [];
  const walk = (d) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(dir, path));
    }
  };
  walk(dir);
  return out;
}

/**
 * A migrated PGlite data dir (src/db/built-snapshot.ts), which a new PGlite folder starts from
 * instead of running initdb. Made by running the sources' own migrations, so `outDir` must be
 * inside the project, where they and PGlite are found. Kept in node_modules/.cache for the next
 * build with the same migrations and PGlite: making one is an initdb, seconds of CPU.
 */
async function writeSnapshotInto(outDir) {
  const { build } = await import("esbuild");
  const writer = join(outDir, "snapshot-writer.mjs");
  await build({
    ...SERVER_BUNDLE,
    entryPoints: ["src/db/snapshot.ts"],
    splitting: false,
    absWorkingDir: ROOT,
    outfile: writer,
  });
  try {
    const { builtSnapshotName, writeBuiltSnapshot } = await import(pathToFileURL(writer).href);
    const name = builtSnapshotName();
    const pglite = readFileSync(join(ROOT, "node_modules/@electric-sql/pglite/package.json"));
    const version = createHash("sha256").update(pglite).digest("hex").slice(0, 12);
    const cached = join(ROOT, "node_modules/.cache/blockgate-build", `${version}-${name}`);
    if (!existsSync(cached)) {
      mkdirSync(dirname(cached), { recursive: true });
      const staging = `${cached}.${process.pid}.staging`;
      await writeBuiltSnapshot(staging);
      renameSync(staging, cached);
    }
    copyFileSync(cached, join(outDir, name));
  } finally {
    rmSync(writer, { force: true });
  }
}

/**
 * Builds dist/ in place. Several processes may build at once (tests start many CLIs): each builds
 * in its own folder and renames files in, chunks before the entries that import them and the
 * stamp last, so a reader never sees an entry whose chunks are missing. Same inputs give the
 * same bytes, so concurrent builders agree (but for the PGlite snapshot, where any one of theirs
 * serves: each is the same migrations applied).
 */
export async function buildDist() {
  mkdirSync(DIST, { recursive: true });
  const tmp = mkdtempSync(join(ROOT, ".dist-"));
  try {
    await buildInto(tmp);
    await writeSnapshotInto(tmp);
    const files = filesUnder(tmp).filter((f) => f !== "BUILD-INPUTS");
    const order = [...files.filter((f) => f.startsWith("chunks")), ...files];
    for (const file of new Set(order)) {
      mkdirSync(dirname(join(DIST, file)), { recursive: true });
      renameSync(join(tmp, file), join(DIST, file));
    }
    // Chunks of earlier builds: named by content hash, so they are simply no longer imported.
    const keep = new Set(files);
    for (const file of filesUnder(DIST)) {
      if (!keep.has(file) && file !== "BUILD-INPUTS") rmSync(join(DIST, file), { force: true });
    }
    renameSync(join(tmp, "BUILD-INPUTS"), STAMP);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const started = performance.now();
  await buildDist();
  process.stdout.write(`built dist/ in ${Math.round(performance.now() - started)} ms\n`);
}
