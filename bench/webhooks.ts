// Webhooks at size: N endpoints (one account and token each) on one gateway, K
// regtest blocks; printed per block: the latency from the announcement (pollNow) to each
// endpoint's receipt of its signed delivery (the first, p50, p99, max, how many), the deliveries per second,
// the process's CPU time per delivery up to the last receipt (steadier than the rate on a loaded
// machine; a block's last records, written after it, are waited for before the next baseline),
// the rate against the baseline's, and the ledger at the end (one charged `newBlock` audit record of backend `webhook` per delivery,
// checkLedger ok on every account). Baseline, side by side: the same N deliveries' bodies,
// signed the same way, POSTed straight to the same receiver with the same concurrency
// (webhooks.concurrency) — the floor the queue, the dispatcher and the metering add to.
//
// In one process (gateway, devnet and the receiver share its CPU: the figures are an upper bound
// on what the gateway alone needs), run with the gateway's Node flags (GATEWAY_NODE_FLAGS).
// PostgreSQL when DATABASE_URL is set (a schema of its own, dropped at the end), else PGlite in
// memory. Loopback only; bounded: 60 s per block, then it stops.
// Usage:
//   [GATEWAY_NODE_FLAGS=…] [DATABASE_URL=postgres://…] npx tsx bench/webhooks.ts [N endpoints=200] [K blocks=3]
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { Agent, request } from "undici";
import { issueToken, liveOwner } from "../src/access/tokens.ts";
import { startGateway } from "../src/app/app.ts";
import { createAccount } from "../src/billing/ledger/accounts.ts";
import { checkLedger, grantCredits } from "../src/billing/ledger/ledger.ts";
import { parseConfig } from "../src/config/load.ts";
import type { BitcoinCoreUpstreamConfig } from "../src/config/schema.ts";
import { startDevnet } from "../src/devnet/devnet.ts";
import { registerEndpoint } from "../src/webhooks/register.ts";
import { signedHeaders } from "../src/webhooks/signing.ts";
import { underGatewayFlags } from "./child.ts";

// The gateway runs in this process: so does it here, with the Node flags it is deployed with
// (decision 0071); the straight POSTs beside it get them alike.
await underGatewayFlags();

const N = Number(process.argv[2] ?? 200);
const K = Number(process.argv[3] ?? 3);
const BLOCK_TIMEOUT_MS = 60_000;
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * q) - 1)] ?? Number.NaN;
const f = (n: number) => n.toFixed(1).padStart(7);

console.log(`bench/webhooks: N=${N} endpoints, K=${K} blocks; load average at start ${load()}`);

// The receiver: answers 204 at once, notes when each (path, block hash) arrived.
const arrivals = new Map<string, number[]>();
let onArrival: () => void = () => {};
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (c: Buffer) => {
    body += c.toString();
  });
  req.on("end", () => {
    const at = performance.now();
    res.writeHead(204).end();
    const hash = (JSON.parse(body) as { data?: { hash?: string } }).data?.hash ?? "baseline";
    const list = arrivals.get(hash) ?? [];
    list.push(at);
    arrivals.set(hash, list);
    onArrival();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

const devnet = await startDevnet(["regtest"]);
const core = devnet.cores.get("regtest");
const producer = devnet.producers.get("regtest");
if (!core || !producer) throw new Error("devnet has no regtest Core");
const config = parseConfig({
  server: { port: 0 },
  database: { pgliteDir: "memory://" },
  demo: { enabled: false },
  log: { level: "silent" },
  networks: ["regtest"],
  events: { pollMs: 600_000 },
  webhooks: { allowTargets: ["127.0.0.1/32"], endpointsPerAccountMax: 1 },
  upstreams: { node: { regtest: [{ url: core.url, user: core.user, password: core.password }] } },
});
const databaseUrl = process.env.DATABASE_URL || undefined;
const schema = databaseUrl ? `bench_${randomBytes(4).toString("hex")}` : undefined;
const gateway = await startGateway(config, {
  databaseUrl,
  ...(schema ? { databaseSchema: schema } : {}),
  nodeUpstreams: {
    regtest: (config.upstreams.node?.regtest ?? []).filter(
      (u): u is BitcoinCoreUpstreamConfig => u !== "devnet",
    ),
  },
  graphUpstreams: {},
  noAdminFile: true,
});
const { app } = gateway;
await app.events.untilLeading();
await app.events.pollNow(); // the first look: the tip known, nothing announced

const made = performance.now();
const secrets: string[] = [];
for (let i = 0; i < N; i++) {
  const account = await createAccount(app.db, `hook-bench-${i}`);
  await grantCredits(app.db, account.id, 1_000_000);
  const issued = await issueToken(app.db, account.id);
  const owner = (await liveOwner(app.db, issued.id))!;
  const { secret } = await registerEndpoint(app.db, config, app.webhookTargets, owner, {
    url: target,
    network: "regtest",
    event: "newBlock",
    args: {},
  });
  secrets.push(secret);
}
console.log(
  `gateway on ${schema ? "PostgreSQL" : "PGlite"}; ${N} accounts, tokens and endpoints in ${((performance.now() - made) / 1000).toFixed(1)} s`,
);

function waitFor(key: string, n: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), BLOCK_TIMEOUT_MS);
    const check = () => {
      if ((arrivals.get(key)?.length ?? 0) >= n) {
        clearTimeout(timer);
        resolve(true);
      }
    };
    onArrival = check;
    check();
  });
}

