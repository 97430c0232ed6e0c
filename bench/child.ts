// A benchmark's helper process (bench/*-process.ts) run under tsx: its first stdout line is what
// it offers (JSON), and each line written to its stdin is answered by one JSON line (`cpu`, `stats`).
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export interface Child<T> {
  info: T;
  /** V8's trace lines the child printed so far (under --trace-gc-nvp: one per collection). */
  traces: string[];
  ask<R>(command: string): Promise<R>;
  stop(): Promise<void>;
}

export async function startChild<T>(
  script: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
  /** Node's own flags for the child, e.g. `--cpu-prof` to profile it. */
  nodeArgs: string[] = [],
): Promise<Child<T>> {
  const child = spawn(
    process.execPath,
    [...nodeArgs, "--import", "tsx", fileURLToPath(new URL(script, import.meta.url)), ...args],
    // NODE_ENV=production unless given, as servers are deployed (and as `npm start` runs the
    // gateway): graphql-js skips a development check on every field it executes, in Hive
    // Gateway, devnet's indexer and the gateway alike.
    { stdio: ["pipe", "pipe", "inherit"], env: { ...env, NODE_ENV: env.NODE_ENV ?? "production" } },
  );
  const waiting: ((line: string) => void)[] = [];
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // V8's own tracing (a child started with --trace-gc-nvp) writes to stdout too: its lines, which
  // begin `[pid:0xisolate]`, go to `traces`, not to whoever waits for an answer.
  const traces: string[] = [];
  createInterface({ input: child.stdout }).on("line", (line) => {
    if (/^\[\d+:0x[0-9a-f]+\]/.test(line)) traces.push(line);
    else waiting.shift()?.(line);
  });
  const next = () =>
    new Promise<string>((resolve, reject) => {
      waiting.push(resolve);
      void exited.then(() => reject(new Error(`${script} exited`)));
    });
  const info = JSON.parse(await next()) as T;
  return {
    info,
    traces,
    async ask<R>(command: string) {
      const answer = next();
      child.stdin.write(`${command}\n`);
      return JSON.parse(await answer) as R;
    },
    async stop() {
      child.stdin.end();
      await exited;
    },
  };
}

/** Node's flags for the gateway's process as `npm start` and the image run it (decision 0071). */
export const DEPLOYED_GATEWAY_FLAGS = ["--max-semi-space-size=32"];

/** A bench's gateway processes' flags: as deployed, or GATEWAY_NODE_FLAGS ("" for Node's own). */
export const GATEWAY_NODE_FLAGS =
  process.env.GATEWAY_NODE_FLAGS === undefined
    ? DEPLOYED_GATEWAY_FLAGS
    : process.env.GATEWAY_NODE_FLAGS.split(" ").filter(Boolean);

/**
 * For a bench that runs the gateway in its own process: runs the bench again in a process of its
 * own with GATEWAY_NODE_FLAGS (through NODE_OPTIONS, which tsx's own process passes on) unless this
 * one has them, and exits with its code; returns only in the process that has them.
 */
export async function underGatewayFlags(): Promise<void> {
  const options = process.env.NODE_OPTIONS ?? "";
  if (GATEWAY_NODE_FLAGS.every((flag) => options.split(" ").includes(flag))) return;
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: { ...process.env, NODE_OPTIONS: [options, ...GATEWAY_NODE_FLAGS].join(" ").trim() },
  });
  const code = await new Promise<number>((resolve) => child.once("exit", (c) => resolve(c ?? 1)));
  process.exit(code);
}

/** A gateway's process (bench/*gateway-process.ts), with GATEWAY_NODE_FLAGS before `nodeArgs`. */
export function startGatewayChild<T>(
  script: string,
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
  nodeArgs: string[] = [],
): Promise<Child<T>> {
  return startChild<T>(script, args, env, [...GATEWAY_NODE_FLAGS, ...nodeArgs]);
}

/** CPU time a child spent between two `cpu` answers, in µs. */
export const cpuSpent = (before: NodeJS.CpuUsage, after: NodeJS.CpuUsage): number =>
  after.user - before.user + (after.system - before.system);
