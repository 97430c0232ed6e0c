// N concurrent subscribers of `subscription { newBlock { height hash } }` on one
// gateway process each receive a new block; printed: the latency from the block's production to
// each subscriber's receipt (p50, p99, max, how many received it), per block and overall; the
// gateway's RSS and heap before the subscriptions open and with them open, and the difference per
// subscriber; the ledger at the end (exactly one charged audit record of method newBlock per event
// delivered, every account's invariants holding). Baseline, side by side: one subscriber alone
// receiving the same kind of block (there is no switch to deliver events uncharged).
//
// The SSE subscribers read their streams straight off their sockets (bench/sse-socket.ts): read
// through `fetch`'s web streams, the thousand clients of this one process spent more CPU on a
// block than the gateway did, and a receipt waited for the client's turn rather than for the
// gateway; an HTTP client's streams still cost this process, on the same cores, a share of it.
//
// The gateway runs in a process of its own (bench/subscribers-gateway-process.ts, PostgreSQL when
// DATABASE_URL is set, else PGlite), so the subscribers' reading does not share its CPU; it is
// started with --expose-gc so its memory is read after a full collection. Devnet (regtest) runs in
// this process: a block is produced by devnet's block producer (what `generatetoaddress` and
// `blockgate devnet mine` do) and the clock starts when it returns; the gateway is then told to
// poll at once (`app.events.pollNow()` over its stdin), so the figures are the announcement and the
// fan-out (the gateway's own getbestblockhash and getblockheader calls to devnet included), not the
// wait for the next poll — a deployment adds up to events.pollMs on top. A subscription counts as
// open when the gateway's app.events.subscribers() says so (read over stdin: the gateway process's
// own count, not the clients' view). Each subscriber has an account and token of its own.
//
// Loopback only; bounded: at most 60 s to open the subscriptions, 15 s per block, then it stops.
// CPU_PROF=<dir> writes there the gateway's CPU profile of the blocks to the N + M subscribers.
// Usage:
//   [CPU_PROF=<dir>] [DATABASE_URL=postgres://…] npx tsx bench/subscribers.ts [N SSE subscribers=1000] [K blocks=5] [M graphql-ws subscribers=0]
import { readFileSync } from "node:fs";
import { createClient } from "graphql-ws";
import { WebSocket } from "ws";
import { startDevnet } from "../src/devnet/devnet.ts";
import { cpuSpent, startGatewayChild } from "./child.ts";
import { postEventStream } from "./sse-socket.ts";

const N = Number(process.argv[2] ?? 1000);
const K = Number(process.argv[3] ?? 5);
const M = Number(process.argv[4] ?? 0);
const OPEN_TIMEOUT_MS = 60_000;
const BLOCK_TIMEOUT_MS = 15_000;
const QUERY = "subscription { newBlock { height hash } }";

interface Mem {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  gc: boolean;
}
interface Ledger {
  count: number;
  charged: number;
  accountsOk: number;
  accounts: number;
  /** newBlock audit records per account, in the order the accounts were made. */
  perAccount: { account: number; events: number }[];
}

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
const kb = (bytes: number) => (bytes / 1024).toFixed(1);
const ms = (n: number) => n.toFixed(1).padStart(7);
const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * q) - 1)] ?? Number.NaN;
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

/** One subscriber: when it received each height (performance.now()), and how to close it. */
interface Subscriber {
  transport: "SSE" | "graphql-ws";
  received: Map<number, number>;
  errors: string[];
  close(): void;
}

/**
 * Receipts counted by height, and the wait for a height's last: counted as they come rather than
 * looked for among the subscribers at every receipt, so that waiting costs this process nothing
 * per subscriber.
 */
const receipts = new Map<number, number>();
let awaited: { height: number; count: number; done: () => void } | null = null;
function receipt(height: number): void {
  const count = (receipts.get(height) ?? 0) + 1;
  receipts.set(height, count);
  if (awaited?.height === height && count >= awaited.count) awaited.done();
}

function sseSubscriber(url: string): Subscriber {
  const received = new Map<number, number>();
  const errors: string[] = [];
  const close = postEventStream(
    new URL(url),
    JSON.stringify({ query: QUERY }),
    (data, at) => {
      const message = JSON.parse(data) as {
        data?: { newBlock?: { height: number } | null };
        errors?: unknown;
      };
      const height = message.data?.newBlock?.height;
      if (height !== undefined) {
        received.set(height, at);
        receipt(height);
      } else errors.push(JSON.stringify(message.errors ?? message).slice(0, 200));
    },
    (error) => errors.push(error),
  );
  return { transport: "SSE", received, errors, close };
}

function wsSubscriber(url: string): Subscriber {
  const received = new Map<number, number>();
  const errors: string[] = [];
  const client = createClient({ url, webSocketImpl: WebSocket, lazy: false, retryAttempts: 0 });
  client.subscribe<{ newBlock: { height: number } | null }>(
    { query: QUERY },
    {
      next(message) {
        const at = performance.now();
        const height = message.data?.newBlock?.height;
        if (height !== undefined) {
          received.set(height, at);
          receipt(height);
        } else errors.push(JSON.stringify(message.errors ?? message).slice(0, 200));
      },
      error: (err) => errors.push(String(err)),
      complete: () => {},
    },
  );
  return { transport: "graphql-ws", received, errors, close: () => void client.dispose() };
}

