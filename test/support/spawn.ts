import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { ensureBuild } from "../../scripts/ensure-build.mjs";
import type { Database } from "../../src/db/database.ts";
import { openDatabase, type SchemaPolicy } from "../../src/db/open.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { POSTGRES_URL } from "./harness.ts";

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Collects a child's output and resolves with its exit code once it has closed. */
function finished(child: ChildProcess, timeoutMs: number): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (s: string) => {
    stdout += s;
  });
  child.stderr?.setEncoding("utf8").on("data", (s: string) => {
    stderr += s;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`still running after ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.once("error", reject);
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : 1), stdout, stderr });
    });
  });
}

/**
 * Runs `blockgate …` as a user would (`npx blockgate` runs bin/blockgate.js). `input` is piped to
 * its standard input; without it standard input is empty (closed at once), never left open.
 */
export function blockgate(
  args: string[],
  env: Record<string, string | undefined>,
  options: { input?: string | Uint8Array } = {},
): Promise<Ran> {
  const child = spawn(process.execPath, ["bin/blockgate.js", ...args], {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  // A command that stops reading early (input over its limit) closes the pipe: EPIPE is expected.
  child.stdin?.on("error", () => {});
  child.stdin?.end(options.input ?? "");
  return finished(child, 60_000);
}

/** Whether util-linux `script` is here to give a child a terminal. */
export const hasScript = spawnSync("script", ["--version"]).status === 0;

/**
 * Runs `blockgate …` with a terminal as its standard input (and output), as when a user types the
 * command with nothing piped in. `script` allocates the pseudo-terminal; -e passes on the exit code.
 */
export function blockgateOnTerminal(
  args: string[],
  env: Record<string, string | undefined>,
): Promise<Ran> {
  const quote = (s: string) => `'${s.replaceAll("'", "'\\''")}'`;
  const command = [process.execPath, "bin/blockgate.js", ...args].map(quote).join(" ");
  const child = spawn("script", ["-qec", command, "/dev/null"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return finished(child, 60_000);
}

/** Starts `npm start` and resolves once its output contains `until`. */
export function startProcess(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  until: RegExp,
): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString("utf8");
      if (until.test(out)) resolve({ child, output: () => out });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited ${code} before ready:\n${out}`)));
  });
}

export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

export interface SpawnedGateway {
  child: ChildProcess;
  url: string;
  port: number;
  /** Everything it printed so far. */
  output: () => string;
}

/**
 * A gateway in a process of its own, as `npm start` runs it (dist/main.js, built from src/ by the
 * suite's global setup: it starts sooner than tsx loads and compiles the sources),
 * its config written to `configFile` first; resolves once it says where it listens. The one way
 * tests start gateway processes.
 */
export async function spawnGateway(
  config: object,
  configFile: string,
  env: Record<string, string | undefined> = {},
): Promise<SpawnedGateway> {
  writeFileSync(configFile, JSON.stringify(config));
  await ensureBuild();
  const { child, output } = await startProcess(
    process.execPath,
    ["dist/main.js"],
    { BLOCKGATE_CONFIG: configFile, ...env },
    /listening on http:\/\/\S+/,
  );
  const url = output().match(/listening on (http:\/\/\S+)/)![1]!;
  return { child, url, port: Number(new URL(url).port), output };
}

/** A PostgreSQL schema of its own for gateway processes: a connection to it, and its URL. */
export interface SchemaStore {
  schema: string;
  db: Database;
  /** What a gateway process is given as DATABASE_URL to work in the schema. */
  databaseUrl: string;
}

/**
 * Gateway processes against a devnet of this file's: devnet and a scratch folder are made before
 * the file's tests, and after them any process still running is killed, devnet stopped and the
 * schemas made dropped.
 */
export function gatewayProcesses(prefix: string) {
  let devnet: Devnet | undefined;
  let dir = "";
  const schemas: string[] = [];
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    devnet = await startDevnet(["mainnet"]);
    dir = mkdtempSync(join(tmpdir(), `bg-${prefix}-`));
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await devnet?.close();
    rmSync(dir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });
  return {
    get devnet(): Devnet {
      return devnet!;
    },
    get dir(): string {
      return dir;
    },
    /** A fresh schema, migrated (or, with `leave`, left empty). */
    async store(poolSize = 4, migrations: SchemaPolicy = "apply"): Promise<SchemaStore> {
      const schema = `${prefix}_${randomBytes(5).toString("hex")}`;
      schemas.push(schema);
      const db = await openDatabase({
        databaseUrl: POSTGRES_URL,
        schema,
        pgliteDir: "",
        poolSize,
        migrations,
      });
      const databaseUrl = new URL(POSTGRES_URL);
      databaseUrl.searchParams.set("options", `-c search_path=${schema}`);
      return { schema, db, databaseUrl: databaseUrl.toString() };
    },
    /**
     * A gateway process on devnet's mainnet (`settings` added to the config; `connections` to
     * its node) and on `store`: a schema, or a PGlite folder. Every kind of upstream is this
     * file's devnet: one left out would be devnet in the gateway's own process, loaded and
     * started there at every start for no test's sake.
     */
    async spawn(
      name: string,
      store: { databaseUrl: string } | { pgliteDir: string },
      o: { connections: number; settings?: object; env?: Record<string, string> },
    ): Promise<SpawnedGateway & { configFile: string }> {
      const core = devnet!.cores.get("mainnet")!;
      const indexer = devnet!.indexers.get("mainnet")!;
      const config = {
        server: { port: 0 },
        networks: ["mainnet"],
        ...("pgliteDir" in store ? { database: { pgliteDir: store.pgliteDir } } : {}),
        upstreams: {
          node: {
            mainnet: [
              {
                url: core.url,
                user: core.user,
                password: core.password,
                connections: o.connections,
              },
            ],
          },
          electrum: { mainnet: [{ url: devnet!.electrum.get("mainnet")!.url }] },
          graph: { mainnet: [{ url: indexer.url, adminSecretEnv: "BG_INDEXER_SECRET" }] },
          esplora: { mainnet: [{ url: devnet!.esplora.get("mainnet")!.url }] },
        },
        cache: { bytesMax: 0 }, // every call goes to the node
        demo: { enabled: false },
        log: { level: "info" },
        ...o.settings,
      };
      const configFile = join(dir, `${name}-${randomBytes(3).toString("hex")}.json`);
      const spawned = await spawnGateway(config, configFile, {
        DATABASE_URL: "databaseUrl" in store ? store.databaseUrl : "",
        BG_INDEXER_SECRET: indexer.secret,
        ...o.env,
      });
      children.push(spawned.child);
      return { ...spawned, configFile };
    },
  };
}
