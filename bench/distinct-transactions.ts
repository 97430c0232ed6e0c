// Fifty transactions per request where no request shares another's Core calls: each asks a
// different window of fifty of block 574200's 3,315 transactions, so neither side's coalescing of
// identical requests applies (bench/graphql.ts (b) sends the same fifty every time). Side by side in
// one run, rounds alternating: one raw JSON-RPC batch of fifty verbose getrawtransaction calls to
// devnet's Core, and `transactions(txids:)` with six fields through the gateway, its caches off
// (every look-up reaches Core), and through a gateway with the cache of whole answers on, as by
// default (the transaction cache off): no request body is ever sent twice (windows shift and
// rotate), so every answer is a miss that is then kept, which is what a new request costs. Devnet
// and the gateways in processes of their own (bench/*-process.ts); CPU per request read from each,
// and the gateway's garbage collections. Loopback only; bounded in time. Usage:
//   [DATABASE_URL=postgres://…] npx tsx bench/distinct-transactions.ts [in flight] [seconds per run]
//     [rounds] [the Transaction fields to select, default "txid size vsize weight version locktime"]
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { Agent, request } from "undici";
import { type Child, cpuSpent, startChild, startGatewayChild } from "./child.ts";

const IN_FLIGHT = Number(process.argv[2] ?? 8);
const SECONDS = Number(process.argv[3] ?? 4);
const ROUNDS = Number(process.argv[4] ?? 2);
// Other selections than (b)'s, e.g. "txid hex inputs { txid vout } outputs { value { btc } }".
const FIELDS = process.argv[5] ?? "txid size vsize weight version locktime";

const index = JSON.parse(
  readFileSync(new URL("../data/chain/blocks/INDEX.json", import.meta.url), "utf8"),
) as Record<string, { blocks: { height: number; tx: string[] }[] }>;
const block = Object.values(index)
  .flatMap((f) => f.blocks)
  .find((b) => b.height === 574200);
if (!block) throw new Error("block 574200 is not in data/chain/blocks/INDEX.json");
// 65 disjoint windows of fifty make a cycle, so the requests in flight together share no txid;
// each cycle shifts them by one more, then rotates them: 162,500 bodies before one repeats.
const CYCLE = 65;
let sent = 0;
/** The next request's fifty txids: a window never asked in this order before (see above). */
function nextWindow(): string[] {
  const n = sent++;
  const cycle = Math.floor(n / CYCLE);
  const start = (n % CYCLE) * 50 + (cycle % 50);
  const rotation = Math.floor(cycle / 50) % 50;
  const window = (block as { tx: string[] }).tx.slice(start, start + 50);
  return [...window.slice(rotation), ...window.slice(0, rotation)];
}

interface Devnet {
  core: { url: string; user: string; password: string };
  indexer: { url: string; secret: string };
}
const devnet = await startChild<Devnet>("./devnet-process.ts");
const gateway = await startGatewayChild<{ url: string; token: string }>(
  "./gateway-process.ts",
  [JSON.stringify(devnet.info)],
  { ...process.env, ANSWERS: "off" },
);
const keeping = await startGatewayChild<{ url: string; token: string }>(
  "./gateway-process.ts",
  [JSON.stringify(devnet.info)],
  { ...process.env, ANSWERS: "on", TX_CACHE: "on" },
);
const { core } = devnet.info;
const dispatcher = new Agent({ connections: IN_FLIGHT });

