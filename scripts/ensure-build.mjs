// Runs before `npm start` and `blockgate`: builds dist/ when it is missing or older than src/.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { builtHash, DIST, inputsHash, ROOT } from "./build-config.mjs";

/** True when esbuild (a dev dependency) can be loaded: a production install cannot rebuild. */
async function canBuild() {
  try {
    await import("esbuild");
    return true;
  } catch {
    return false;
  }
}

export async function ensureBuild() {
  const present = existsSync(join(DIST, "main.js")) && existsSync(join(DIST, "cli.js"));
  // An installed package (npm pack) carries dist/ and no sources to rebuild it from.
  if (present && !existsSync(join(ROOT, "src", "main.ts"))) return;
  if (present && builtHash() === inputsHash()) return;
  if (await canBuild()) {
    const { buildDist } = await import("./build.mjs");
    await buildDist();
    return;
  }
  if (!present) {
    throw new Error("dist/ is missing and esbuild is not installed: run `npm ci && npm run build`");
  }
  process.stderr.write(
    "blockgate: dist/ was built from other sources than src/ holds now; running it as built " +
      "(`npm run build` with dev dependencies installed brings it up to date)\n",
  );
}
