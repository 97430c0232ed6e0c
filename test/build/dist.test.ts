import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildInto } from "../../scripts/build.mjs";
import { ROOT, SERVER_BUNDLE } from "../../scripts/build-config.mjs";

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

describe("the build (`npm run build`: the compiled gateway that `npm start` and production run)", () => {
  let built = "";
  beforeAll(async () => {
    built = mkdtempSync(join(tmpdir(), "blockgate-dist-"));
    await buildInto(built);
  });
  afterAll(() => rmSync(built, { recursive: true, force: true }));

  it("makes the gateway, the CLI and the dashboard's script, and the same bytes twice", async () => {
    const files = filesUnder(built);
    for (const entry of ["main.js", "cli.js", "dashboard.js", "BUILD-INPUTS"]) {
      expect(files).toContain(entry);
    }
    const again = mkdtempSync(join(tmpdir(), "blockgate-dist-"));
    try {
      await buildInto(again);
      expect(filesUnder(again)).toEqual(files);
      for (const file of files) {
        expect(readFileSync(join(again, file), "utf8"), file).toBe(
          readFileSync(join(built, file), "utf8"),
        );
      }
    } finally {
      rmSync(again, { recursive: true, force: true });
    }
  });

  it("is not tracked in git: a build makes it", () => {
    const tracked = execFileSync("git", ["ls-files", "dist"], { encoding: "utf8" });
    expect(tracked).toBe("");
  });

  it("needs only production dependencies, so `npm ci --omit=dev` can run it", () => {
    const builtins = new Set(builtinModules);
    const used = new Set<string>();
    const files = [
      ...filesUnder(built)
        .filter((f) => f.endsWith(".js") && f !== "dashboard.js")
        .map((f) => join(built, f)),
      "bin/blockgate.js",
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
    // Bundled with our code (scripts/build-config.mjs, decision 0070), not loaded from node_modules.
    expect(used.has("zod")).toBe(false);
  });

  it("keeps devnet out of the gateway's entry: only a dynamic import, when configured, loads it", async () => {
    const { build } = await import("esbuild");
    const out = mkdtempSync(join(tmpdir(), "blockgate-meta-"));
    try {
      const { metafile } = await build({
        ...SERVER_BUNDLE,
        absWorkingDir: ROOT,
        outdir: out,
        write: false,
        metafile: true,
      });
      const outputs = metafile.outputs;
      const entry = Object.keys(outputs).find((o) => outputs[o]?.entryPoint === "src/main.ts")!;
      // The gateway's own output: the entry imports it when it serves (a workers' primary never).
      const gateway = Object.keys(outputs).find((o) => outputs[o]?.inputs["src/app/app.ts"])!;
      // Every output the entry and the gateway load before they run: static imports, transitively.
      const loaded = new Set([entry, gateway]);
      for (const file of loaded) {
        for (const i of outputs[file]?.imports ?? []) {
          if (i.kind === "import-statement" && !i.external) loaded.add(i.path);
        }
      }
      const modules = [...loaded].flatMap((o) => Object.keys(outputs[o]?.inputs ?? {}));
      expect(modules.filter((m) => m.startsWith("src/devnet/"))).toEqual([]);
      expect(modules).toContain("src/main.ts"); // the walk sees the entry
      expect(modules).toContain("src/app/app.ts"); // and the gateway
      const lazy = Object.values(outputs).flatMap((o) => Object.keys(o.inputs));
      expect(lazy).toContain("src/devnet/devnet.ts"); // and devnet is still built, apart
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
