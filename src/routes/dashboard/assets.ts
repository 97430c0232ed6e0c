import { readFile } from "node:fs/promises";
import { projectPath } from "../../util/paths.ts";

/** Defined as `true` by the build (scripts/build-config.mjs): this code runs from dist/. */
declare const __BLOCKGATE_BUNDLED__: boolean | undefined;

let bundle: Promise<string> | undefined;

/**
 * The dashboard's script, served by the gateway itself: no CDN, nothing fetched from outside,
 * works offline. The compiled gateway serves the bundle `npm run build` made (dist/dashboard.js);
 * run from sources (tsx, vitest), it is bundled in memory on first use with the same recipe, so
 * an edit to the client shows without a build. esbuild is only loaded on that path.
 */
export function dashboardScript(): Promise<string> {
  bundle ??=
    typeof __BLOCKGATE_BUNDLED__ !== "undefined"
      ? readFile(projectPath("dist", "dashboard.js"), "utf8")
      : bundleFromSources();
  return bundle;
}

async function bundleFromSources(): Promise<string> {
  // A computed specifier, so the build leaves the recipe out of dist/ (this path never runs there).
  const recipe = "../../../scripts/build-config.mjs";
  const [{ build }, { DASHBOARD_BUNDLE, ROOT }] = await Promise.all([
    import("esbuild"),
    import(recipe) as Promise<typeof import("../../../scripts/build-config.mjs")>,
  ]);
  const out = await build({ ...DASHBOARD_BUNDLE, absWorkingDir: ROOT, write: false });
  return out.outputFiles[0]!.text;
}
