// Throughput of the node route: getrawtransaction through the gateway (auth, reserve, forward,
// settle + audit in one transaction) against the same calls sent straight to devnet's Core, in
// one process. Loopback only; bounded by count. Usage: npx tsx bench/node-route.ts [calls] [concurrency]
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

const CALLS = Number(process.argv[2] ?? 2000);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const TXID = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "getrawtransaction", params: [TXID] });
const dispatcher = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 10_000 });

async function run(
  url: string,
  headers: Record<string, string>,
): Promise<{ perSecond: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CALLS) {
        next++;
        const t = performance.now();
        const res = await request(url, {
          method: "POST",
          body,
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
    perSecond: CALLS / seconds,
    p50: latencies[Math.floor(CALLS * 0.5)]!,
    p99: latencies[Math.floor(CALLS * 0.99)]!,
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
await grantCredits(gateway.app.db, account.id, CALLS * 200 * 3);
const { token } = await issueToken(gateway.app.db, account.id);
const core = devnet.cores.get("mainnet")!;
const auth = {
  authorization: `Basic ${Buffer.from(`${core.user}:${core.password}`).toString("base64")}`,
};

await run(core.url, auth); // warm-up both paths
await run(`${gateway.url}/node/mainnet/${token}`, {});
const direct = await run(core.url, auth);
const viaGateway = await run(`${gateway.url}/node/mainnet/${token}`, {});
const store = process.env.DATABASE_URL ? "PostgreSQL" : "PGlite (memory)";
const fmt = (r: typeof direct) =>
  `${r.perSecond.toFixed(0)} calls/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`;
console.log(`${CALLS} getrawtransaction calls, ${CONCURRENCY} in flight, store ${store}`);
console.log(`BASELINE devnet Core directly:  ${fmt(direct)}`);
console.log(`through the gateway:            ${fmt(viaGateway)}`);
console.log(
  `ratio gateway / direct throughput = ${(viaGateway.perSecond / direct.perSecond).toFixed(2)}x`,
);
if (schema) await gateway.app.db.query(`DROP SCHEMA ${schema} CASCADE`);
await gateway.close();
await devnet.close();
await dispatcher.close();
