// Upstream resilience under load: the node route through the gateway (billing on,
// PGlite in memory, in this process) against two devnet Cores, each in a process of its own
// (src/devnet/core-process.ts). Three runs of `seconds` each, every one on a fresh pair of Cores
// and a fresh gateway:
//   healthy  both Cores up throughout;
//   killed   one Core SIGKILLed a third of the way in;
//   frozen   one Core SIGSTOPped a third of the way in (SIGCONT at the end): its port still
//            accepts connections, nothing answers;
//   one Core a single Core from the start, no fault: the capacity the survivor has on its own.
// Prints calls/s, errors, p50/p99 and the ratio of calls/s to the healthy run, plus the gateway's
// hedges, retries and breaker openings. Loopback only. Usage:
//   [GATEWAY_NODE_FLAGS=…] npx tsx bench/failover.ts [seconds=30] [concurrency=32]
// The gateway runs in this process, which runs itself again with GATEWAY_NODE_FLAGS (default:
// the gateway's deployed flags, decision 0071; "" for Node's own).
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { issueToken } from "../src/access/tokens.ts";
import { startGateway } from "../src/app/app.ts";
import { createAccount } from "../src/billing/ledger/accounts.ts";
import { grantCredits } from "../src/billing/ledger/ledger.ts";
import { parseConfig } from "../src/config/load.ts";
import type { BitcoinCoreUpstreamConfig } from "../src/config/schema.ts";
import { underGatewayFlags } from "./child.ts";

await underGatewayFlags();

const SECONDS = Number(process.argv[2] ?? 30);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const WARMUP_CALLS = 2_000;

// Block 277647's 213 transactions, in turn, so that calls in flight together ask for different
// ones (identical calls in flight share one trip, which would hide the upstreams' work).
const TXIDS = (
  Object.values(
    JSON.parse(
      readFileSync(new URL("../data/chain/blocks/INDEX.json", import.meta.url), "utf8"),
    ) as Record<string, { blocks: { height: number; tx: string[] }[] }>,
  )
    .flatMap((f) => f.blocks)
    .find((b) => b.height === 277647) ?? { tx: [] }
).tx;
if (TXIDS.length < 200) throw new Error("block 277647 is not in data/chain/blocks/INDEX.json");
const bodies = TXIDS.map((txid, i) =>
  JSON.stringify({ jsonrpc: "2.0", id: i, method: "getrawtransaction", params: [txid] }),
);

interface Core {
  child: ChildProcess;
  entry: { url: string; user: string; password: string };
  exited: Promise<void>;
}

async function startCore(): Promise<Core> {
  const script = fileURLToPath(new URL("../src/devnet/core-process.ts", import.meta.url));
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = once(child, "exit").then(() => undefined);
  const [line] = (await once(createInterface({ input: child.stdout! }), "line")) as [string];
  return { child, entry: JSON.parse(line), exited };
}

async function stopCore(core: Core): Promise<void> {
  if (core.child.exitCode === null && core.child.signalCode === null) {
    core.child.kill("SIGCONT");
    core.child.kill("SIGKILL");
  }
  await core.exited;
}

type Fault = "healthy" | "killed" | "frozen" | "one Core";

interface Figures {
  fault: Fault;
  calls: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
  hedges: number;
  retries: number;
  breakerOpens: number;
}

async function counterSum(
  registry: {
    getSingleMetric(name: string): { get(): Promise<{ values: { value: number }[] }> } | undefined;
  },
  name: string,
): Promise<number> {
  const metric = registry.getSingleMetric(name);
  return metric ? (await metric.get()).values.reduce((s, v) => s + v.value, 0) : 0;
}

