// Throughput of the node route, side by side in one run: getrawtransaction sent (1) straight to
// devnet's Core, (2) through a bare pass-through proxy (node:http + undici: no auth, no billing,
// in this process like the gateway), (3) through the gateway on PGlite and (4) on PostgreSQL
// (when DATABASE_URL is set), with billing and durable audit. Devnet runs in its own process.
// Each is measured `rounds` times, the order rotating, and medians are printed with the spread.
// Then concurrency 1: what the gateway adds to a call's p50 over the bare proxy. Each server's CPU per
// call is printed too, and the gateway's against the proxy's (on PostgreSQL, its processes' share
// included: read from /proc, so nothing else may use PostgreSQL meanwhile).
// Loopback only; bounded by count. Usage:
//   [METHOD=getrawtransaction|getblockheader|getblock] [DATABASE_URL=postgres://…] [COALESCE_CALLS_MAX=16,0] [PLANS=none,cache,memory,redis] npx tsx bench/node-route.ts [calls] [concurrency] [rounds]
// COALESCE_CALLS_MAX: one gateway per store for each value of its coalesceCallsMax (0: each
// request goes to Core as it came), measured side by side; unset, one with the config's default.
// PLANS=none,memory,redis: one gateway per store for each, the account on a plan whose every limit
// (token and account rates, calls in flight, credit caps per day and cycle) is checked and never
// reached, counters in memory or in Redis (REDIS_URL): what the limits phase costs a call. REDIS_URL
// also gives the response cache its Redis tier (every call a miss there): `cache` is no plan with
// that tier alone, so the plan's share of a Redis run can be told from the cache's.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { forwardToCore } from "./bare-proxy.ts";
import { nodeGateway } from "./node-gateway.ts";
import { postgresCpuSince, postgresCpuUs } from "./postgres-cpu.ts";

const CALLS = Number(process.argv[2] ?? 4000);
const CONCURRENCY = Number(process.argv[3] ?? 64);
const ROUNDS = Number(process.argv[4] ?? 3);
// The calls take turns over the 213 transactions of block 277647 (real data devnet serves), so
// calls in flight together ask for different transactions: the gateway shares one trip among
// identical calls in flight, which a bare proxy does not, and one txid for every call
// would measure that sharing rather than what billing costs.
const BLOCKS = Object.values(
  JSON.parse(
    readFileSync(new URL("../data/chain/blocks/INDEX.json", import.meta.url), "utf8"),
  ) as Record<string, { blocks: { height: number; hash: string; tx: string[] }[] }>,
).flatMap((f) => f.blocks);
const TXIDS = (BLOCKS.find((b) => b.height === 277647) ?? { tx: [] }).tx;
if (TXIDS.length < 200) throw new Error("block 277647 is not in data/chain/blocks/INDEX.json");
// METHOD=getblockheader | getblock (verbosity 1) over the blocks of heights 1–255 (small blocks,
// so the figure is the route's cost, not the block's size); getrawtransaction by default.
const METHOD = process.env.METHOD ?? "getrawtransaction";
const SMALL_BLOCKS = BLOCKS.filter((b) => b.height >= 1 && b.height <= 255).map((b) => b.hash);
const bodies =
  METHOD === "getrawtransaction"
    ? TXIDS.map((txid, i) =>
        JSON.stringify({ jsonrpc: "2.0", id: i, method: "getrawtransaction", params: [txid] }),
      )
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
  /** CPU this process spent per call (the client's share included; see cpuPerCall). */
  cpuUs: number;
  /** CPU PostgreSQL's processes spent per call meanwhile (the ledger on PostgreSQL). */
  postgresUs: number;
}

async function run(url: string, headers: Record<string, string>, n: number, c: number) {
  const dispatcher = new Agent({ connections: c, keepAliveTimeout: 10_000 });
  const latencies: number[] = [];
  let next = 0;
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
  await dispatcher.close();
  const cpuUs = (cpu.user + cpu.system) / n;
  return { perSecond: n / seconds, ...percentiles(latencies), latencies, cpuUs, postgresUs };
}

function percentiles(latencies: number[]) {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    p50: sorted[Math.floor(sorted.length * 0.5)] ?? 0,
    p99: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
  };
}

