// The container image without a container daemon: the Dockerfile's build stage run line by line in
// a temporary folder (its COPYs as copies, its RUNs as the same scripts/image.sh commands), then
// the installed package started as the runtime stage starts it, and checked as its HEALTHCHECK
// checks it. `npm ci` (the deps step) is the one line not run: the repository's node_modules
// stands in for it, and npm fetches only what its cache lacks (--prefer-offline).
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parse, stringify } from "yaml";
import { ROOT } from "../../scripts/build-config.mjs";
import { parseConfig } from "../../src/config/load.ts";
import { type Instruction, ops, readDockerfile, type Stage } from "../support/dockerfile.ts";

const [build, runtime] = readDockerfile(join(ROOT, "Dockerfile")) as [Stage, Stage];
const work = mkdtempSync(join(tmpdir(), "blockgate-image-"));
const env = { ...process.env, NODE_OPTIONS: "", npm_config_prefer_offline: "true" };

/** `image.sh` as a RUN line or a HEALTHCHECK names it, run in `cwd`; its status and output. */
function imageScript(args: string[], cwd: string) {
  const ran = spawnSync("bash", [join(cwd, "scripts/image.sh"), ...args], {
    cwd,
    env,
    encoding: "utf8",
    timeout: 150_000,
  });
  return { code: ran.status, out: `${ran.stdout}${ran.stderr}` };
}

/** One build-stage instruction, with the temporary folder as its WORKDIR. */
function runBuildLine(ins: Instruction): void {
  if (ins.op === "COPY") {
    const dest = ins.args.at(-1)!;
    for (const source of ins.args.slice(0, -1)) {
      const into = dest.endsWith("/") && !source.endsWith("/") ? join(dest, source) : dest;
      mkdirSync(dirname(join(work, into)), { recursive: true });
      cpSync(join(ROOT, source), join(work, into), { recursive: true });
    }
    return;
  }
  if (ins.op !== "RUN") return;
  const [script, ...args] = ins.args;
  expect(script, `Dockerfile:${ins.line} runs scripts/image.sh`).toBe("scripts/image.sh");
  if (args[0] === "deps") {
    expect(imageScript(["--dry-run", "deps"], work).out).toMatch(/^npm ci /);
    symlinkSync(realpathSync(join(ROOT, "node_modules")), join(work, "node_modules"));
    return;
  }
  const ran = imageScript(args, work);
  expect(ran.code, `Dockerfile:${ins.line}: ${ran.out}`).toBe(0);
}