console.log(
  `bench/subscribers: N=${N} SSE + M=${M} graphql-ws subscribers, K=${K} blocks; load average at start ${load()}`,
);
const devnet = await startDevnet(["regtest"]);
const core = devnet.cores.get("regtest");
const producer = devnet.producers.get("regtest");
if (!core || !producer) throw new Error("devnet has no regtest Core");
const gateway = await startGatewayChild<{ url: string; store: string }>(
  "./subscribers-gateway-process.ts",
  [JSON.stringify({ url: core.url, user: core.user, password: core.password })],
  process.env,
  ["--expose-gc", ...(process.env.TRACE_GC ? ["--trace-gc"] : [])],
);
const subs = async () => (await gateway.ask<{ subscribers: number }>("subs")).subscribers;
const created = performance.now();
const { tokens } = await gateway.ask<{ tokens: string[] }>(`accounts ${N + M + 1}`);
console.log(
  `gateway on ${gateway.info.store}; ${tokens.length} accounts and tokens made in ${((performance.now() - created) / 1000).toFixed(1)} s`,
);
const httpUrl = (token: string) => `${gateway.info.url}/gateway/regtest/${token}`;
const wsUrl = (token: string) => httpUrl(token).replace(/^http/, "ws");

async function openAll(make: () => Subscriber[]): Promise<Subscriber[]> {
  const before = await subs();
  const started = performance.now();
  const subscribers = make();
  let open = before;
  while (performance.now() - started < OPEN_TIMEOUT_MS) {
    open = await subs();
    if (open - before >= subscribers.length) break;
    await sleep(100);
  }
  console.log(
    `  ${open - before} of ${subscribers.length} subscriptions open at the gateway in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return subscribers;
}

interface BlockRun {
  height: number;
  latencies: number[];
  missed: number;
  announceMs: number;
  /** CPU time (ms) the gateway and this process spent on the block. */
  gatewayCpuMs: number;
  benchCpuMs: number;
}

/** When each block was produced (performance.now()), by height. */
const produced = new Map<number, number>();

/** One block produced, announced at once, and awaited at every subscriber (≤ BLOCK_TIMEOUT_MS). */
async function oneBlock(subscribers: Subscriber[]): Promise<BlockRun> {
  const gatewayBefore = await gateway.ask<NodeJS.CpuUsage>("cpu");
  const benchBefore = process.cpuUsage();
  const change = producer!.mine(1);
  const at = performance.now();
  produced.set(change.tip.height, at);
  const height = change.tip.height;
  const announced = gateway.ask("poll").then(() => performance.now() - at);
  await new Promise<void>((done) => {
    const timeout = setTimeout(done, BLOCK_TIMEOUT_MS);
    awaited = {
      height,
      count: subscribers.length,
      done: () => {
        clearTimeout(timeout);
        done();
      },
    };
    if ((receipts.get(height) ?? 0) >= subscribers.length) awaited.done();
  });
  awaited = null;
  const latencies = subscribers
    .flatMap((s) => {
      const got = s.received.get(height);
      return got === undefined ? [] : [got - at];
    })
    .sort((a, b) => a - b);
  const announceMs = await announced;
  const benchCpuMs = cpuSpent(benchBefore, process.cpuUsage()) / 1000;
  const gatewayCpuMs = cpuSpent(gatewayBefore, await gateway.ask<NodeJS.CpuUsage>("cpu")) / 1000;
  return {
    height,
    latencies,
    missed: subscribers.length - latencies.length,
    announceMs,
    gatewayCpuMs,
    benchCpuMs,
  };
}

function line(label: string, lat: number[], of: number, extra = ""): string {
  const sorted = [...lat].sort((a, b) => a - b);
  return `  ${label.padEnd(22)} received ${String(sorted.length).padStart(5)}/${of}  p50 ${ms(percentile(sorted, 0.5))} ms  p99 ${ms(percentile(sorted, 0.99))} ms  max ${ms(sorted.at(-1) ?? Number.NaN)} ms${extra}`;
}

async function blocks(title: string, subscribers: Subscriber[]): Promise<number[]> {
  console.log(title);
  const all: number[] = [];
  /** Every block but the first: each account's first event is also its first charge. */
  const later: number[] = [];
  for (let k = 0; k < K; k++) {
    await sleep(300); // quiet before each block
    gateway.traces.length = 0;
    const run = await oneBlock(subscribers);
    if (process.env.TRACE_GC) console.log(gateway.traces.join("\n"));
    all.push(...run.latencies);
    if (k > 0) later.push(...run.latencies);
    console.log(
      line(
        `block ${run.height}`,
        run.latencies,
        subscribers.length,
        `  (gateway's poll done ${run.announceMs.toFixed(1)} ms after; CPU gateway ${run.gatewayCpuMs.toFixed(0)} ms, bench ${run.benchCpuMs.toFixed(0)} ms)`,
      ),
    );
  }
  console.log(line("overall", all, subscribers.length * K));
  if (K > 1) console.log(line("after the first block", later, subscribers.length * (K - 1)));
  return all;
}

