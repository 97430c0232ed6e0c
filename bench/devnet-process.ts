// Devnet in a process of its own, for benchmarks that must not share a CPU thread with it: starts
// devnet for mainnet, prints its addresses as one JSON line, and runs until its stdin closes.
// A line `stats` on stdin is answered with one JSON line of what devnet's Core and indexer have
// counted so far (bench/graphql.ts reads how many upstream requests each side made), a line `cpu`
// with process.cpuUsage() (the upstreams' CPU time, for a side's figures per request).
import { createInterface } from "node:readline";
import { startDevnet } from "../src/devnet/devnet.ts";

const devnet = await startDevnet(["mainnet"]);
const core = devnet.cores.get("mainnet");
const indexer = devnet.indexers.get("mainnet");
const electrum = devnet.electrum.get("mainnet");
if (!core || !indexer || !electrum) throw new Error("no devnet Core, indexer or Electrum server");
process.stdout.write(
  `${JSON.stringify({
    core: { url: core.url, user: core.user, password: core.password },
    indexer: { url: indexer.url, secret: indexer.secret },
    electrum: { url: electrum.url },
  })}\n`,
);
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "stats") {
    process.stdout.write(`${JSON.stringify({ core: core.stats, indexer: indexer.stats })}\n`);
  } else if (line.trim() === "cpu") {
    process.stdout.write(`${JSON.stringify(process.cpuUsage())}\n`);
  }
});
lines.on("close", () => {
  void devnet.close().then(() => process.exit(0));
});
