// A server bench/node-route.ts measures, in a process of its own so that its CPU per call is read
// from it alone: argv[2] is JSON `{ core, kind, options }`, `kind` "proxy" (bare-proxy.ts: every
// POST forwarded to Core as it came) or "gateway" (node-gateway.ts with `options`). Prints `{url}`
// as one JSON line; a line `cpu` on stdin is answered with process.cpuUsage() as one JSON line,
// `threads` with its CPU split by thread (process-cpu.ts threadsCpuUs).
// Runs until its stdin closes.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { forwardToCore } from "./bare-proxy.ts";
import { type NodeGatewayOptions, nodeGateway } from "./node-gateway.ts";
import { threadsCpuUs } from "./process-cpu.ts";

interface Ask {
  core: { url: string; user: string; password: string };
  kind: "proxy" | "gateway";
  options: NodeGatewayOptions;
}

const { core, kind, options } = JSON.parse(process.argv[2] ?? "{}") as Ask;

async function proxy() {
  const { handle, pool } = forwardToCore(core, options.connections);
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await pool.close();
    },
  };
}

const target = kind === "proxy" ? await proxy() : await nodeGateway(core, options);
process.stdout.write(`${JSON.stringify({ url: target.url })}\n`);
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "cpu") process.stdout.write(`${JSON.stringify(process.cpuUsage())}\n`);
  if (line.trim() === "threads") process.stdout.write(`${JSON.stringify(threadsCpuUs())}\n`);
});
lines.on("close", () => {
  void target.close().then(() => process.exit(0));
});
