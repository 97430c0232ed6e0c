// The gateway bench/fuzz.ts aims at, in a process of its own so that its memory is measured apart
// from devnet's and from the bench's: started against the devnet Core, Electrum server and indexer
// named in argv[2] (JSON, as bench/devnet-process.ts prints them), with the default config of a
// fresh clone otherwise (mainnet only, PGlite in memory). Prints `{url, token}` (an account with
// plenty of credits) as one JSON line, then answers, one JSON line each, the lines written to its
// stdin: `mem` (process.memoryUsage(), the V8 heap's figures and the bounded caches' sizes), `gc`
// (a full collection first, when started with --expose-gc, then as `mem`), `ledger` (the ledger
// check of `blockgate ledger check`). Runs until its stdin closes.
import { createInterface } from "node:readline";
import { getHeapSpaceStatistics, getHeapStatistics, writeHeapSnapshot } from "node:v8";
import { issueToken } from "../src/access/tokens.ts";
import { startGateway } from "../src/app/app.ts";
import { createAccount } from "../src/billing/ledger/accounts.ts";
import { checkLedger, grantCredits } from "../src/billing/ledger/ledger.ts";
import { parseConfig } from "../src/config/load.ts";

interface Upstreams {
  core: { url: string; user: string; password: string };
  indexer: { url: string; secret: string };
  electrum: { url: string };
}

const upstreams = JSON.parse(process.argv[2] ?? "{}") as Upstreams;
const config = parseConfig({
  server: { port: 0 },
  database: { pgliteDir: "memory://" },
  demo: { enabled: false },
  log: { level: "silent" },
  networks: ["mainnet"],
});
const gateway = await startGateway(config, {
  nodeUpstreams: {
    mainnet: [{ ...upstreams.core, timeoutMs: 10_000, connections: 16, coalesceCallsMax: 16 }],
  },
  graphUpstreams: {
    mainnet: [
      {
        url: upstreams.indexer.url,
        adminSecret: upstreams.indexer.secret,
        timeoutMs: 10_000,
        connections: 16,
      },
    ],
  },
  electrumUpstreams: {
    mainnet: [
      {
        url: upstreams.electrum.url,
        timeoutMs: 10_000,
        connectTimeoutMs: 5_000,
        connections: 2,
        inFlightMax: 100,
        lineBytesMax: 16 * 1024 * 1024,
        pingIntervalMs: 60_000,
        reconnectMaxMs: 2_000,
        tlsVerify: true,
      },
    ],
  },
  noAdminFile: true,
});
const account = await createAccount(gateway.app.db, "fuzz");
await grantCredits(gateway.app.db, account.id, 1_000_000_000_000);
const { token } = await issueToken(gateway.app.db, account.id);
const unified = await gateway.app.unifiedApi();
process.stdout.write(`${JSON.stringify({ url: gateway.url, token })}\n`);

function memory() {
  const heap = getHeapStatistics();
  return {
    ...process.memoryUsage(),
    heapSizeLimit: heap.heap_size_limit,
    mallocedMemory: heap.malloced_memory,
    /** Large objects (strings and arrays past ~256 KiB), live or not yet collected. */
    largeObjects: getHeapSpaceStatistics().find((sp) => sp.space_name === "large_object_space")
      ?.space_used_size,
    caches: {
      documents: unified.documents.stats,
      tokens: gateway.app.tokens.size,
    },
  };
}

const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  void (async () => {
    const command = line.trim();
    if (command === "mem") process.stdout.write(`${JSON.stringify(memory())}\n`);
    else if (command === "gc") {
      globalThis.gc?.();
      process.stdout.write(`${JSON.stringify(memory())}\n`);
    } else if (command.startsWith("snapshot ")) {
      globalThis.gc?.();
      process.stdout.write(`${JSON.stringify({ file: writeHeapSnapshot(command.slice(9)) })}\n`);
    } else if (command === "ledger") {
      const checks = await checkLedger(gateway.app.db);
      process.stdout.write(
        `${JSON.stringify({ accounts: checks.length, failed: checks.filter((c) => !c.ok) })}\n`,
      );
    }
  })();
});
lines.on("close", () => {
  void gateway.close().then(() => process.exit(0));
});
