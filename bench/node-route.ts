// Throughput of the node route: getrawtransaction through the gateway (auth, reserve, forward,
// settle + audit in one transaction) against the same calls sent straight to devnet's Core, in
// one process. The gateway's HTTP layer (Fastify) is measured side by side with the hand-written
// node:http router it replaced (bench/baseline/node-http-router.ts), on the same gateway state:
// `rounds` runs of each, alternating which goes first, medians and spread reported.
// Loopback only; bounded by count. Usage: npx tsx bench/node-route.ts [calls] [concurrency] [rounds]
// With DATABASE_URL set, the gateway uses PostgreSQL; otherwise PGlite in memory.
import { randomBytes } from "node:crypto";
import { Agent, request } from "undici";
import { createAccount } from "../src/accounts/accounts.ts";
import { startGateway } from "../src/app/app.ts";
import {
  resolveElectrumUpstreams,
  resolveGraphUpstreams,
  resolveNodeUpstreams,
} from "../src/app/upstreams.ts";
import { issueToken } from "../src/auth/tokens.ts";
import { parseConfig } from "../src/config/load.ts";
import { startDevnet } from "../src/devnet/devnet.ts";
import { grantCredits } from "../src/ledger/ledger.ts";
import { startBaselineServer } from "./baseline/node-http-router.ts";

const CALLS = Number(process.argv[2] ?? 2000);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const ROUNDS = Number(process.argv[4] ?? 5);
const TXID = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getrawtransaction", params: [TXID] });
const dispatcher = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 10_000 });

async function run(
  url: string,
  headers: Record<string, string>,
  method: "POST" | "GET" = "POST",
  calls = CALLS,
): Promise<{ perSecond: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < calls) {
        next++;
        const t = performance.now();
        const res = await request(url, {
          method,
          ...(method === "POST" ? { body } : {}),
          headers: { "content-type": "application/json", ...headers },
          dispatcher,
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: calls / seconds,
    p50: latencies[Math.floor(calls * 0.5)]!,
    p99: latencies[Math.floor(calls * 0.99)]!,
  };
}

const config = parseConfig({
  server: { port: 0 },
  database: { pgliteDir: "memory://" },
  demo: { enabled: false },
  log: { level: "silent" },
  networks: ["mainnet"],
});
const devnet = await startDevnet(config.networks);
const schema = process.env.DATABASE_URL ? `bench_${randomBytes(4).toString("hex")}` : undefined;
const gateway = await startGateway(config, {
  databaseUrl: process.env.DATABASE_URL,
  ...(schema ? { databaseSchema: schema } : {}),
  nodeUpstreams: resolveNodeUpstreams(config, devnet),
  graphUpstreams: resolveGraphUpstreams(config, devnet),
  electrumUpstreams: resolveElectrumUpstreams(config, devnet),
  noAdminFile: true,
});
const account = await createAccount(gateway.app.db, "bench");
await grantCredits(gateway.app.db, account.id, CALLS * 200 * (2 + 2 * ROUNDS + 2));
const { token } = await issueToken(gateway.app.db, account.id);
const core = devnet.cores.get("mainnet")!;
const auth = {
  authorization: `Basic ${Buffer.from(`${core.user}:${core.password}`).toString("base64")}`,
};
const baseline = await startBaselineServer(gateway.app, "127.0.0.1", 0);
const viaFastify = `${gateway.url}/node/mainnet/${token}`;
const viaBaseline = `${baseline.url}/node/mainnet/${token}`;

type Result = Awaited<ReturnType<typeof run>>;
await run(core.url, auth); // warm-up every path
await run(viaBaseline, {});
await run(viaFastify, {});
const direct = await run(core.url, auth);
const runs: { baseline: Result[]; fastify: Result[] } = { baseline: [], fastify: [] };
// The HTTP layer alone: GET /healthz asks no database and no upstream, so what it costs is the
// router's and the framework's own work per request.
const health: { baseline: Result[]; fastify: Result[] } = { baseline: [], fastify: [] };
const HEALTH_CALLS = CALLS * 5;
await run(`${baseline.url}/healthz`, {}, "GET", HEALTH_CALLS);
await run(`${gateway.url}/healthz`, {}, "GET", HEALTH_CALLS);
for (let round = 0; round < ROUNDS; round++) {
  const order =
    round % 2 === 0 ? (["baseline", "fastify"] as const) : (["fastify", "baseline"] as const);
  for (const which of order) {
    runs[which].push(await run(which === "baseline" ? viaBaseline : viaFastify, {}));
  }
  for (const which of order) {
    const url = `${which === "baseline" ? baseline.url : gateway.url}/healthz`;
    health[which].push(await run(url, {}, "GET", HEALTH_CALLS));
  }
}
const median = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const summary = (rs: Result[]) => {
  const perSecond = rs.map((r) => r.perSecond);
  return {
    perSecond: median(perSecond),
    min: Math.min(...perSecond),
    max: Math.max(...perSecond),
    p50: median(rs.map((r) => r.p50)),
    p99: median(rs.map((r) => r.p99)),
  };
};
/**
 * Two views of the same runs: the ratio of the medians, and the median of each round's ratio
 * (the two runs of a round are back to back, so they share whatever else the machine was doing).
 */
const compare = (rs: { baseline: Result[]; fastify: Result[] }) => {
  const ofMedians = summary(rs.fastify).perSecond / summary(rs.baseline).perSecond;
  const perRound = rs.fastify.map((r, i) => r.perSecond / rs.baseline[i]!.perSecond);
  const pct = (x: number) => `${x >= 1 ? "+" : ""}${((x - 1) * 100).toFixed(1)}%`;
  return `of medians ${pct(ofMedians)}, median of rounds ${pct(median(perRound))} (rounds ${perRound.map(pct).join(" ")})`;
};
const store = process.env.DATABASE_URL ? "PostgreSQL" : "PGlite (memory)";
const fmt = (r: Result) =>
  `${r.perSecond.toFixed(0)} calls/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`;
const fmtRounds = (rs: Result[]) => {
  const m = summary(rs);
  return `median ${m.perSecond.toFixed(0)} calls/s (${m.min.toFixed(0)}–${m.max.toFixed(0)} over ${rs.length} runs: ${rs.map((r) => r.perSecond.toFixed(0)).join(" ")}), p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms`;
};
console.log(
  `${CALLS} getrawtransaction calls, ${CONCURRENCY} in flight, ${ROUNDS} rounds, store ${store}`,
);
console.log(`BASELINE devnet Core directly:        ${fmt(direct)}`);
console.log(`BASELINE gateway, node:http router:   ${fmtRounds(runs.baseline)}`);
console.log(`gateway, Fastify:                     ${fmtRounds(runs.fastify)}`);
console.log(`Fastify / node:http router throughput: ${compare(runs)}`);

console.log(`${HEALTH_CALLS} GET /healthz, the HTTP layer alone:`);
console.log(`BASELINE node:http router:            ${fmtRounds(health.baseline)}`);
console.log(`Fastify:                              ${fmtRounds(health.fastify)}`);
console.log(`Fastify / node:http router throughput: ${compare(health)}`);
console.log(
  `ratio gateway (Fastify) / direct throughput = ${(summary(runs.fastify).perSecond / direct.perSecond).toFixed(2)}x`,
);
await new Promise((resolve) => baseline.server.close(resolve));
if (schema) await gateway.app.db.query(`DROP SCHEMA ${schema} CASCADE`);
await gateway.close();
await devnet.close();
await dispatcher.close();
