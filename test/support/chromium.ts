import { execFile } from "node:child_process";
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
} from "node:fs";
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { chromium } from "playwright-core";

/**
 * Which Chromium the browser tests drive. Looked for in this order:
 *   1. BLOCKGATE_CHROMIUM (or the older CHROMIUM_PATH): what you ask for is what you get; a path
 *      that does not exist is an error, never a silent fallback to another browser.
 *   2. A browser Playwright already installed (`npx playwright-core install chromium`): the build
 *      playwright-core is made for.
 *   3. A system Chromium or Chrome: a real desktop build, already on many developers' machines.
 *   4. @sparticuz/chromium, a devDependency: a Linux x64 headless Chromium inside the npm tarball, so
 *      `npm ci && npm test` needs nothing but Node and npm. Last, because it is a serverless build
 *      (its own NSS libraries, one bundled font, flags meant for AWS Lambda) unpacked at first use.
 */
export type ChromiumSource =
  | "BLOCKGATE_CHROMIUM"
  | "CHROMIUM_PATH"
  | "playwright"
  | "system"
  | "@sparticuz/chromium";

export interface ResolvedChromium {
  path: string;
  source: ChromiumSource;
  /** Flags this build needs on top of ours (only @sparticuz/chromium has any). */
  args: string[];
  /** Environment for the browser process on top of ours (its bundled libraries and fonts). */
  env: Record<string, string>;
}

const SYSTEM_PATHS = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
];
const SYSTEM_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];

/** Finds a Chromium, unpacking @sparticuz/chromium if nothing else is there. Call once per run. */
export async function resolveChromium(
  env: Record<string, string | undefined> = process.env,
): Promise<ResolvedChromium> {
  for (const name of ["BLOCKGATE_CHROMIUM", "CHROMIUM_PATH"] as const) {
    const given = env[name];
    if (!given) continue;
    const path = resolve(given);
    if (!isExecutable(path)) {
      throw new Error(
        `${name}=${given}: no executable file there. Point it at a Chromium or Chrome binary, or unset it to let the tests find one (CONTRIBUTING.md, "Browser tests").`,
      );
    }
    return { path, source: name, args: [], env: {} };
  }
  const playwright = playwrightChromium();
  if (playwright) return { path: playwright, source: "playwright", args: [], env: {} };
  const system = systemChromium(env.PATH ?? "");
  if (system) return { path: system, source: "system", args: [], env: {} };
  return sparticuzChromium();
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function playwrightChromium(): string | undefined {
  try {
    const path = chromium.executablePath();
    return isExecutable(path) ? path : undefined;
  } catch {
    return undefined; // no browser registry entry for this platform
  }
}

function systemChromium(pathVariable: string): string | undefined {
  const onPath = pathVariable
    .split(delimiter)
    .filter((dir) => dir !== "")
    .flatMap((dir) => SYSTEM_NAMES.map((name) => join(dir, name)));
  return [...SYSTEM_PATHS, ...onPath].find(isExecutable);
}

// --- @sparticuz/chromium --------------------------------------------------------------------------

/**
 * Flags of @sparticuz/chromium's `args` we leave out; the rest (no sandbox, no zygote, in-process
 * GPU, no WebGL, no pings, …) are passed.
 */
const DROPPED_FLAGS = new Set([
  // For AWS Lambda, which forbids prctl(PR_SET_NO_NEW_PRIVS). Here it only harms: in one process,
  // closing a BrowserContext kills the browser (tried), and the dashboard test closes one.
  "--single-process",
  // These relax the web's security model (same-origin policy, mixed content, site isolation,
  // SharedArrayBuffer without cross-origin isolation); the tests must see what users' browsers do.
  "--disable-web-security",
  "--allow-running-insecure-content",
  "--disable-site-isolation-trials",
  "--disable-features", // =AudioServiceOutOfProcess,IsolateOrigins,site-per-process
  "--enable-features", // =SharedArrayBuffer
  // Playwright passes --headless itself; theirs carries literal quotes (`--headless='shell'`).
  "--headless",
]);

/** Where the unpacked build lives: per version, kept until `npm ci` empties node_modules. */
const CACHE_DIR = fileURLToPath(
  new URL("../../node_modules/.cache/blockgate-chromium/", import.meta.url),
);

/**
 * @sparticuz/chromium 143 unpacks into os.tmpdir() (`/tmp/chromium`, `/tmp/fonts`, `/tmp/al2023`
 * …) and returns `/tmp/chromium` whenever that file exists, even half-written or from another
 * version. Its NSS libraries (al2023.tar.br) are unpacked, and LD_LIBRARY_PATH set, only when it
 * believes it runs on AWS Lambda; its fonts.conf names /tmp paths. So we run it in a child process
 * with TMPDIR pointing at a private staging dir and AWS_EXECUTION_ENV set (which makes it unpack
 * the libraries too; the child's own environment changes die with it), write our own fonts.conf,
 * and move the finished dir into place with one rename: a run never sees a half-unpacked browser,
 * and two runs that unpack at once both end with the same complete dir.
 */
async function sparticuzChromium(): Promise<ResolvedChromium> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new Error(
      `No Chromium found, and @sparticuz/chromium ships Linux x64 only (this is ${process.platform} ${process.arch}). Set BLOCKGATE_CHROMIUM to a Chromium or Chrome binary, or run \`npx playwright-core install chromium\`.`,
    );
  }
  const require = createRequire(import.meta.url);
  const entry = require.resolve("@sparticuz/chromium");
  const version = packageVersion(entry);
  const dir = join(CACHE_DIR, version);
  if (!existsSync(join(dir, "chromium"))) await unpack(entry, dir);
  const args = (JSON.parse(readFileSync(join(dir, "args.json"), "utf8")) as string[]).filter(
    (flag) => !DROPPED_FLAGS.has(flag.split("=")[0] ?? flag),
  );
  return {
    path: join(dir, "chromium"),
    source: "@sparticuz/chromium",
    args,
    env: {
      // Its NSS/NSPR/expat first: a fresh machine has none, and then every machine runs the same ones.
      LD_LIBRARY_PATH: [join(dir, "al2023", "lib"), process.env.LD_LIBRARY_PATH]
        .filter(Boolean)
        .join(":"),
      FONTCONFIG_FILE: join(dir, "fonts.conf"),
    },
  };
}

