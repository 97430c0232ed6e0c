import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";

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
 * A gateway in a process of its own (`src/main.ts`), its config written to `configFile` first;
 * resolves once it says where it listens. The one way tests start gateway processes.
 */
export async function spawnGateway(
  config: object,
  configFile: string,
  env: Record<string, string | undefined> = {},
): Promise<SpawnedGateway> {
  writeFileSync(configFile, JSON.stringify(config));
  const { child, output } = await startProcess(
    process.execPath,
    ["--import", "tsx", "src/main.ts"],
    { BLOCKGATE_CONFIG: configFile, ...env },
    /listening on http:\/\/\S+/,
  );
  const url = output().match(/listening on (http:\/\/\S+)/)![1]!;
  return { child, url, port: Number(new URL(url).port), output };
}
