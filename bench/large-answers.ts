// Very large answers on the node route, devnet and the gateway each in a process of its own:
// concurrent JSON-RPC batches whose answers come near, or go past, server.responseBytesMax.
// For each scenario: the statuses and error codes answered, the wall time, the slowest /healthz
// answer while the batches ran (probed every 20 ms), the gateway's RSS before, at its peak, after
// 3 s idle and after a forced collection, the calls devnet's Core read, and the credits charged.
// Usage:
//   [RESPONSE_BYTES_MAX=…] [IDLE_SECONDS=3] [DATABASE_URL=…] npx tsx bench/large-answers.ts [scenario …]
// A scenario is `<concurrency>x<calls>`: that many batches at once, each of `<calls>` calls of
// `getblock 277647 2` (1,066,896 bytes each: 60 of them fit 64 MiB, 63 do not); or
// `<concurrency>xbig`: each batch verbosity 2 and 3 of devnet's five largest blocks (some 84 MB,
// sizes not known to the gateway: the node answers whole, each time).
// `<seconds>xidle`: the probe alone, nothing sent (the machine's own noise).
// Default: 3xidle 4x30 8x60 8x63 8x63 8xbig 8xbig.
import { request } from "undici";
import { type Child, startChild, startGatewayChild } from "./child.ts";

const BLOCK = "0000000000000000054a714e580b16c583701712ab91060e92dbde6eb1e052a8";
const BIG_BLOCKS = [
  "000000000000000002d249a3d89f63ef3fee203adcca7c24008c13fd854513f2",
  "0000000000000000001602407ac49862a7bca9d00f7f402db20b7be2f5de59d2",
  "00000000000000000021868c2cefc52a480d173c849412fe81c4e5ab806f94ab",
  "000000000000000000000c835b2adcaedc20fdf6ee440009c249452c726dafae",
];
const argv = process.argv.slice(2);
const scenarios =
  argv.length > 0 ? argv : ["3xidle", "4x30", "8x60", "8x63", "8x63", "8xbig", "8xbig"];

interface Upstreams {
  core: { url: string; user: string; password: string };
}
interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
}
const mb = (bytes: number) => Math.round(bytes / 1e6);
/** IDLE_SECONDS: how long RSS is watched after each scenario before a collection is forced. */
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 3);

const devnet = await startChild<Upstreams>("./devnet-process.ts");
const gateway = await startGatewayChild<{ url: string; token: string }>(
  "./gateway-process.ts",
  [JSON.stringify(devnet.info)],
  process.env,
  // CPU_PROF=<dir>: the gateway's CPU profile, written there when it exits.
  [
    "--expose-gc",
    ...(process.env.CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.CPU_PROF}`] : []),
  ],
);
const route = `${gateway.info.url}/node/mainnet/${gateway.info.token}`;

interface Answer {
  status: number;
  codes: string[];
  bytes: number;
  charged: number;
}

/**
 * One batch: a small reply is read whole, for its error codes; a large one only counted as it
 * comes (its "error" members looked for), so that this process's own event loop, which also
 * times /healthz, never stops to join megabytes.
 */
async function call(body: unknown): Promise<Answer> {
  const res = await request(route, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const charged = Number(res.headers["x-credits-charged"] ?? 0);
  const kept: Buffer[] = [];
  let bytes = 0;
  let errors = false;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes <= SMALL_BYTES) kept.push(chunk);
    else errors ||= chunk.includes('"error":');
  }
  if (bytes > SMALL_BYTES) {
    return { status: res.statusCode, codes: [errors ? "errors" : "ok"], bytes, charged };
  }
  let codes: string[];
  try {
    const parsed = JSON.parse(Buffer.concat(kept).toString("utf8")) as unknown;
    const items = (Array.isArray(parsed) ? parsed : [parsed]) as { error?: { code: number } }[];
    codes = [...new Set(items.map((i) => (i.error ? String(i.error.code) : "ok")))];
  } catch {
    codes = ["not JSON"];
  }
  return { status: res.statusCode, codes, bytes, charged };
}

/** Replies up to this are read whole. */
const SMALL_BYTES = 1_000_000;

/** /healthz every 20 ms until stopped: the slowest answer, and RSS's peak meanwhile. */
function probe(): { stop(): Promise<{ healthzMsMax: number; rssPeak: number }> } {
  let running = true;
  let healthzMsMax = 0;
  let rssPeak = 0;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await request(`${gateway.info.url}/healthz`);
      await res.body.text();
      healthzMsMax = Math.max(healthzMsMax, performance.now() - started);
      rssPeak = Math.max(rssPeak, (await gateway.ask<Memory>("mem")).rss);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { healthzMsMax: Math.round(healthzMsMax), rssPeak };
    },
  };
}

function batchOf(name: string): unknown[] {
  const [, what] = name.split("x") as [string, string];
  if (what === "idle") return [];
  const calls =
    what === "big"
      ? BIG_BLOCKS.flatMap((hash) => [2, 3].map((v) => [hash, v]))
      : Array.from({ length: Number(what) }, () => [BLOCK, 2]);
  return calls.map((params, id) => ({ jsonrpc: "2.0", id, method: "getblock", params }));
}

async function scenario(child: Child<Upstreams>, name: string): Promise<void> {
  const concurrency = Number(name.split("x")[0]);
  const batch = batchOf(name);
  const before = await gateway.ask<Memory>("mem gc");
  const coreBefore = await child.ask<{ core: { callsRead: number } }>("stats");
  await gateway.ask<number>("loop");
  const watch = probe();
  const started = performance.now();
  // `<n>xidle`: nothing sent for n seconds, the probe alone (the machine's own noise).
  const answers =
    batch.length === 0
      ? await new Promise<Answer[]>((resolve) => setTimeout(() => resolve([]), concurrency * 1_000))
      : await Promise.all(Array.from({ length: concurrency }, () => call(batch)));
  const wallMs = Math.round(performance.now() - started);
  const { healthzMsMax, rssPeak } = await watch.stop();
  const loopDelayMsMax = await gateway.ask<number>("loop");
  const coreAfter = await child.ask<{ core: { callsRead: number } }>("stats");
  // Idle for a while (what an operator's graph would show), then after a full collection; the
  // backing stores of collected buffers are freed by a sweeper after it, hence the second pause.
  const idle: Record<string, number> = {};
  for (let s = 1; s <= IDLE_SECONDS; s++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    if (s === 3 || s === IDLE_SECONDS || s % 10 === 0) {
      idle[`idle${s}s`] = mb((await gateway.ask<Memory>("mem")).rss);
    }
  }
  await gateway.ask<Memory>("mem gc");
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const collected = await gateway.ask<Memory>("mem gc");
  const tally = new Map<string, number>();
  for (const a of answers) {
    const key = `${a.status} ${a.codes.join(",")} ${mb(a.bytes)}MB`;
    tally.set(key, (tally.get(key) ?? 0) + 1);
  }
  console.log(
    JSON.stringify({
      scenario: name,
      answers: Object.fromEntries(tally),
      charged: answers.reduce((sum, a) => sum + a.charged, 0),
      wallMs,
      healthzMsMax,
      loopDelayMsMax,
      rssMb: {
        before: mb(before.rss),
        peak: mb(rssPeak),
        ...idle,
        afterGc: mb(collected.rss),
      },
      heapMbAfterGc: mb(collected.heapUsed),
      coreCallsRead: coreAfter.core.callsRead - coreBefore.core.callsRead,
    }),
  );
}

try {
  for (const name of scenarios) await scenario(devnet, name);
} finally {
  await gateway.stop();
  await devnet.stop();
}
