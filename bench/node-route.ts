// Throughput of the node route, side by side in one run: getrawtransaction sent (1) straight to
// devnet's Core, (2) through a bare pass-through proxy (node:http + undici: no auth, no billing),
// (3) through the gateway on PGlite and (4) on PostgreSQL (when DATABASE_URL is set), with billing
// and durable audit. Devnet, the proxy and each gateway run in processes of their own.
// Each is measured `rounds` times, the order rotating, and medians are printed with the spread.
// Then concurrency 1: what the gateway adds to a call's p50 over the bare proxy. Each server runs
// in a process of its own (bench/node-target-process.ts), so its CPU per call is read from it
// alone; it is printed too, and the gateway's against the proxy's (on PostgreSQL, its processes'
// share included: read from /proc, so nothing else may use PostgreSQL meanwhile).
// Each server first answers WARM_CALLS calls (default 12,000), measured apart and printed as its
// start-up: a gateway on PGlite compiles PostgreSQL's hottest WebAssembly again with V8's
// optimizing tier in the background over about its first ten thousand calls, a one-time cost that
// a 500-call warm-up left inside the rounds (docs/benchmarks.md has the figures).
// Loopback only; bounded by count. Usage:
//   [METHOD=getrawtransaction|getblockheader|getblock] [DATABASE_URL=postgres://…] [COALESCE_CALLS_MAX=16,0] [PLANS=none,cache,memory,redis] [WARM_CALLS=12000] [GATEWAY_NODE_FLAGS=…] npx tsx bench/node-route.ts [calls] [concurrency] [rounds]
// GATEWAY_NODE_FLAGS: Node's flags for the gateways' processes (bench/child.ts; default: as deployed).
// COALESCE_CALLS_MAX: one gateway per store for each value of its coalesceCallsMax (0: each
// request goes to Core as it came), measured side by side; unset, one with the config's default.
// PLANS=none,memory,redis: one gateway per store for each, the account on a plan whose every limit
// (token and account rates, calls in flight, credit caps per day and cycle) is checked and never
// reached, counters in memory or in Redis (REDIS_URL): what the limits phase costs a call. REDIS_URL
// also gives the response cache its Redis tier (every call a miss there): `cache` is no plan with
// that tier alone, so the plan's share of a Redis run can be told from the cache's.
import { readFileSync } from "node:fs";
import { Agent, request } from "undici";
import { getrawtransactionBodies } from "./block-277647.ts";
import { type Child, cpuSpent, GATEWAY_NODE_FLAGS, startChild } from "./child.ts";
import type { NodeGatewayOptions } from "./node-gateway.ts";
import { postgresCpuSince, postgresCpuUs } from "./postgres-cpu.ts";

const CALLS = Number(process.argv[2] ?? 4000);
const CONCURRENCY = Number(process.argv[3] ?? 64);
const ROUNDS = Number(process.argv[4] ?? 3);
const WARM_CALLS = Number(process.env.WARM_CALLS ?? 12_000);
const BLOCKS = Object.values(
  JSON.parse(
    readFileSync(new URL("../data/chain/blocks/INDEX.json", import.meta.url), "utf8"),
  ) as Record<string, { blocks: { height: number; hash: string }[] }>,
).flatMap((f) => f.blocks);
// METHOD=getblockheader | getblock (verbosity 1) over the blocks of heights 1–255 (small blocks,
// so the figure is the route's cost, not the block's size); getrawtransaction by default.
const METHOD = process.env.METHOD ?? "getrawtransaction";
const SMALL_BLOCKS = BLOCKS.filter((b) => b.height >= 1 && b.height <= 255).map((b) => b.hash);
// The calls take turns over the 213 transactions of block 277647 (real data devnet serves), so
// calls in flight together ask for different transactions: the gateway shares one trip among
// identical calls in flight, which a bare proxy does not, and one txid for every call
// would measure that sharing rather than what billing costs.
const bodies =
  METHOD === "getrawtransaction"
    ? getrawtransactionBodies()
    : SMALL_BLOCKS.map((hash, i) =>
        JSON.stringify({
          jsonrpc: "2.0",
          id: i,
          method: METHOD,
          params: METHOD === "getblock" ? [hash, 1] : [hash],
        }),
      );

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
  /** CPU the target's process spent per call (devnet's, for Core directly). */
  serverUs: number;
  /** CPU this process, the client, spent per call. */
  clientUs: number;
  /** CPU PostgreSQL's processes spent per call meanwhile (the ledger on PostgreSQL). */
  postgresUs: number;
}

