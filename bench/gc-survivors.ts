// What each young-generation collection (scavenge) of the gateway copies and promotes, and the
// latency that comes with it, for the requests that go to Core one at a time: fifty transactions
// by txid through /gateway with the cache of whole answers off (bench/graphql.ts (b)), and the
// same fifty as one JSON-RPC batch of getrawtransaction verbosity 0 through the node route. The
// baseline, side by side in the same run: the verbose batch of fifty straight to devnet's Core,
// (b)'s raw batch. The gateway runs in a process of its own under --trace-gc-nvp (one line per
// collection: its pause, what it promoted); devnet in another. A scavenge that finds little alive
// pauses for about a millisecond; one that copies a request's worth of data for every request
// since the last one — data something old still pointed at — pauses for several, and those pauses
// are the p99 (src/util/in-flight-map.ts, src/protocol/json/raw-answer.ts tell two such causes).
// Loopback only; bounded in count. Usage:
//   [DATABASE_URL=postgres://…] npx tsx bench/gc-survivors.ts [requests per target] [rounds]
import { readFileSync } from "node:fs";
import { Agent, request } from "undici";
import { startChild, startGatewayChild } from "./child.ts";

const REQUESTS = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 2);
const WARM_UP = 300;

const index = JSON.parse(
  readFileSync(new URL("../data/chain/blocks/INDEX.json", import.meta.url), "utf8"),
) as Record<string, { blocks: { height: number; tx: string[] }[] }>;
const block = Object.values(index)
  .flatMap((f) => f.blocks)
  .find((b) => b.height === 277647);
if (!block) throw new Error("block 277647 is not in data/chain/blocks/INDEX.json");
const TXIDS = block.tx.slice(0, 50);

interface Devnet {
  core: { url: string; user: string; password: string };
  indexer: { url: string; secret: string };
}
const devnet = await startChild<Devnet>("./devnet-process.ts");
const gateway = await startGatewayChild<{ url: string; token: string; store: string }>(
  "./gateway-process.ts",
  [JSON.stringify(devnet.info)],
  { ...process.env, ANSWERS: "off" },
  ["--trace-gc-nvp"],
);

const batch = (verbosity: number) =>
  JSON.stringify(
    TXIDS.map((txid, id) => ({
      jsonrpc: "2.0",
      id,
      method: "getrawtransaction",
      params: [txid, verbosity],
    })),
  );
const { core } = devnet.info;
const targets = [
  {
    label: "Core directly, verbose batch of 50 (baseline)",
    url: core.url,
    headers: {
      authorization: `Basic ${Buffer.from(`${core.user}:${core.password}`).toString("base64")}`,
    },
    body: batch(1),
    traced: false,
  },
  {
    label: `gateway (${gateway.info.store}), transactions(txids), answer cache off`,
    url: `${gateway.info.url}/gateway/mainnet/${gateway.info.token}`,
    headers: {},
    body: JSON.stringify({
      query:
        "query ($txids: [TxId!]!) { transactions(txids: $txids) { txid size vsize weight version locktime } }",
      variables: { txids: TXIDS },
    }),
    traced: true,
  },
  {
    label: `gateway (${gateway.info.store}), node route, batch of 50 (hex)`,
    url: `${gateway.info.url}/node/mainnet/${gateway.info.token}`,
    headers: {},
    body: batch(0),
    traced: true,
  },
];

const dispatcher = new Agent({ connections: 1 });
async function send(t: (typeof targets)[number]): Promise<void> {
  const res = await request(t.url, {
    method: "POST",
    headers: { "content-type": "application/json", ...t.headers },
    body: t.body,
    dispatcher,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200 || text.includes('"error":{')) {
    throw new Error(`${t.label}: HTTP ${res.statusCode} ${text.slice(0, 300)}`);
  }
}

/** One field of a --trace-gc-nvp line (`promoted=123`), as a number. */
const field = (line: string, name: string) =>
  Number(new RegExp(`\\b${name}=([\\d.]+)`).exec(line)?.[1] ?? 0);

interface Figures {
  latencies: number[];
  scavenges: string[];
  majors: number;
}
const figures = new Map(
  targets.map((t) => [t, { latencies: [], scavenges: [], majors: 0 } as Figures]),
);
for (const t of targets) for (let i = 0; i < WARM_UP; i++) await send(t);
for (let round = 0; round < ROUNDS; round++) {
  for (const t of targets) {
    const f = figures.get(t) as Figures;
    const traced = gateway.traces.length;
    for (let i = 0; i < REQUESTS; i++) {
      const started = performance.now();
      await send(t);
      f.latencies.push(performance.now() - started);
    }
    // What the gateway's collector did meanwhile (nothing of the gateway's for the baseline).
    if (!t.traced) continue;
    const lines = gateway.traces.slice(traced);
    f.scavenges.push(...lines.filter((l) => l.includes(" gc=s ")));
    f.majors += lines.filter((l) => l.includes(" gc=mc ")).length;
  }
}
await dispatcher.close();
await gateway.stop();
await devnet.stop();

const ms = (n: number) => n.toFixed(2).padStart(6);
const at = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
const mean = (lines: string[], name: string) =>
  lines.reduce((sum, l) => sum + field(l, name), 0) / Math.max(1, lines.length);
const baseline = [...figures.values()][0] as Figures;
const baselineP99 = at(
  [...baseline.latencies].sort((a, b) => a - b),
  0.99,
);
console.log(
  `bench/gc-survivors: ${REQUESTS} requests per target per round, ${ROUNDS} rounds, one at a time; load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 2).join(" ")}`,
);
for (const [t, f] of figures) {
  const sorted = [...f.latencies].sort((a, b) => a - b);
  const p99 = at(sorted, 0.99);
  const gc = t.traced
    ? `  ${f.scavenges.length} scavenges (every ${(f.latencies.length / Math.max(1, f.scavenges.length)).toFixed(0)} requests): mean pause ${mean(f.scavenges, "pause").toFixed(2)} ms, promoted ${(mean(f.scavenges, "promoted") / 1e6).toFixed(2)} MB, survived ${(mean(f.scavenges, "new_space_survived") / 1e6).toFixed(2)} MB; ${f.majors} major`
    : "";
  console.log(
    `  ${t.label.padEnd(62)} p50 ${ms(at(sorted, 0.5))} ms  p99 ${ms(p99)} ms (${(p99 / baselineP99).toFixed(2)}x baseline)${gc}`,
  );
}
