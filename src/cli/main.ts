import { setFlagsFromString } from "node:v8";
import { ConfigError, loadConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import type { Database } from "../db/database.ts";
import { openDatabase, type SchemaPolicy } from "../db/open.ts";
import { SchemaMismatch } from "../db/schema-state.ts";
import { adminFilePath, readAdminFile } from "../routes/admin/admin-file.ts";
import {
  type CommandOutput,
  DB_COMMANDS,
  needsStore,
  parseLine,
  runLocal,
  runParsed,
} from "./commands.ts";
import { postToGateway, refusal } from "./gateway-call.ts";
import type { ParsedLine } from "./program.ts";
import { isView, printable, renderView, wantsColour } from "./view.ts";

/**
 * `blockgate …` / `npm run cli -- …`. The whole line is parsed and checked first: a mistake is
 * answered before any config is read, store opened or gateway asked.
 */
async function cli(argv: string[]): Promise<number> {
  const parsed = parseLine(argv, process.stdout.columns);
  if ("out" in parsed) return print(parsed.out);
  if (!needsStore(parsed)) {
    const out = await runLocal(parsed);
    if (out) return print(out);
    // A server, which keeps running: `devnet serve` has started its own; `start` starts here.
    if (parsed.key === "start") await import("../main.ts");
    return -1;
  }
  const config = loadConfig(process.env.BLOCKGATE_CONFIG);
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    const handed = await handOff(config, argv);
    if (handed) return print(handed);
  }
  if (!databaseUrl) baselineWasmOnly();
  const db = await openStore(config, databaseUrl, schemaPolicy(config, parsed));
  try {
    return print(await runParsed(db, parsed satisfies ParsedLine, config));
  } finally {
    await db.close();
  }
}

/**
 * A command on PGlite starts PostgreSQL in WebAssembly, runs a few statements and exits: V8's
 * optimizing tier, compiling the functions that start-up runs most, never pays back its cost
 * there (most of such a process's CPU), so its baseline compiler alone runs them. Set before
 * PGlite compiles its module; the gateway (`start`) keeps both tiers.
 */
function baselineWasmOnly(): void {
  setFlagsFromString("--liftoff-only");
}

/** A command that migrates itself opens the store as it is; the others as the gateway would. */
function schemaPolicy(config: Config, line: ParsedLine): SchemaPolicy {
  if (DB_COMMANDS[line.key]?.leavesSchema) return "leave";
  return config.database.migrate ? "apply" : "check";
}

/** The store, or an error that says which one could not be opened and why. */
async function openStore(
  config: Config,
  databaseUrl: string | undefined,
  migrations: SchemaPolicy,
): Promise<Database> {
  const options = { databaseUrl, pgliteDir: config.database.pgliteDir, poolSize: 2, migrations };
  try {
    return await openDatabase(options);
  } catch (err) {
    if (err instanceof SchemaMismatch) throw err;
    throw new Error(`cannot open the database (${storeName(config, databaseUrl)}): ${reason(err)}`);
  }
}

/** PostgreSQL's host, port and database (never the password), or the PGlite folder. */
function storeName(config: Config, databaseUrl: string | undefined): string {
  if (!databaseUrl) return `PGlite in ${config.database.pgliteDir}`;
  try {
    const url = new URL(databaseUrl);
    return `PostgreSQL at ${url.host}${url.pathname}`;
  } catch {
    return "PostgreSQL at DATABASE_URL";
  }
}

/** An error's words (a connection refused at every address of a host has none of its own). */
function reason(err: unknown): string {
  const e = err as { message?: string; code?: string; errors?: { message?: string }[] };
  return e.message || e.errors?.[0]?.message || e.code || String(err);
}

/**
 * Runs the command inside the gateway that holds the PGlite store, which parses the same line
 * and runs the same code. Null when no gateway holds it (no hand-off file, or the process that
 * wrote it is gone): the CLI opens the store itself. When the gateway is there but does not run
 * the command, the answer says what failed, as it happened.
 */
async function handOff(config: Config, argv: string[]): Promise<CommandOutput | null> {
  const admin = readAdminFile(config);
  if (!admin) return null;
  const gone = admin.pid !== undefined && !alive(admin.pid);
  const answer = await postToGateway({ url: admin.url, credential: admin.secret }, "/admin/cli", {
    argv,
  });
  if ("unreachable" in answer) {
    // A gateway that drains (SIGTERM) no longer accepts connections but holds the store until
    // its calls are settled; it removes the file only after closing it. Opening the store
    // meanwhile would make two processes write one PGlite folder.
    if (admin.pid === undefined || gone) return null;
    return {
      text: `the gateway (pid ${admin.pid}) holds the PGlite store, and ${admin.url} does not answer: ${answer.unreachable}; if it is shutting down, try again once it has exited (if no gateway runs, remove ${adminFilePath(config)})`,
      code: 1,
    };
  }
  const out = commandOutput(answer.json);
  if (answer.status === 200 && out) return out;
  // What answers is not the process that wrote the file: that one is gone, and the store free.
  if (gone) return null;
  return {
    text: `the gateway at ${admin.url}${admin.pid === undefined ? "" : ` (pid ${admin.pid})`} did not run the command: ${refusal(answer)}`,
    code: 1,
  };
}

/** The gateway's /admin/cli answer as a command's output, or null when it is not one. */
function commandOutput(json: unknown): CommandOutput | null {
  const out = json as Partial<CommandOutput> | null;
  if (typeof out?.text !== "string" || typeof out.code !== "number") return null;
  return isView(out.view)
    ? { text: out.text, code: out.code, view: out.view }
    : { text: out.text, code: out.code };
}

/** Whether process `pid` exists (EPERM: it does, as another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Prints a result: exit 0 to stdout, else stderr; a table as a table where a person reads it. */
function print(out: CommandOutput): number {
  const stream = out.code === 0 ? process.stdout : process.stderr;
  const text =
    out.view && stream.isTTY
      ? renderView(out.view, wantsColour(stream, process.env))
      : printable(out.text);
  stream.write(`${text}\n`);
  return out.code;
}

cli(process.argv.slice(2))
  .then((code) => {
    if (code >= 0) process.exitCode = code;
  })
  .catch((err: unknown) => {
    process.stderr.write(
      err instanceof ConfigError ? `${err.message}\n` : `blockgate: ${(err as Error).message}\n`,
    );
    process.exitCode = 1;
  });
