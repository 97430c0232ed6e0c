import { execFile } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const DEPCRUISE = resolve("node_modules/.bin/depcruise");
/** Files this test adds to a copy of src/, each holding violations; none of ours is named so. */
const BROKEN = "broken-";

/** What depcruise printed, and on failure its exit code and standard error (or the signal). */
type Cruised = { code: number; out: string; err: string };

/**
 * Runs `npm run check`'s dependency rules, with its config and tsconfig, on a copy of src/ with
 * `files` added; returns what it reported. One run for both (each costs seconds of CPU, most of
 * it starting): the project's own files must report nothing, the added ones their rules.
 */
async function cruise(files: Record<string, string>): Promise<Cruised> {
  const dir = mkdtempSync(join(tmpdir(), "blockgate-deps-"));
  try {
    for (const file of [".dependency-cruiser.cjs", "tsconfig.json"]) {
      copyFileSync(file, join(dir, file));
    }
    cpSync("src", join(dir, "src"), { recursive: true });
    symlinkSync(resolve("node_modules"), join(dir, "node_modules"));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    try {
      const { stdout } = await run(
        DEPCRUISE,
        ["src", "--config", ".dependency-cruiser.cjs", "--output-type", "err"],
        // Plain text whatever the run's colour settings (CI forces colour): the report is parsed.
        { cwd: dir, env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" } },
      );
      return { code: 0, out: stdout, err: "" };
    } catch (err) {
      const e = err as { code?: number; signal?: string; stdout?: string; stderr?: string };
      const why = `${e.signal ? `killed by ${e.signal}\n` : ""}${e.stderr ?? ""}`;
      return { code: e.code ?? 1, out: e.stdout ?? "", err: why };
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The files of a violation reported by `--output-type err` (its rule's name, then its path). */
const violations = (out: string) => out.split("\n").filter((l) => /^\s*(error|warn)\s/.test(l));

describe("the dependency rules in npm run check", () => {
  // One tree holding src/ and every violation below, cruised once: each test then looks for its
  // rules in what it reported.
  let cruised: Cruised;
  beforeAll(async () => {
    const b = (path: string) => path.replace(/([^/]+)$/, `${BROKEN}$1`);
    const imports = (name: string, from: string) =>
      `import { ${name} } from "${b(from)}";\nexport const x${name} = ${name};\n`;
    cruised = await cruise({
      // a cycle
      [b("src/billing/ledger/a.ts")]: imports("b", "./b.ts"),
      [b("src/billing/ledger/b.ts")]: imports("a", "./a.ts"),
      // an upward import, and gateway code importing devnet
      [b("src/billing/ledger/ledger.ts")]: imports("route", "../../routes/node/route.ts"),
      [b("src/routes/node/route.ts")]: imports("chain", "../../devnet/chain.ts"),
      [b("src/devnet/chain.ts")]: "export const chain = 1;\n",
      // the pipeline, a route and devnet reaching past their layers
      [b("src/billing/metering/pipeline.ts")]: imports("w", "../../webhooks/w.ts"),
      [b("src/webhooks/w.ts")]: "export const w = 1;\n",
      [b("src/routes/graph/route.ts")]: imports("app", "../../app/app.ts"),
      [b("src/app/app.ts")]: "export const app = 1;\n",
      [b("src/devnet/core.ts")]: imports("l", "../billing/ledger/ledger.ts"),
      // one route family importing another, protocol rules importing above them
      [b("src/routes/gateway/loader.ts")]: imports("n", "../node/x.ts"),
      [b("src/routes/node/x.ts")]: "export const n = 1;\n",
      [b("src/protocol/json/params.ts")]: imports("p", "../../routes/node/x.ts"),
      [b("src/protocol/graphql/walk.ts")]: imports("d", "../../db/d.ts"),
      [b("src/db/d.ts")]: "export const d = 1;\n",
    });
    // Seconds of CPU over every source, past the default hook timeout when the suite loads both
    // cores beside it: a hang guard, not a timing assertion.
  }, 120_000);

  it("pass the project's own sources", () => {
    const reported = violations(cruised.out);
    // The scan reports at all (the added files' violations), and nothing of ours.
    expect(reported.length, cruised.err).toBeGreaterThan(0);
    expect(reported.filter((l) => !l.includes(BROKEN))).toEqual([]);
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
    expect(cruised.code).not.toBe(0);
    const reported = violations(cruised.out);
    for (const rule of rules) {
      expect(
        reported.some((l) => l.includes(`${rule}:`) && l.includes(BROKEN)),
        `${rule}\n${cruised.err}`,
      ).toBe(true);
    }
  });
});
