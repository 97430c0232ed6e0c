import { createHash } from "node:crypto";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";
import { ROOT, SERVER_BUNDLE } from "../../scripts/build-config.mjs";

/** Inside the project, so that a bundle's imports of packages resolve to its node_modules. */
const DIR = join(ROOT, "node_modules/.cache/blockgate-test-bundles");

/**
 * A script of ours (a file, or module code with imports relative to the project) bundled as
 * dist/ is, for a test to run as `node <file>`: tsx would load and compile its sources again in
 * every such process, several times the CPU of starting from one file. Named by its content, so
 * workers and worktrees that bundle the same script share one file, and a changed one is new.
 */
export async function bundled(script: { file: string } | { code: string }): Promise<string> {
  const { entryPoints, splitting, chunkNames, banner, ...options } = SERVER_BUNDLE;
  const input =
    "file" in script
      ? { entryPoints: [script.file] }
      : { stdin: { contents: script.code, resolveDir: ROOT, loader: "ts" as const } };
  const out = await build({ ...options, ...input, absWorkingDir: ROOT, write: false });
  const bytes = out.outputFiles[0]!.contents;
  const file = join(DIR, `${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}.mjs`);
  if (!existsSync(file)) {
    mkdirSync(DIR, { recursive: true });
    // Written aside and renamed: a worker that bundled the same script never runs half of it.
    const staging = `${file}.${process.pid}.staging`;
    writeFileSync(staging, bytes);
    renameSync(staging, file);
  }
  return file;
}