/** Where calls go, and the process that answers them (its CPU read before and after a run). */
interface Target {
  label: string;
  url: string;
  headers: Record<string, string>;
  process: Child<unknown>;
}

async function run(t: Target, n: number, c: number) {
  const { url, headers } = t;
  const dispatcher = new Agent({ connections: c, keepAliveTimeout: 10_000 });
  const latencies: number[] = [];
  let next = 0;
  const serverBefore = await t.process.ask<NodeJS.CpuUsage>("cpu");
  const cpuBefore = process.cpuUsage();
  const postgresBefore = postgresCpuUs();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) {
        const body = bodies[next++ % bodies.length]!;
        const t = performance.now();
        const res = await request(url, {
          method: "POST",
          body,
          headers: { "content-type": "application/json", ...headers },
          dispatcher,
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode} from ${url}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const postgresUs = postgresCpuSince(postgresBefore) / n;
  const serverUs = cpuSpent(serverBefore, await t.process.ask<NodeJS.CpuUsage>("cpu")) / n;
  await dispatcher.close();
  const clientUs = (cpu.user + cpu.system) / n;
  return {
    perSecond: n / seconds,
    ...percentiles(latencies),
    latencies,
    serverUs,
    clientUs,
    postgresUs,
  };
}

function percentiles(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    p50: sorted[Math.floor(sorted.length * 0.5)] ?? 0,
    p99: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
  };
}

type Core = { url: string; user: string; password: string };

