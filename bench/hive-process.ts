// Hive Gateway (@graphql-hive/gateway, a devDependency) in a process of its own, for bench/graphql.ts:
// proxy mode in front of the devnet indexer named in argv[2] (JSON: {url, secret}), with the
// indexer's own SDL as its schema (what an operator would point it at), on node:http, loopback.
// Its defaults otherwise, as an operator would run it. Prints `{url}` as one JSON line; a line
// `cpu` on stdin is answered with process.cpuUsage() as one JSON line. Runs until stdin closes.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createInterface } from "node:readline";
import { createGatewayRuntime } from "@graphql-hive/gateway";

const indexer = JSON.parse(process.argv[2] ?? "{}") as { url: string; secret: string };
const gateway = createGatewayRuntime({
  proxy: { endpoint: indexer.url, headers: { "x-hasura-admin-secret": indexer.secret } },
  schema: readFileSync(new URL("../schema/indexer.graphql", import.meta.url), "utf8"),
  logging: false,
});
const server = createServer(gateway);
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address() as AddressInfo;
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}/graphql` })}\n`);

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "cpu") process.stdout.write(`${JSON.stringify(process.cpuUsage())}\n`);
});
lines.on("close", () => {
  server.close();
  void Promise.resolve(gateway.dispose()).then(() => process.exit(0));
});
