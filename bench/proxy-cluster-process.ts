// The bare proxy of bench/node-route.ts run as `blockgate start --workers N` runs the gateway: a
// node:cluster primary and N workers sharing one port, each forwarding every POST to devnet's Core
// as it came (node:http + undici: no auth, no billing). Prints `{"url":…}` once every worker
// listens; stops when its stdin closes. Usage (bench/workers.ts starts it):
//   npx tsx bench/proxy-cluster-process.ts <workers> <core url> <user> <password>
import cluster from "node:cluster";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { forwardToCore } from "./bare-proxy.ts";

const [workers, coreUrl, user, password] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
];

if (cluster.isPrimary) {
  const count = Number(workers);
  let listening = 0;
  for (let i = 0; i < count; i += 1) {
    cluster.fork().on("message", (message: { port: number }) => {
      listening += 1;
      if (listening === count) {
        process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${message.port}/` })}\n`);
      }
    });
  }
  process.stdin.resume();
  process.stdin.on("end", () => {
    for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
    process.exit(0);
  });
} else {
  const { handle } = forwardToCore({ url: coreUrl, user, password }, 256);
  const server = createServer(handle);
  // listen(0) in a cluster: every worker gets the same port, the primary's first choice.
  server.listen(0, "127.0.0.1", () => {
    process.send?.({ port: (server.address() as AddressInfo).port });
  });
}
