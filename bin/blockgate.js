#!/usr/bin/env -S node --max-semi-space-size=32
// `blockgate …` (`npx blockgate`, `npm start`): the compiled CLI (dist/cli.js); in a clone it is
// rebuilt first when src/ changed, and an installed package runs dist/ as it came. Run as a
// command, Node gets the gateway's flags from the line above (decision 0071), as `npm start` gives.
import { ensureBuild } from "../scripts/ensure-build.mjs";

if (process.argv[2] === "start") {
  // As Node servers are deployed, unless told otherwise: graphql-js then skips its development
  // check that every schema object comes from one copy of the library, an `instanceof` fallback
  // run for every field it executes. Set before any module loads: graphql-js reads it once.
  process.env.NODE_ENV ??= "production";
}
await ensureBuild();
// A URL, not a literal path: the type-checker (allowJs) would otherwise follow the import into
// dist/, the build's bundle, and check all of it whenever a build is there.
await import(new URL("../dist/cli.js", import.meta.url).href);
