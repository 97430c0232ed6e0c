import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:net";
import { createInterface } from "node:readline";
import { ensureBuild } from "../../scripts/ensure-build.mjs";
import type { NetworkName } from "../../src/config/schema.ts";
import type { DevnetEndpoints } from "../../src/devnet/endpoints.ts";

/** `blockgate devnet serve` running in a process of its own. */
export interface DevnetProcess {
  child: ChildProcess;
  /** Its JSON line: each network's URLs and credentials. */
  endpoints: Partial<Record<NetworkName, DevnetEndpoints>>;
  /** What it wrote to standard error so far. */
  stderr: () => string;
  /** SIGTERM, then its exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `blockgate devnet serve <args>` from dist/ (built by the suite's global setup) and
 * resolves with its JSON line, once every server listens; rejects with its standard error if it
 * exits first. For tests and benches that run the upstreams apart from the gateway.
 */
export async function spawnDevnet(args: readonly string[] = []): Promise<DevnetProcess> {
  await ensureBuild();
  const child = spawn(process.execPath, ["dist/cli.js", "devnet", "serve", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (s: string) => {
    stderr += s;
  });
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  const line = await Promise.race([
    once(createInterface({ input: child.stdout! }), "line").then(([l]) => l as string),
    exited.then(([code]) => {
      throw new Error(`devnet serve exited ${code} before it listened:\n${stderr}`);
    }),
  ]);
  return {
    child,
    endpoints: JSON.parse(line) as DevnetProcess["endpoints"],
    stderr: () => stderr,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      const [code, signal] = await exited;
      return { code, signal };
    },
  };
}

/** Listens on 127.0.0.1:`port`; rejects when it is taken. */
function listenOn(port: number): Promise<Server> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve(server));
  });
}

const closeAll = (servers: Server[]) =>
  Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));

/**
 * The first of `count` consecutive ports free on 127.0.0.1 a moment ago (each was bound, then
 * released): a `--port-base` for a test. Another process may still take one meanwhile.
 */
export async function freePortRun(count: number): Promise<number> {
  for (;;) {
    const first = await listenOn(0);
    const base = (first.address() as { port: number }).port;
    const held = [first];
    try {
      for (let p = base + 1; p < base + count; p += 1) held.push(await listenOn(p));
      return base;
    } catch {
      // One of the following ports is taken: try from another free port.
    } finally {
      await closeAll(held);
    }
  }
}

/**
 * `devnet serve` on `count` consecutive free ports: the run is free when found, but another
 * process of a busy suite may take one of its ports before devnet binds it; then another run.
 */
export async function spawnDevnetOnFreePorts(
  count: number,
  args: readonly string[],
): Promise<{ devnet: DevnetProcess; base: number }> {
  for (let attempt = 1; ; attempt += 1) {
    const base = await freePortRun(count);
    try {
      return { devnet: await spawnDevnet([...args, "--port-base", String(base)]), base };
    } catch (err) {
      if (attempt >= 5 || !/is in use/.test((err as Error).message)) throw err;
    }
  }
}
