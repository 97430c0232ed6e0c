import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const DEPCRUISE = resolve("node_modules/.bin/depcruise");

/** Runs `npm run check`'s dependency rules on a small tree of files; returns what it reported. */
async function cruise(files: Record<string, string>): Promise<{ code: number; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), "blockgate-deps-"));
  try {
    copyFileSync(".dependency-cruiser.cjs", join(dir, ".dependency-cruiser.cjs"));
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          module: "NodeNext",
          moduleResolution: "NodeNext",
          allowImportingTsExtensions: true,
          noEmit: true,
        },
      }),
    );
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    try {
      const { stdout } = await run(
        DEPCRUISE,
        ["src", "--config", ".dependency-cruiser.cjs", "--output-type", "err"],
        { cwd: dir },
      );
      return { code: 0, out: stdout };
    } catch (err) {
      const e = err as { code?: number; stdout?: string };
      return { code: e.code ?? 1, out: e.stdout ?? "" };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("the dependency rules in npm run check", () => {
  it("pass the project's own sources", async () => {
    const { stdout } = await run(DEPCRUISE, [
      "src",
      "--config",
      ".dependency-cruiser.cjs",
      "--output-type",
      "err",
    ]);
    expect(stdout).toContain("no dependency violations found");
    // Seconds of CPU over every source, more than the default 30 s when the suite loads both
    // cores beside it: a hang guard, not a timing assertion.
  }, 120_000);

  // One tree holding every violation below, cruised once (each run costs seconds): each test
  // then looks for its rules in what it reported.
  let broken: { code: number; out: string };
  beforeAll(async () => {
    broken = await cruise({
      // a cycle
      "src/billing/ledger/a.ts": 'import { b } from "./b.ts";\nexport const a = () => b;\n',
      "src/billing/ledger/b.ts": 'import { a } from "./a.ts";\nexport const b = () => a;\n',
      // an upward import, and gateway code importing devnet
      "src/billing/ledger/ledger.ts":
        'import { route } from "../../routes/node/route.ts";\nexport const l = route;\n',
      "src/routes/node/route.ts":
        'import { chain } from "../../devnet/chain.ts";\nexport const route = chain;\n',
      "src/devnet/chain.ts": "export const chain = 1;\n",
      // the pipeline, a route and devnet reaching past their layers
      "src/billing/metering/pipeline.ts":
        'import { w } from "../../webhooks/w.ts";\nexport const p = w;\n',
      "src/webhooks/w.ts": "export const w = 1;\n",
      "src/routes/graph/route.ts": 'import { a } from "../../app/app.ts";\nexport const r = a;\n',
      "src/app/app.ts": "export const a = 1;\n",
      "src/devnet/core.ts":
        'import { l } from "../billing/ledger/ledger.ts";\nexport const d = l;\n',
      // one route family importing another, protocol rules importing above them
      "src/routes/gateway/loader.ts": 'import { x } from "../node/x.ts";\nexport const l = x;\n',
      "src/routes/node/x.ts": "export const x = 1;\n",
      "src/protocol/json/params.ts":
        'import { x } from "../../routes/node/x.ts";\nexport const p = x;\n',
      "src/protocol/graphql/walk.ts": 'import { d } from "../../db/d.ts";\nexport const w = d;\n',
      "src/db/d.ts": "export const d = 1;\n",
    });
  });

  it.each([
    ["an added cycle", ["no-circular"]],
    [
      "an upward import and gateway code importing devnet",
      ["money-below-services", "devnet-is-its-own-entry"],
    ],
    [
      "the pipeline, a route or devnet reaching past its layer",
      ["pipeline-below-routes", "routes-below-entries", "devnet-below-the-gateway"],
    ],
    [
      "one route family importing another, or a protocol rule importing above it",
      ["routes-not-from-each-other", "protocol-rules-stand-alone"],
    ],
  ])("fail on %s", (_what, rules) => {
    expect(broken.code).not.toBe(0);
    for (const rule of rules) expect(broken.out).toContain(rule);
  });
});