interface Side {
  label: string;
  url: string;
  headers: Record<string, string>;
  body(txids: string[]): string;
  process: Child<unknown>;
}
const sides: Side[] = [
  {
    label: "Core directly, one verbose JSON-RPC batch of 50",
    url: core.url,
    headers: {
      authorization: `Basic ${Buffer.from(`${core.user}:${core.password}`).toString("base64")}`,
    },
    body: (txids) =>
      JSON.stringify(
        txids.map((txid, id) => ({
          jsonrpc: "2.0",
          id,
          method: "getrawtransaction",
          params: [txid, 1],
        })),
      ),
    process: devnet,
  },
  {
    label: "blockgate transactions(txids), caches off",
    url: `${gateway.info.url}/gateway/mainnet/${gateway.info.token}`,
    headers: {},
    body: (txids) =>
      JSON.stringify({
        query: `query ($txids: [TxId!]!) { transactions(txids: $txids) { ${FIELDS} } }`,
        variables: { txids },
      }),
    process: gateway,
  },
];
sides.push({
  ...(sides[1] as Side),
  label: "blockgate, caches on (default), bodies new",
  url: `${keeping.info.url}/gateway/mainnet/${keeping.info.token}`,
  process: keeping,
});

async function run(
  side: Side,
): Promise<{ perSecond: number; p50: number; p99: number; cpuUs: number; gc: string }> {
  let deadline = 0;
  const latencies: number[] = [];
  const load = (record: boolean) =>
    Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (performance.now() < deadline && latencies.length < 20_000) {
          const txids = nextWindow();
          const started = performance.now();
          const res = await request(side.url, {
            method: "POST",
            body: side.body(txids),
            headers: { "content-type": "application/json", ...side.headers },
            dispatcher,
          });
          const text = await res.body.text();
          if (res.statusCode !== 200 || text.includes('"errors"') || text.includes('"error":{')) {
            throw new Error(`${side.label}: ${res.statusCode} ${text.slice(0, 300)}`);
          }
          if (record) latencies.push(performance.now() - started);
        }
      }),
    );
  deadline = performance.now() + 1000; // warm-up
  await load(false);
  deadline = performance.now() + SECONDS * 1000;
  const cpuBefore = await side.process.ask<NodeJS.CpuUsage>("cpu");
  const gateway = side.process !== devnet;
  if (gateway) await side.process.ask("gc");
  const started = performance.now();
  await load(true);
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSpent(cpuBefore, await side.process.ask<NodeJS.CpuUsage>("cpu"));
  // The gateway's collections in the run: how many, the longest pause, and their share of its time.
  const gcs = gateway
    ? await side.process.ask<{
        count: number;
        major: number;
        totalMs: number;
        maxMs: number;
        heapMb: number;
      }>("gc")
    : null;
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return {
    perSecond: latencies.length / seconds,
    p50: at(0.5),
    p99: at(0.99),
    cpuUs: cpu / latencies.length,
    gc: gcs
      ? `  GC ${gcs.count} (${gcs.major} major), longest ${gcs.maxMs.toFixed(1)} ms, ${((100 * gcs.totalMs) / (seconds * 1000)).toFixed(1)}%, heap ${gcs.heapMb} MB`
      : "",
  };
}

console.log(
  `bench/distinct-transactions: ${IN_FLIGHT} in flight, ${SECONDS} s per run, ${ROUNDS} rounds; fields ${FIELDS}; load average ${loadavg()
    .slice(0, 2)
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
for (let round = 0; round < ROUNDS; round++) {
  let coreP50 = 0;
  for (const side of sides) {
    const r = await run(side);
    if (side.process === devnet) coreP50 = r.p50;
    const ratio =
      side.process === devnet ? "" : `  gateway ÷ Core ${(r.p50 / coreP50).toFixed(2)}x p50`;
    console.log(
      `  ${side.label.padEnd(50)} ${r.perSecond.toFixed(0).padStart(5)} req/s  p50 ${r.p50.toFixed(2).padStart(6)} ms  p99 ${r.p99.toFixed(2).padStart(6)} ms  CPU ${r.cpuUs.toFixed(0)} µs/req${ratio}${r.gc}`,
    );
  }
}
// Every answer of the side that keeps them must have been a miss, or it measured hits.
console.log(`  its cache of whole answers: ${JSON.stringify(await keeping.ask("answers"))}`);
await dispatcher.close();
await gateway.stop();
await keeping.stop();
await devnet.stop();
