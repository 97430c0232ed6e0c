// Devnet in a process of its own, for benchmarks that must not share a CPU thread with it: starts
// devnet for mainnet, prints its addresses as one JSON line, and runs until its stdin closes.
import { startDevnet } from "../src/devnet/devnet.ts";

const devnet = await startDevnet(["mainnet"]);
const core = devnet.cores.get("mainnet");
if (!core) throw new Error("no devnet Core");
process.stdout.write(
  `${JSON.stringify({ core: { url: core.url, user: core.user, password: core.password } })}\n`,
);
process.stdin.resume();
process.stdin.on("end", () => {
  void devnet.close().then(() => process.exit(0));
});