/** The bare proxy, or a gateway with `options`, in a process of its own. */
async function targetProcess(core: Core, kind: "proxy" | "gateway", options: NodeGatewayOptions) {
  return startChild<{ url: string }>(
    "./node-target-process.ts",
    [JSON.stringify({ core, kind, options })],
    process.env,
    kind === "gateway" ? GATEWAY_NODE_FLAGS : [],
  );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const devnet = await startChild<{ core: Core }>("./devnet-process.ts");
const core = devnet.info.core;
const coreAuth = {
  authorization: `Basic ${Buffer.from(`${core.user}:${core.password}`).toString("base64")}`,
};
const proxy = await targetProcess(core, "proxy", { connections: CONCURRENCY * 2 });
const targets: Target[] = [
  { label: "devnet Core directly", url: core.url, headers: coreAuth, process: devnet },
  {
    label: "bare proxy (no auth, no billing)",
    url: proxy.info.url,
    headers: {},
    process: proxy,
  },
];
const coalesceSettings = process.env.COALESCE_CALLS_MAX
  ? process.env.COALESCE_CALLS_MAX.split(",").map(Number)
  : [undefined];
const gateways: Child<{ url: string }>[] = [];
const stores: [string, string | undefined][] = [["PGlite", undefined]];
if (process.env.DATABASE_URL) stores.push(["PostgreSQL", process.env.DATABASE_URL]);
const planSettings = process.env.PLANS
  ? process.env.PLANS.split(",").map((p) =>
      p === "none" ? undefined : (p as "memory" | "redis" | "cache"),
    )
  : [undefined];
for (const [store, databaseUrl] of stores) {
  for (const calls of coalesceSettings) {
    for (const plan of planSettings) {
      const gateway = await targetProcess(core, "gateway", {
        connections: CONCURRENCY * 2,
        databaseUrl,
        coalesceCallsMax: calls,
        plan,
      });
      gateways.push(gateway);
      const setting =
        (calls === undefined ? "" : calls === 0 ? ", no combining" : `, combining ≤${calls}`) +
        (process.env.PLANS
          ? plan === "cache"
            ? ", no plan, Redis cache tier"
            : plan
              ? `, plan (${plan})`
              : ", no plan"
          : "");
      targets.push({
        label: `gateway, ${store}${setting}`,
        url: gateway.info.url,
        headers: {},
        process: gateway,
      });
    }
  }
}

const warmUps = new Map<string, Figures>();
for (const t of targets) warmUps.set(t.label, await run(t, WARM_CALLS, CONCURRENCY));
const results = new Map<string, Figures[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < targets.length; k++) {
    const t = targets[(k + round) % targets.length]!;
    const r = await run(t, CALLS, CONCURRENCY);
    results.set(t.label, [...(results.get(t.label) ?? []), r]);
  }
}
console.log(
  `${CALLS} ${METHOD} calls, ${CONCURRENCY} in flight, ${ROUNDS} rounds (median [min–max])`,
);
const proxyRate = median((results.get(targets[1]!.label) ?? []).map((r) => r.perSecond));
// What a server costs per call: its own process's CPU, plus PostgreSQL's (the gateway's ledger).
// For Core directly, devnet's process: Core's own CPU per call, and the client's (this process).
const cpuOf = (label: string) => {
  const rs = results.get(label) ?? [];
  return {
    server: median(rs.map((r) => r.serverUs)),
    client: median(rs.map((r) => r.clientUs)),
    postgres: median(rs.map((r) => r.postgresUs)),
  };
};
const proxyCpu = cpuOf(targets[1]!.label).server;
for (const t of targets) {
  const rs = results.get(t.label) ?? [];
  const rates = rs.map((r) => r.perSecond);
  const { server, client, postgres } = cpuOf(t.label);
  const serverCpu = server + (t.label.includes("PostgreSQL") ? postgres : 0);
  const cpu =
    t === targets[0]
      ? `Core CPU ${server.toFixed(0)} µs/call, client ${client.toFixed(0)}`
      : `server CPU ${serverCpu.toFixed(0)} µs/call${t.label.includes("PostgreSQL") ? ` (PostgreSQL ${postgres.toFixed(0)})` : ""}`;
  const ratio = t.label.startsWith("gateway")
    ? `  ÷ proxy ${(median(rates) / proxyRate).toFixed(2)}x calls/s, ${(serverCpu / proxyCpu).toFixed(2)}x CPU`
    : "";
  const warm = warmUps.get(t.label);
  const startUp = warm
    ? `  (first ${WARM_CALLS} calls: ${(warm.serverUs + (t.label.includes("PostgreSQL") ? warm.postgresUs : 0)).toFixed(0)} µs/call)`
    : "";
  console.log(
    `${t.label.padEnd(45)} ${median(rates).toFixed(0).padStart(6)} calls/s [${Math.min(...rates).toFixed(0)}–${Math.max(...rates).toFixed(0)}]  p50 ${median(rs.map((r) => r.p50)).toFixed(2)} ms  p99 ${median(rs.map((r) => r.p99)).toFixed(2)} ms  ${cpu}${ratio}${startUp}`,
  );
}
// Concurrency 1: the latency a call gains through the gateway over the bare proxy. The calls are
// made in `rounds` slices, the targets taking turns, so that a shared machine's load falls on all.
const serial = Math.min(CALLS, 1000);
const serialLatencies = new Map<string, number[]>();
const slice = Math.ceil(serial / ROUNDS);
for (let round = 0; round < ROUNDS; round++) {
  const rest = targets.slice(1);
  for (let k = 0; k < rest.length; k++) {
    const t = rest[(k + round) % rest.length]!;
    const r = await run(t, slice, 1);
    serialLatencies.set(t.label, [...(serialLatencies.get(t.label) ?? []), ...r.latencies]);
  }
}
for (const t of targets.slice(1)) {
  const r = percentiles(serialLatencies.get(t.label) ?? []);
  console.log(
    `concurrency 1, ${t.label.padEnd(45)} p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`,
  );
}
for (const gateway of gateways.reverse()) await gateway.stop();
await proxy.stop();
await devnet.stop();
