// What a gateway on PGlite spends per call over its first calls, by the V8 flags it runs with
// (default: both of V8's WebAssembly tiers, against `--liftoff-only`, its baseline compiler
// alone, which one-shot commands use: docs/decisions/0063). Each variant is a gateway process of
// its own on an in-memory PGlite store (bench/node-target-process.ts); they take turns, window by
// window, answering `getrawtransaction` calls over block 277647's transactions from devnet's Core,
// and each window prints each process's CPU per call: its main thread (JavaScript and PGlite's
// WebAssembly) and its other threads (V8's compilers and collector helpers) apart, read from
// /proc. Then the means over the first windows, where the optimizing tier compiles, and after.
// Loopback only; bounded by count. Usage:
//   [VARIANTS="default;--liftoff-only"] npx tsx bench/wasm-tiers.ts [windows=15] [calls a window=4000] [concurrency=64]
import { Agent, request } from "undici";
import { getrawtransactionBodies } from "./block-277647.ts";
import { type Child, startChild, startGatewayChild } from "./child.ts";

const WINDOWS = Number(process.argv[2] ?? 15);
const CALLS = Number(process.argv[3] ?? 4000);
const CONCURRENCY = Number(process.argv[4] ?? 64);
const VARIANTS = (process.env.VARIANTS ?? "default;--liftoff-only").split(";");
/** The windows counted as the start-up: the optimizing tier's compiling is mostly over after. */
const FIRST = 3;

const bodies = getrawtransactionBodies();

interface Threads {
  main: number;
  others: number;
}
interface Window {
  main: number;
  others: number;
  perSecond: number;
}

async function window(url: string): Promise<number> {
  const dispatcher = new Agent({ connections: CONCURRENCY });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < CALLS) {
        const body = bodies[next++ % bodies.length];
        const res = await request(url, {
          method: "POST",
          body,
          headers: { "content-type": "application/json" },
          dispatcher,
        });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode} from ${url}`);
      }
    }),
  );
  await dispatcher.close();
  return CALLS / ((performance.now() - started) / 1000);
}

type Core = { url: string; user: string; password: string };
const devnet = await startChild<{ core: Core }>("./devnet-process.ts");
const gateways: { label: string; process: Child<{ url: string }>; windows: Window[] }[] = [];
for (const label of VARIANTS) {
  const flags = label === "default" ? [] : label.split(" ");
  const ask = {
    core: devnet.info.core,
    kind: "gateway",
    options: { connections: CONCURRENCY * 2 },
  };
  // Each variant's flags after the gateway's deployed ones (decision 0071).
  const child = await startGatewayChild<{ url: string }>(
    "./node-target-process.ts",
    [JSON.stringify(ask)],
    { ...process.env, DATABASE_URL: "" },
    flags,
  );
  gateways.push({ label, process: child, windows: [] });
}

console.log(
  `bench/wasm-tiers: ${WINDOWS} windows of ${CALLS} calls, ${CONCURRENCY} in flight; CPU a call in µs (main thread + others), calls/s`,
);
console.log(`window  ${gateways.map((g) => g.label.padEnd(34)).join("")}`);
for (let w = 0; w < WINDOWS; w++) {
  const cells: string[] = [];
  for (const g of gateways) {
    const before = await g.process.ask<Threads>("threads");
    const perSecond = await window(g.process.info.url);
    const after = await g.process.ask<Threads>("threads");
    const main = (after.main - before.main) / CALLS;
    const others = (after.others - before.others) / CALLS;
    g.windows.push({ main, others, perSecond });
    const cpu = `${(main + others).toFixed(0)} (${main.toFixed(0)} + ${others.toFixed(0)})`;
    cells.push(`${cpu.padEnd(20)} ${perSecond.toFixed(0).padStart(6)}/s      `);
  }
  console.log(`${String(w + 1).padStart(6)}  ${cells.join("")}`);
}
const mean = (ws: Window[], k: "main" | "others") =>
  ws.reduce((sum, x) => sum + x[k], 0) / Math.max(ws.length, 1);
for (const g of gateways) {
  const phases = [g.windows.slice(0, FIRST), g.windows.slice(FIRST)].map((ws) =>
    ws.length === 0
      ? "none"
      : `${(mean(ws, "main") + mean(ws, "others")).toFixed(0)} (${mean(ws, "main").toFixed(0)} + ${mean(ws, "others").toFixed(0)})`,
  );
  const total = g.windows.reduce((sum, x) => sum + (x.main + x.others) * CALLS, 0) / 1e6;
  console.log(
    `${g.label}: windows 1–${FIRST} ${phases[0]} µs a call, after ${phases[1]}; ${total.toFixed(1)} s of CPU in all`,
  );
}
for (const g of gateways) await g.process.stop();
await devnet.stop();
