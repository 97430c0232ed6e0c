import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { bundled } from "./bundled.ts";

/** devnet's Core for mainnet in a child process (src/devnet/core-process.ts), to kill or freeze. */
export interface CoreProcess {
  url: string;
  user: string;
  password: string;
  child: ChildProcess;
  /** SIGKILL: the port is closed, connections are refused. */
  kill(): Promise<void>;
  /** SIGSTOP: the port stays open and accepts connections; nothing is answered. */
  freeze(): void;
  /** SIGCONT. */
  thaw(): void;
  /** Ends it, frozen, killed or not. */
  stop(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL("../../src/devnet/core-process.ts", import.meta.url));

export async function startCoreProcess(): Promise<CoreProcess> {
  const child = spawn(process.execPath, [await bundled({ file: SCRIPT })], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = once(child, "exit").then(() => undefined);
  const first = await Promise.race([
    once(createInterface({ input: child.stdout! }), "line").then(([line]) => line as string),
    exited.then(() => {
      throw new Error("devnet core process exited before it listened");
    }),
  ]);
  const info = JSON.parse(first) as { url: string; user: string; password: string };
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    ...info,
    child,
    async kill() {
      if (alive()) child.kill("SIGKILL");
      await exited;
    },
    freeze: () => child.kill("SIGSTOP"),
    thaw: () => child.kill("SIGCONT"),
    async stop() {
      if (alive()) {
        child.kill("SIGCONT");
        child.kill("SIGKILL");
      }
      await exited;
    },
  };
}

/** Gateway config for these as one network's node upstreams. */
export const nodeEntries = (cores: readonly CoreProcess[]) =>
  cores.map((c) => ({ url: c.url, user: c.user, password: c.password }));
