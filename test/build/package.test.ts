// What `npm pack` ships (package.json "files") and that it runs as an
// installed package runs: dist/ as built, no sources, no compiler. The whole pack-and-install
// round trip takes minutes, so scripts/package-check.sh does it by hand; this checks the layout.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../../scripts/build-config.mjs";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  files: string[];
  scripts: Record<string, string>;
  bin: Record<string, string>;
};

/** Whether a path is shipped by one of the "files" entries (a folder, a file or a `*` glob). */
const shipped = (path: string) =>
  pkg.files.some((f) =>
    f.endsWith("/")
      ? path.startsWith(f)
      : f.includes("*")
        ? new RegExp(`^${f.replaceAll(".", "\\.").replaceAll("*", "[^/]*")}$`).test(path)
        : path === f,
  );

describe("the npm package", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("ships what production reads at run time and builds at prepack", () => {
    for (const path of [
      "bin/blockgate.js",
      "dist/main.js",
      "dist/cli.js",
      "dist/dashboard.js",
      "scripts/ensure-build.mjs",
      "scripts/build-config.mjs",
      "src/db/migrations/001_ledger.sql",
      "schema/indexer.graphql",
      "data/chain/README.md",
      "examples/production.yaml",
    ]) {
      expect(shipped(path), path).toBe(true);
    }
    for (const path of ["src/main.ts", "test/support/harness.ts", "scripts/build.mjs"]) {
      expect(shipped(path), path).toBe(false);
    }
    expect(pkg.bin.blockgate).toBe("bin/blockgate.js");
    expect(pkg.scripts.prepack).toContain("scripts/build.mjs");
  });

  it("runs as installed: dist/ as it came, no sources to rebuild from, no compiler asked for", () => {
    const dir = mkdtempSync(join(tmpdir(), "blockgate-installed-"));
    dirs.push(dir);
    for (const path of ["package.json", "bin", "dist", "schema", "src/db/migrations"]) {
      cpSync(join(ROOT, path), join(dir, path), { recursive: true });
    }
    mkdirSync(join(dir, "scripts"));
    for (const f of ["ensure-build.mjs", "build-config.mjs"]) {
      cpSync(join(ROOT, "scripts", f), join(dir, "scripts", f));
    }
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
    // A stale stamp would make a clone rebuild; an installed package must run what it has.
    cpSync(join(ROOT, "package.json"), join(dir, "dist", "BUILD-INPUTS"));
    const out = execFileSync(process.execPath, ["bin/blockgate.js", "start", "--help"], {
      cwd: dir,
      encoding: "utf8",
      env: { ...process.env, NODE_OPTIONS: "" },
    });
    expect(out).toContain("--workers");
    const mistake = (() => {
      try {
        execFileSync(process.execPath, ["bin/blockgate.js", "start", "--workers", "many"], {
          cwd: dir,
          encoding: "utf8",
          stdio: "pipe",
        });
        return null;
      } catch (err) {
        return err as { status: number; stderr: string };
      }
    })();
    expect(mistake?.status).toBe(2);
    expect(mistake?.stderr).toContain("auto, or a whole number");
  });
});
