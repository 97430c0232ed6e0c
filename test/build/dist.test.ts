import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { buildInto } from "../../scripts/build.mjs";

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
  dependencies: Record<string, string>;
};

/** `import … from "x"` and `import("x")` specifiers of a bundle file. */
function importsOf(code: string): string[] {
  const found = [
    ...code.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*"([^"]+)"/gm),
    ...code.matchAll(/^\s*import\s*"([^"]+)"/gm),
    ...code.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g),
  ];
  return found.map((m) => m[1]!);
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

describe("dist/ (the compiled gateway that `npm start` and production run)", () => {
  it("is what `npm run build` makes from the committed sources (run it and commit dist/ if this fails)", async () => {
    const fresh = mkdtempSync(join(tmpdir(), "blockgate-dist-"));
    try {
      await buildInto(fresh);
      const built = filesUnder(fresh);
      expect(filesUnder("dist")).toEqual(built);
      for (const file of built) {
        expect(readFileSync(join("dist", file), "utf8"), file).toBe(
          readFileSync(join(fresh, file), "utf8"),
        );
      }
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });

  it("needs only production dependencies, so `npm ci --omit=dev` can run it", () => {
    const builtins = new Set(builtinModules);
    const used = new Set<string>();
    const files = [
      ...filesUnder("dist")
        .filter((f) => f.endsWith(".js") && f !== "dashboard.js")
        .map((f) => join("dist", f)),
      "bin/blockgate.js",
      "scripts/start.mjs",
      "scripts/ensure-build.mjs",
      "scripts/build-config.mjs",
    ];
    for (const file of files) {
      for (const spec of importsOf(readFileSync(file, "utf8"))) {
        if (spec.startsWith(".") || spec.startsWith("node:") || builtins.has(spec)) continue;
        used.add(packageName(spec));
      }
    }
    // esbuild is loaded by ensure-build only to rebuild, inside a try: absent in production.
    used.delete("esbuild");
    const missing = [...used].filter((name) => !(name in pkg.dependencies));
    expect(missing).toEqual([]);
    expect(used.has("graphql-yoga")).toBe(true); // the scan sees the bundle's imports at all
  });
});
