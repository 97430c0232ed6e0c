// What `npm run build` makes and from what. Plain JavaScript: `npm start` and `bin/blockgate.js`
// read it before anything is compiled, and a production install has no TypeScript tooling.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
export const DIST = join(ROOT, "dist");
/** Holds the hash of the inputs dist/ was built from; written last, so it never outruns dist/. */
export const STAMP = join(DIST, "BUILD-INPUTS");

/**
 * Packages bundled into dist/ rather than loaded from node_modules: ESM packages of many small
 * files that only our code imports, so no other package holds a second copy. Node resolves and
 * compiles each file of an ESM package apart at every start, which a gateway or a `blockgate`
 * command pays for before it does anything (docs/decisions/0070-zod-bundled-into-dist.md).
 */
const BUNDLED_PACKAGES = ["zod"];

const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
/** Every other package stays in node_modules, as installed. */
const EXTERNAL_PACKAGES = Object.keys({
  ...manifest.dependencies,
  ...manifest.devDependencies,
}).filter((name) => !BUNDLED_PACKAGES.includes(name));

/**
 * The server and the CLI: Node ESM, our code bundled (with BUNDLED_PACKAGES), every other package
 * left to node_modules.
 * @type {import("esbuild").BuildOptions}
 */
export const SERVER_BUNDLE = {
  entryPoints: { main: "src/main.ts", cli: "src/cli/main.ts" },
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: EXTERNAL_PACKAGES,
  chunkNames: "chunks/[name]-[hash]",
  legalComments: "none",
  logLevel: "warning",
  // The dashboard reads its prebuilt script from dist/ instead of bundling it at run time.
  define: { __BLOCKGATE_BUNDLED__: "true" },
  banner: { js: "// Built by `npm run build` from src/ (scripts/build.mjs); do not edit." },
};

/**
 * The dashboard's browser script, served by the gateway itself (no CDN, works offline).
 * @type {import("esbuild").BuildOptions}
 */
export const DASHBOARD_BUNDLE = {
  entryPoints: ["src/routes/dashboard/client/main.ts"],
  bundle: true,
  format: "esm",
  platform: "browser",
  target: "es2022",
  minify: true,
  legalComments: "none",
  logLevel: "warning",
};

/** Everything the output depends on: our sources, this recipe, and the locked esbuild. */
function inputFiles() {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(join(ROOT, "src"));
  files.push(join(ROOT, "scripts", "build-config.mjs"), join(ROOT, "scripts", "build.mjs"));
  files.push(join(ROOT, "package-lock.json"));
  return files.map((f) => relative(ROOT, f).split("\\").join("/")).sort();
}

/** A hash of every input's path and bytes: content, not mtimes, so a fresh clone is not stale. */
export function inputsHash() {
  const hash = createHash("sha256");
  for (const file of inputFiles()) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(ROOT, file)));
    hash.update("\0");
  }
  return hash.digest("hex");
}

/** The hash dist/ was built from, or null when there is no build. */
export function builtHash() {
  try {
    return readFileSync(STAMP, "utf8").trim();
  } catch {
    return null;
  }
}