function packageVersion(entry: string): string {
  // The package's exports map hides package.json; it sits two levels above build/cjs/index.cjs.
  const file = join(dirname(entry), "..", "..", "package.json");
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

async function unpack(entry: string, dir: string): Promise<void> {
  mkdirSync(CACHE_DIR, { recursive: true });
  await removeAbandonedStaging();
  const staging = await mkdtemp(join(CACHE_DIR, `.staging-${process.pid}-`));
  try {
    // Graphics mode off: no WebGL (`--disable-webgl`), as our own --disable-gpu asks.
    const script = `
      const Chromium = require(process.argv[1]);
      Chromium.setGraphicsMode = false;
      Chromium.executablePath().then((path) => {
        process.stdout.write(JSON.stringify({ path, args: Chromium.args }));
      });`;
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script, entry], {
      env: { ...process.env, TMPDIR: staging, AWS_EXECUTION_ENV: "AWS_Lambda_nodejs20.x" },
      timeout: 120_000,
    });
    const { path, args } = JSON.parse(stdout) as { path: string; args: string[] };
    if (path !== join(staging, "chromium")) {
      throw new Error(`@sparticuz/chromium unpacked to ${path}, not into ${staging}`);
    }
    await writeFile(join(staging, "args.json"), JSON.stringify(args));
    await writeFile(join(staging, "fonts.conf"), fontsConf(dir));
    try {
      await rename(staging, dir);
    } catch (err) {
      // Another run got there first; its dir is as complete as ours.
      if (!existsSync(join(dir, "chromium"))) {
        throw new Error(`${dir} exists but holds no chromium: remove it and run again`, {
          cause: err,
        });
      }
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** Its bundled Open Sans only: the same glyphs on every machine, and a fresh one has no fonts. */
function fontsConf(dir: string): string {
  const xml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
  return `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>${xml(join(dir, "fonts", "fonts"))}</dir>
  <cachedir>${xml(join(dir, "fonts-cache"))}</cachedir>
</fontconfig>
`;
}

/** Staging dirs of runs that were killed mid-unpack (about 200 MB each). */
async function removeAbandonedStaging(): Promise<void> {
  const abandoned = readdirSync(CACHE_DIR).filter((name) => {
    const pid = Number(/^\.staging-(\d+)-/.exec(name)?.[1]);
    return pid > 0 && !isAlive(pid);
  });
  await Promise.all(
    abandoned.map((name) => rm(join(CACHE_DIR, name), { recursive: true, force: true })),
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
