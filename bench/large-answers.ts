// Very large answers: concurrent JSON-RPC batches of `getblock 277647 2` (some 1.07 MB each at
// verbosity 2) through the gateway's node route, devnet and the gateway each in a process of its
// own. For each scenario: the statuses and error codes answered, the wall time, the gateway's RSS
// before, at its peak (sampled every 20 ms) and after (idle, then after a forced collection), the
// slowest /healthz answer while the batches ran, what devnet's Core was asked, and what the
// account was charged. Usage:
//   [RESPONSE_BYTES_MAX=…] npx tsx bench/large-answers.ts [scenario …]
// A scenario is `<concurrency>x<calls>` (default: 4x30 8x60); `warm` first asks the block once at
// verbosity 1, so the gateway knows its size before the batches come.
import { request } from "undici";
import { type Child, startChild } from "./child.ts";

const BLOCK = "0000000000000000054a714e580b16c583701712ab91060e92dbde6eb1e052a8";
const scenarios = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ["4x30", "8x60"];

interface Upstreams {
  core: { url: string; user: string; password: string };
}
interface Memory {
  rss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}
const mb = (bytes: number) => Math.round(bytes / 1e6);

const devnet = await startChild<Upstreams>("./devnet-process.ts");
const gateway = await startChild<{ url: string; token: string }>(
  "./gateway-process.ts",
  [JSON.stringify(devnet.info)],
  process.env,
  ["--expose-gc"],
);
const route = `${gateway.info.url}/node/mainnet/${gateway.info.token}`;

async function call(body: unknown): Promise<{ status: number; codes: string[]; bytes: number }> {
  const res = await request(route, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  let codes: string[] = [];
  try {
    const parsed = JSON.parse(text) as unknown;
    const items = (Array.isArray(parsed) ? parsed : [parsed]) as { error?: { code: number } }[];
    codes = [...new Set(items.map((i) => (i.error ? String(i.error.code) : "ok")))];
  } catch {
    codes = ["not JSON"];
  }
  return { status: res.statusCode, codes, bytes: text.length };
}

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

async function scenario(child: Child<Upstreams>, name: string): Promise<void> {
  const [concurrency, calls] = name.split("x").map(Number) as [number, number];
  const batch = Array.from({ length: calls }, (_, i) => ({
    jsonrpc: "2.0",
    id: i,
    method: "getblock",
    params: [BLOCK, 2],
  }));
  const before = await gateway.ask<Memory>("mem gc");
  const coreBefore = await child.ask<{ core: { callsRead: number } }>("stats");
  const watch = probe();
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: concurrency }, () => call(batch)));
  const wallMs = Math.round(performance.now() - started);
  const { healthzMsMax, rssPeak } = await watch.stop();
  const coreAfter = await child.ask<{ core: { callsRead: number } }>("stats");
  // Idle for a while (what an operator's graph would show), then after a full collection.
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const idle = await gateway.ask<Memory>("mem");
  await gateway.ask<Memory>("mem gc");
  // The backing stores of collected buffers are freed by a sweeper after the collection.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const collected = await gateway.ask<Memory>("mem gc");
  if (process.env.HEAP) await gateway.ask(`heap ${process.env.HEAP}`);
  console.log(
    JSON.stringify({
      scenario: name,
      answers: answers.map((a) => `${a.status} ${a.codes.join(",")} ${mb(a.bytes)}MB`),
      wallMs,
      healthzMsMax,
      rssMb: {
        before: mb(before.rss),
        peak: mb(rssPeak),
        idle3s: mb(idle.rss),
        afterGc: mb(collected.rss),
      },
      heapMbAfterGc: mb(collected.heapUsed),
      externalMbAfterGc: mb(collected.external),
      coreCallsRead: coreAfter.core.callsRead - coreBefore.core.callsRead,
    }),
  );
}

try {
  for (const name of scenarios) {
    if (name === "warm") {
      console.log(
        JSON.stringify({
          warm: await call({ jsonrpc: "2.0", id: 0, method: "getblock", params: [BLOCK, 1] }),
        }),
      );
      continue;
    }
    await scenario(devnet, name);
  }
} finally {
  await gateway.stop();
  await devnet.stop();
}
