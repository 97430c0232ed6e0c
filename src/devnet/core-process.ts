// devnet's Bitcoin Core for mainnet alone, in a process of its own: for tests and benches that
// kill it (SIGKILL) or freeze it (SIGSTOP), which an in-process server cannot show faithfully (a
// frozen process keeps its sockets: connections are accepted by the kernel, nothing answers).
// Prints `{ url, user, password }` as one JSON line, then runs until its stdin closes.
import { randomBytes } from "node:crypto";
import { startCoreHttp } from "./bitcoin-core/http.ts";
import { coreMethods } from "./bitcoin-core/methods.ts";
import { loadDevnetChain } from "./chain.ts";
import { chainPrevouts } from "./prevouts.ts";

const chain = loadDevnetChain();
const core = await startCoreHttp({
  methods: coreMethods(chain, "mainnet", chainPrevouts(chain)),
  user: "devnet",
  password: randomBytes(16).toString("hex"),
});
process.stdout.write(
  `${JSON.stringify({ url: core.url, user: core.user, password: core.password })}\n`,
);
process.stdin.resume();
process.stdin.on("end", () => {
  void core.close().then(() => process.exit(0));
});