let app = "";
beforeAll(() => {
  expect(ops(build, "WORKDIR").map((i) => i.args[0])).toEqual(["/build"]);
  for (const ins of build.instructions) runBuildLine(ins);
  const from = ops(runtime, "COPY").find((i) => i.flags.from === build.name)!;
  app = join(work, from.args[0]!.replace(/^\/build\//, ""));
}, 240_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("the Dockerfile", () => {
  it("is clean for dockerfilelint", () => {
    const bin = join(ROOT, "node_modules/dockerfilelint/bin/dockerfilelint");
    const out = spawnSync(process.execPath, [bin, "-j", "Dockerfile"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(JSON.parse(out.stdout).totalIssues, out.stdout).toBe(0);
  });

  it("builds on Node 20 and runs on its slim image, as node, with no build step", () => {
    expect(build.image).toBe("node:20-bookworm");
    expect(runtime.image).toBe("node:20-bookworm-slim");
    expect(ops(runtime, "USER").map((i) => i.args[0])).toEqual(["node"]);
    expect(ops(runtime, "RUN")).toEqual([]);
    expect(ops(runtime, "EXPOSE").flatMap((i) => i.args)).toEqual(["8545", "50002"]);
    expect(ops(runtime, "STOPSIGNAL").map((i) => i.args[0])).toEqual(["SIGTERM"]);
    const [health] = ops(runtime, "HEALTHCHECK");
    expect(health?.args).toEqual(["CMD", "blockgate-image", "health", "8545"]);
  });

  it("has its page for operators", () => {
    expect(existsSync(join(ROOT, "docs/operators/container.md"))).toBe(true);
  });

  it("copies nothing .dockerignore leaves out of the build context", () => {
    const allowed = readFileSync(join(ROOT, ".dockerignore"), "utf8")
      .split("\n")
      .filter((l) => l.startsWith("!"))
      .map((l) => l.slice(1));
    expect(readFileSync(join(ROOT, ".dockerignore"), "utf8")).toMatch(/^\*$/m);
    const copied = [build, runtime].flatMap((s) =>
      ops(s, "COPY")
        .filter((i) => !i.flags.from)
        .flatMap((i) => i.args.slice(0, -1)),
    );
    const left = copied.filter((p) => !allowed.some((a) => p === a || p.startsWith(a)));
    expect(left).toEqual([]);
  });
});

describe("the installed package, as the image holds it", () => {
  it("has no compiler, no sources, and the production dependencies at the lock's versions", () => {
    for (const name of ["typescript", "tsx", "esbuild", "vitest", "@biomejs/biome"]) {
      expect(existsSync(join(app, "node_modules", name)), name).toBe(false);
    }
    expect(existsSync(join(app, "src/main.ts"))).toBe(false);
    expect(existsSync(join(app, "dist/main.js"))).toBe(true);
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
    const installed = JSON.parse(
      readFileSync(join(app, "node_modules/fastify/package.json"), "utf8"),
    );
    expect(installed.version).toBe(lock.packages["node_modules/fastify"].version);
  });

  it("answers `blockgate --help` through the PATH the image sets", () => {
    const out = execFileSync("blockgate", ["--help"], {
      env: { ...env, PATH: `${join(app, "bin")}:${process.env.PATH}` },
      encoding: "utf8",
    });
    expect(out).toContain("start");
  });

  it("starts as CMD does on the image's config, passes its HEALTHCHECK, drains on SIGTERM", async () => {
    const home = join(work, "home");
    mkdirSync(home);
    const imageEnv = Object.fromEntries(
      ops(runtime, "ENV").flatMap((i) =>
        i.args.map((a) => [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]),
      ),
    );
    const config = parse(
      readFileSync(join(app, imageEnv.BLOCKGATE_CONFIG!.replace(/^\/app\//, "")), "utf8"),
    );
    expect(parseConfig(config).server.host).toBe("0.0.0.0");
    writeFileSync(
      join(home, "container.yaml"),
      stringify({ ...config, server: { ...config.server, port: 0 } }),
    );
    const [entry] = ops(runtime, "ENTRYPOINT").map((i) => i.args);
    const [cmd] = ops(runtime, "CMD").map((i) => i.args);
    const gateway: ChildProcess = spawn(entry![0]!, [...entry!.slice(1), ...cmd!], {
      cwd: home,
      env: {
        PATH: `${join(app, "bin")}:${process.env.PATH}`,
        HOME: home,
        NODE_ENV: imageEnv.NODE_ENV,
        NODE_OPTIONS: imageEnv.NODE_OPTIONS,
        BLOCKGATE_CONFIG: join(home, "container.yaml"),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    for (const stream of [gateway.stdout!, gateway.stderr!]) {
      stream.on("data", (b: Buffer) => {
        out += b.toString();
      });
    }
    const exited = new Promise<number | null>((resolve) => gateway.once("exit", resolve));
    try {
      const port = await vi.waitFor(
        () => {
          const m = /listening on http:\/\/0\.0\.0\.0:(\d+)/.exec(out);
          if (!m) throw new Error(`not listening yet:\n${out}`);
          return m[1]!;
        },
        { timeout: 120_000, interval: 100 },
      );
      // As Docker runs it: healthy once an attempt passes, within --retries attempts.
      const [check] = ops(runtime, "HEALTHCHECK");
      const attempts = Number(check?.flags.retries ?? 3);
      const failed: string[] = [];
      while (failed.length < attempts) {
        const ran = imageScript(["health", port], work);
        if (ran.code === 0) break;
        failed.push(ran.out);
      }
      expect(failed.length, failed.join("\n")).toBeLessThan(attempts);
      gateway.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(out).toContain('"msg":"drained"');
      expect(imageScript(["health", port], work).code).toBe(1);
    } finally {
      gateway.kill("SIGKILL");
    }
  }, 180_000);
});
