#!/usr/bin/env node
// `npx blockgate …`: the compiled CLI (dist/cli.js), rebuilt first when src/ changed.
import { ensureBuild } from "../scripts/ensure-build.mjs";

await ensureBuild();
await import("../dist/cli.js");