// Baseline: one subscriber alone.
const [baselineToken, ...subscriberTokens] = tokens;
const lone = await openAll(() => [sseSubscriber(httpUrl(baselineToken!))]);
const baseline = await blocks("baseline: one SSE subscriber alone", lone);
lone[0]!.close();
const closedAt = performance.now();
for (let i = 0; i < 20 && (await subs()) > 0; i++) await sleep(100);
console.log(
  `  the lone subscriber closed: the gateway counts ${await subs()} open after ${(performance.now() - closedAt).toFixed(0)} ms`,
);

const memBefore = await gateway.ask<Mem>("mem");
console.log(`opening ${N} SSE + ${M} graphql-ws subscriptions`);
const subscribers = await openAll(() => [
  ...subscriberTokens.slice(0, N).map((t) => sseSubscriber(httpUrl(t))),
  ...subscriberTokens.slice(N, N + M).map((t) => wsSubscriber(wsUrl(t))),
]);
await sleep(500);
const memWith = await gateway.ask<Mem>("mem");
const profileDir = process.env.CPU_PROF;
if (profileDir) await gateway.ask("profile start");
const loaded = await blocks(`${N + M} subscribers at once`, subscribers);
if (profileDir) {
  const path = `${profileDir}/subscribers-${gateway.info.store}-${Date.now()}.cpuprofile`;
  await gateway.ask(`profile stop ${path}`);
  console.log(`the gateway's CPU profile of those blocks: ${path}`);
}
if (M > 0 && N > 0) {
  const heights = new Set(subscribers.flatMap((s) => [...s.received.keys()]));
  for (const transport of ["SSE", "graphql-ws"] as const) {
    const these = subscribers.filter((s) => s.transport === transport);
    const lat = these.flatMap((s) =>
      [...s.received].flatMap(([h, at]) => (produced.has(h) ? [at - produced.get(h)!] : [])),
    );
    console.log(line(`${transport} only`, lat, these.length * Math.min(K, heights.size)));
  }
}
const errors = subscribers.flatMap((s) => s.errors);
for (const s of subscribers) s.close();

const open = N + M;
console.log(
  `gateway memory${memWith.gc ? " (after a full GC)" : ""}: before RSS ${mb(memBefore.rss)} MB heap ${mb(memBefore.heapUsed)} MB; with ${open} open RSS ${mb(memWith.rss)} MB heap ${mb(memWith.heapUsed)} MB; per subscriber RSS ${kb((memWith.rss - memBefore.rss) / open)} KB heap ${kb((memWith.heapUsed - memBefore.heapUsed) / open)} KB`,
);
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const [b, l] = [sorted(baseline), sorted(loaded)];
console.log(
  `side by side: one alone p50 ${percentile(b, 0.5).toFixed(1)} ms p99 ${percentile(b, 0.99).toFixed(1)} ms; ${open} at once p50 ${percentile(l, 0.5).toFixed(1)} ms p99 ${percentile(l, 0.99).toFixed(1)} ms max ${(l.at(-1) ?? Number.NaN).toFixed(1)} ms`,
);
const delivered = baseline.length + loaded.length;
const ledger = await gateway.ask<Ledger>(`ledger ${delivered}`);
const price = 5; // pricing.events.newBlock off mainnet (default)
// Account order: the lone subscriber's first, then the N SSE and M graphql-ws subscribers'.
const [loneAccount, ...rest] = ledger.perAccount;
const received = subscribers.map((s) => s.received.size);
const mismatched = rest.filter((r, i) => r.events !== received[i]).length;
const mainCharged = rest.reduce((n, r) => n + r.events, 0);
console.log(
  `ledger: ${ledger.count} newBlock audit records, ${ledger.charged} CC (${ledger.charged / price} events at ${price} CC) for ${delivered} events received; checkLedger ok on ${ledger.accountsOk}/${ledger.accounts} accounts`,
);
console.log(
  `  the ${open} subscribers: ${mainCharged} charged, ${loaded.length} received, expected N×K = ${open * K}; ${mismatched === 0 && mainCharged === open * K ? "exact" : `MISMATCH on ${mismatched} accounts`}`,
);
console.log(
  `  the lone subscriber (closed after its ${K} blocks): ${loneAccount?.events ?? 0} charged, ${baseline.length} received${(loneAccount?.events ?? 0) > baseline.length ? " — charged after it left" : ""}`,
);
if (errors.length) console.log(`subscriber errors: ${errors.length}, first: ${errors[0]}`);
console.log(`load average at end ${load()}`);
await gateway.stop();
await devnet.close();
process.exit(0);