interface Run {
  latencies: number[];
  spanMs: number;
  /** This process's CPU time (all threads) from the start to the last receipt, in ms. */
  cpuMs: number;
}
const cpuSince = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
};
const summary = (label: string, r: Run, than?: Run) => {
  const s = [...r.latencies].sort((a, b) => a - b);
  const rate = (s.length / r.spanMs) * 1000;
  const ratio = than
    ? `  ${(rate / ((than.latencies.length / than.spanMs) * 1000)).toFixed(2)}× straight`
    : "";
  console.log(
    `  ${label.padEnd(34)} ${String(s.length).padStart(5)}/${N}  first ${f(s[0] ?? Number.NaN)} ms  p50 ${f(percentile(s, 0.5))} ms  p99 ${f(percentile(s, 0.99))} ms  max ${f(s[s.length - 1] ?? Number.NaN)} ms  ${f(rate)} deliveries/s  cpu ${(r.cpuMs / Math.max(1, s.length)).toFixed(2)} ms each${ratio}`,
  );
};

/** Waits (bounded) until no message is pending: the last batch recorded, its statements done. */
async function recorded(): Promise<void> {
  const by = Date.now() + 10_000;
  while (Date.now() < by) {
    const { rows } = await app.db.query<{ n: string }>(
      "SELECT count(*) AS n FROM webhook_messages WHERE status = 'pending'",
    );
    if (Number(rows[0]?.n) === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Baseline: the same deliveries, signed, POSTed straight with the same concurrency.
async function baseline(): Promise<Run> {
  arrivals.delete("baseline");
  const agent = new Agent({ pipelining: 0 });
  const body = JSON.stringify({ type: "newBlock", timestamp: new Date().toISOString(), data: {} });
  const cpu = process.cpuUsage();
  const start = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: config.webhooks.concurrency }, async () => {
      while (next < N) {
        const i = next++;
        const id = `msg_${randomBytes(16).toString("hex")}`;
        const res = await request(target, {
          method: "POST",
          dispatcher: agent,
          headers: {
            "content-type": "application/json",
            ...signedHeaders(secrets[i]!, id, body, new Date()),
          },
          body,
        });
        await res.body.dump();
      }
    }),
  );
  const cpuMs = cpuSince(cpu);
  await agent.close();
  const latencies = (arrivals.get("baseline") ?? []).map((t) => t - start);
  return { latencies, spanMs: Math.max(...latencies), cpuMs };
}

const runs: Run[] = [];
for (let k = 0; k < K; k++) {
  const base = await baseline();
  summary(`block ${k + 1}, baseline (direct POSTs)`, base);
  const change = producer.mine(1);
  const hash = change.connected[0]!.hash;
  const cpu = process.cpuUsage();
  const start = performance.now();
  await app.events.pollNow();
  const ok = await waitFor(hash, N);
  const cpuMs = cpuSince(cpu);
  const latencies = (arrivals.get(hash) ?? []).map((t) => t - start);
  const run = { latencies, spanMs: Math.max(...latencies), cpuMs };
  runs.push(run);
  summary(`block ${k + 1}, webhooks${ok ? "" : " (TIMED OUT)"}`, run, base);
  // The next baseline runs alone, not beside this block's last statements.
  await recorded();
}
const all = runs.flatMap((r) => r.latencies);
summary("all blocks, webhooks", {
  latencies: all,
  spanMs: runs.reduce((s, r) => s + r.spanMs, 0),
  cpuMs: runs.reduce((s, r) => s + r.cpuMs, 0),
});

// The ledger: one charged record per delivery, every account's invariants (every block's last
// settle was waited for).
const { rows } = await app.db.query<{ n: string; charged: string }>(
  "SELECT count(*) AS n, coalesce(sum(charged_cc), 0) AS charged FROM audit_records WHERE backend = 'webhook' AND method = 'newBlock' AND charged_cc > 0",
);
const checks = await checkLedger(app.db);
console.log(
  `ledger: ${rows[0]?.n} charged webhook deliveries (${rows[0]?.charged} CC) for ${all.length} received; ${checks.filter((c) => c.ok).length}/${checks.length} accounts ok; load average at end ${load()}`,
);

await gateway.close();
await devnet.close();
receiver.close();
if (schema && databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`DROP SCHEMA ${schema} CASCADE`);
  await client.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
  await client.end();
}