async function measure(fault: Fault): Promise<Figures> {
  // "one Core": the gateway is given a single Core from the start — what the survivor of a kill
  // can carry on this machine, where the Cores share the CPUs with the gateway and the clients.
  const cores = await Promise.all(
    fault === "one Core" ? [startCore()] : [startCore(), startCore()],
  );
  const config = parseConfig({
    server: { port: 0 },
    database: { pgliteDir: "memory://" },
    demo: { enabled: false },
    log: { level: "silent" },
    networks: ["mainnet"],
    cache: { bytesMax: 0, blockBytesMax: 0 }, // every call goes to a Core
    upstreams: { node: { mainnet: cores.map((c) => ({ ...c.entry, connections: 64 })) } },
  });
  const gateway = await startGateway(config, {
    nodeUpstreams: {
      mainnet: (config.upstreams.node?.mainnet ?? []).filter(
        (u): u is BitcoinCoreUpstreamConfig => u !== "devnet",
      ),
    },
    graphUpstreams: {},
    electrumUpstreams: {},
    noAdminFile: true,
  });
  const account = await createAccount(gateway.app.db, "bench");
  await grantCredits(gateway.app.db, account.id, 1_000_000_000_000);
  const { token } = await issueToken(gateway.app.db, account.id);
  const url = `${gateway.url}/node/mainnet/${token}`;
  const dispatcher = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 10_000 });

  // Warm-up, not measured: the JIT, the connections, the ledger's first lease.
  const warm = new Agent({ connections: CONCURRENCY });
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < WARMUP_CALLS) {
        const res = await request(url, {
          method: "POST",
          body: bodies[next++ % bodies.length]!,
          headers: { "content-type": "application/json" },
          dispatcher: warm,
        });
        await res.body.text();
      }
    }),
  );
  await warm.close();

  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const endAt = started + SECONDS * 1000;
  const victim = cores[1]!;
  const faultTimer = setTimeout(
    () => {
      if (fault === "killed") victim.child.kill("SIGKILL");
      if (fault === "frozen") victim.child.kill("SIGSTOP");
    },
    (SECONDS * 1000) / 3,
  );
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < endAt) {
        const body = bodies[next++ % bodies.length]!;
        const t = performance.now();
        try {
          const res = await request(url, {
            method: "POST",
            body,
            headers: { "content-type": "application/json" },
            dispatcher,
          });
          await res.body.text();
          if (res.statusCode !== 200) errors += 1;
        } catch {
          errors += 1;
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  clearTimeout(faultTimer);
  const registry = gateway.app.metrics.registry;
  const figures: Figures = {
    fault,
    calls: latencies.length,
    errors,
    perSecond: latencies.length / seconds,
    ...percentiles(latencies),
    hedges: await counterSum(registry, "blockgate_upstream_hedges_total"),
    retries: await counterSum(registry, "blockgate_upstream_retries_total"),
    breakerOpens: await counterSum(registry, "blockgate_upstream_breaker_opens_total"),
  };
  await dispatcher.close();
  await gateway.close();
  await Promise.all(cores.map(stopCore));
  return figures;
}

function percentiles(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
  return { p50: at(0.5), p99: at(0.99) };
}

console.log(
  `bench/failover: ${SECONDS} s per run, ${CONCURRENCY} clients, getrawtransaction through the gateway to two devnet Cores`,
);
const runs: Figures[] = [];
for (const fault of ["healthy", "killed", "frozen", "one Core"] as const) {
  const f = await measure(fault);
  runs.push(f);
  const ratio = f.perSecond / runs[0]!.perSecond;
  console.log(
    `${f.fault.padEnd(8)} ${f.perSecond.toFixed(0).padStart(6)} calls/s  ${String(f.calls).padStart(7)} calls  ${String(f.errors).padStart(4)} errors  p50 ${f.p50.toFixed(1)} ms  p99 ${f.p99.toFixed(1)} ms  ×${ratio.toFixed(2)} of healthy  (hedges ${f.hedges}, retries ${f.retries}, breaker opened ${f.breakerOpens}×)`,
  );
}
process.exit(0);
