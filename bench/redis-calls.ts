// What a plan in Redis costs a node-route call, command by command: one gateway per kind (no plan,
// the cache tier alone, a plan in Redis) on PGlite, calls alternating between kinds in slices, and
// per call: this process's CPU, Redis's commands (INFO commandstats) and redis-server's CPU (/proc,
// so give it a Redis of its own: REDIS_URL=redis://127.0.0.1:<port>, REDIS_PID=<its pid>).
// The gateways run in this process, which runs with their deployed Node flags (GATEWAY_NODE_FLAGS).
//   [GATEWAY_NODE_FLAGS=…] REDIS_URL=… REDIS_PID=… npx tsx bench/redis-calls.ts [calls] [concurrency] [rounds]
import { Redis } from "ioredis";
import { Agent, request } from "undici";
import { getrawtransactionBodies } from "./block-277647.ts";
import { startChild, underGatewayFlags } from "./child.ts";
import { nodeGateway } from "./node-gateway.ts";
import { processCpuUs } from "./process-cpu.ts";

await underGatewayFlags();

const CALLS = Number(process.argv[2] ?? 2000);
const CONCURRENCY = Number(process.argv[3] ?? 64);
const ROUNDS = Number(process.argv[4] ?? 3);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const REDIS_PID = process.env.REDIS_PID;

interface Devnet {
  core: { url: string; user: string; password: string };
}

const bodies = getrawtransactionBodies();

const redisCpuUs = () => processCpuUs(REDIS_PID);

const probe = new Redis(REDIS_URL);
async function commandCounts(): Promise<Map<string, number>> {
  const info = await probe.info("all");
  const out = new Map<string, number>();
  for (const m of info.matchAll(/cmdstat_(\w+):calls=(\d+)/g)) out.set(m[1]!, Number(m[2]));
  // Reads Redis made of its clients: the round trips, whatever each carried.
  for (const m of info.matchAll(/total_(reads|writes)_processed:(\d+)/g))
    out.set(m[1]!, Number(m[2]));
  return out;
}

type Kind = "none" | "cache" | "redis";
async function gateway(core: Devnet["core"], kind: Kind) {
  const plan = kind === "none" ? undefined : kind;
  return { kind, ...(await nodeGateway(core, { connections: CONCURRENCY * 2, plan })) };
}

async function run(url: string, n: number) {
  const dispatcher = new Agent({ connections: CONCURRENCY });
  let next = 0;
  const cpu = process.cpuUsage();
  const redisCpu = redisCpuUs();
  const commands = await commandCounts();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const res = await request(url, {
          method: "POST",
          body: bodies[next++ % bodies.length]!,
          headers: { "content-type": "application/json" },
          dispatcher,
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
      }
    }),
  );
  const used = process.cpuUsage(cpu);
  const after = await commandCounts();
  const perCall = new Map<string, number>();
  for (const [name, calls] of after) {
    const d = (calls - (commands.get(name) ?? 0)) / n;
    if (d > 0.01 && name !== "info") perCall.set(name, d);
  }
  await dispatcher.close();
  return { cpuUs: (used.user + used.system) / n, redisUs: (redisCpuUs() - redisCpu) / n, perCall };
}

const devnet = await startChild<Devnet>("./devnet-process.ts");
const { core } = devnet.info;
const kinds = (process.env.KINDS ?? "none,cache,redis").split(",") as Kind[];
const gateways = [];
for (const k of kinds) gateways.push(await gateway(core, k));
for (const g of gateways) await run(g.url, 500);
const results = new Map<Kind, Awaited<ReturnType<typeof run>>[]>();
for (let r = 0; r < ROUNDS; r++) {
  for (const g of gateways)
    results.set(g.kind, [...(results.get(g.kind) ?? []), await run(g.url, CALLS)]);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
for (const [kind, rs] of results) {
  const commands = [...(rs.at(-1)?.perCall ?? [])]
    .map(([c, n]) => `${c} ${n.toFixed(2)}`)
    .join(", ");
  console.log(
    `${kind.padEnd(6)} process CPU ${median(rs.map((r) => r.cpuUs)).toFixed(0)} µs/call, Redis ${median(rs.map((r) => r.redisUs)).toFixed(0)} µs/call; commands a call: ${commands || "none"}`,
  );
}
for (const g of gateways) await g.close();
probe.disconnect();
await devnet.stop();
