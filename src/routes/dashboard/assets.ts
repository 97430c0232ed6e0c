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

export const DASHBOARD_CSS = `
:root { font-family: system-ui, sans-serif; color: #1d2330; background: #f5f6f8; }
body { margin: 0; }
header { display: flex; align-items: center; gap: 1rem; padding: .75rem 1.5rem; background: #1d2330; color: #fff; }
header h1 { font-size: 1.1rem; margin: 0; }
header .account { flex: 1; opacity: .8; }
main { max-width: 1100px; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
section { margin: 1.25rem 0; }
h2 { font-size: .95rem; text-transform: uppercase; letter-spacing: .04em; color: #5a6275; display: inline-block; margin: 0 .5rem .5rem 0; }
.cards { display: grid; grid-template-columns: repeat(3, 1fr); gap: 1rem; }
.card { background: #fff; border-radius: 8px; padding: .75rem 1rem; box-shadow: 0 1px 2px #0001; }
.card p { font-size: 1.4rem; margin: .25rem 0 0; font-variant-numeric: tabular-nums; }
table { width: 100%; border-collapse: collapse; background: #fff; border-radius: 8px; overflow: hidden; box-shadow: 0 1px 2px #0001; }
th, td { text-align: left; padding: .4rem .75rem; border-bottom: 1px solid #eceef2; font-size: .9rem; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.empty { color: #8a91a3; text-align: center; }
svg { width: 100%; height: 160px; background: #fff; border-radius: 8px; box-shadow: 0 1px 2px #0001; }
svg rect { fill: #f7931a; }
svg text { font-size: 9px; fill: #8a91a3; }
form.signin { max-width: 420px; margin: 15vh auto; background: #fff; padding: 1.5rem; border-radius: 8px; box-shadow: 0 1px 3px #0002; }
form.signin input { width: 100%; box-sizing: border-box; padding: .5rem; font-family: monospace; margin: .5rem 0 1rem; }
.error { color: #b42318; }
button { cursor: pointer; }
.card p.sub { font-size: .85rem; color: #5a6275; }
.scroll { overflow-x: auto; max-width: 100%; }
svg line.axis { stroke: #8a91a3; stroke-width: 1; }
svg line.grid { stroke: #eceef2; stroke-width: 1; }
svg text.value { font-size: 8px; fill: #1d2330; }
svg text.axis-title { font-size: 10px; fill: #5a6275; }
.note { margin: .25rem 0 .75rem; }
.card.reveal p { font-size: .9rem; }
.reveal code { display: block; word-break: break-all; font-size: .9rem; padding: .5rem; background: #f5f6f8; }
.actions { display: flex; flex-wrap: wrap; gap: .4rem; align-items: flex-start; }
.scope-form { display: grid; grid-template-columns: repeat(auto-fill, minmax(12rem, 1fr)); gap: .5rem; margin: .5rem 0; }
.scope-form label { display: flex; flex-direction: column; font-size: .8rem; color: #5a6275; }
.scope-form input { padding: .35rem; font: inherit; min-width: 0; }
details.new-key, details.new-webhook { margin-top: .75rem; }
/* A phone (420 px and less wide): one column, nothing wider than the screen; wide tables scroll
   inside their own box. */
@media (max-width: 640px) {
  header { flex-wrap: wrap; padding: .6rem 1rem; }
  main { padding: .75rem .75rem 2rem; }
  .cards { grid-template-columns: 1fr; }
  th, td { padding: .35rem .5rem; font-size: .85rem; }
  .scope-form { grid-template-columns: 1fr; }
}
`;