/** Devnet in its own process (bench/devnet-process.ts). */
async function devnetProcess() {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("./devnet-process.ts", import.meta.url))],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0] as string);
    });
    child.once("exit", (code) => reject(new Error(`devnet exited ${code}`)));
  });
  const info = JSON.parse(line) as { core: { url: string; user: string; password: string } };
  return { ...info, stop: () => child.stdin.end() };
}

/** The bare proxy: every POST forwarded to Core as it came, the answer sent back as it came. */
async function bareProxy(core: { url: string; user: string; password: string }) {
  const { handle, pool } = forwardToCore(core, CONCURRENCY * 2);
  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      await pool.close();
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const devnet = await devnetProcess();
const coreAuth = {
  authorization: `Basic ${Buffer.from(`${devnet.core.user}:${devnet.core.password}`).toString("base64")}`,
};
const proxy = await bareProxy(devnet.core);
const targets: { label: string; url: string; headers: Record<string, string> }[] = [
  { label: "devnet Core directly", url: devnet.core.url, headers: coreAuth },
  { label: "bare proxy (no auth, no billing)", url: proxy.url, headers: {} },
];
const coalesceSettings = process.env.COALESCE_CALLS_MAX
  ? process.env.COALESCE_CALLS_MAX.split(",").map(Number)
  : [undefined];
const gateways: { close(): Promise<void> }[] = [];
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
      const gateway = await nodeGateway(devnet.core, {
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
      targets.push({ label: `gateway, ${store}${setting}`, url: gateway.url, headers: {} });
    }
  }
}

for (const t of targets) await run(t.url, t.headers, Math.min(CALLS, 500), CONCURRENCY); // warm-up
const results = new Map<string, Figures[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < targets.length; k++) {
    const t = targets[(k + round) % targets.length]!;
    const r = await run(t.url, t.headers, CALLS, CONCURRENCY);
    results.set(t.label, [...(results.get(t.label) ?? []), r]);
  }
}
console.log(
  `${CALLS} ${METHOD} calls, ${CONCURRENCY} in flight, ${ROUNDS} rounds (median [min–max])`,
);
const proxyRate = median((results.get(targets[1]!.label) ?? []).map((r) => r.perSecond));
// The client runs in this process too: its CPU per call is what this process spends calling Core
// directly (no server here), the same requests and answers. What a server costs per call is this
// process's CPU through it, less the client's, plus PostgreSQL's (the gateway's ledger).
const cpuOf = (label: string) => {
  const rs = results.get(label) ?? [];
  return { own: median(rs.map((r) => r.cpuUs)), postgres: median(rs.map((r) => r.postgresUs)) };
};
const clientCpu = cpuOf(targets[0]!.label).own;
const proxyCpu = cpuOf(targets[1]!.label).own - clientCpu;
for (const t of targets) {
  const rs = results.get(t.label) ?? [];
  const rates = rs.map((r) => r.perSecond);
  const { own, postgres } = cpuOf(t.label);
  const serverCpu = own - clientCpu + (t.label.includes("PostgreSQL") ? postgres : 0);
  const cpu =
    t === targets[0]
      ? `client CPU ${clientCpu.toFixed(0)} µs/call`
      : `server CPU ${serverCpu.toFixed(0)} µs/call${t.label.includes("PostgreSQL") ? ` (PostgreSQL ${postgres.toFixed(0)})` : ""}`;
  const ratio = t.label.startsWith("gateway")
    ? `  ÷ proxy ${(median(rates) / proxyRate).toFixed(2)}x calls/s, ${(serverCpu / proxyCpu).toFixed(2)}x CPU`
    : "";
  console.log(
    `${t.label.padEnd(45)} ${median(rates).toFixed(0).padStart(6)} calls/s [${Math.min(...rates).toFixed(0)}–${Math.max(...rates).toFixed(0)}]  p50 ${median(rs.map((r) => r.p50)).toFixed(2)} ms  p99 ${median(rs.map((r) => r.p99)).toFixed(2)} ms  ${cpu}${ratio}`,
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
    const r = await run(t.url, t.headers, slice, 1);
    serialLatencies.set(t.label, [...(serialLatencies.get(t.label) ?? []), ...r.latencies]);
  }
}
for (const t of targets.slice(1)) {
  const r = percentiles(serialLatencies.get(t.label) ?? []);
  console.log(
    `concurrency 1, ${t.label.padEnd(45)} p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms`,
  );
}
for (const gateway of gateways.reverse()) await gateway.close();
await proxy.close();
devnet.stop();
