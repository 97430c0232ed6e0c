// The fuzz run: ten thousand generated inputs (the property tests' arbitraries,
// test/support/arbitraries.ts: JSON-RPC envelopes and Core parameters, GraphQL documents and
// variables, Hasura arguments, mangled paths, and the hostile shapes: objects of tens of thousands
// of keys, keys of a megabyte, nesting past every bound) sent to a gateway at bounded concurrency,
// each on a connection of its own. Prints the answers' status counts, the answers that break a
// rule (test/support/fuzz-checks.ts: a 5xx but Core's legacy 500 and 503, a malformed body, a
// stack trace, a hostile shape answered past its bound), the hangs (no answer within the bound),
// the slowest answer and the slowest hostile shape, the gateway's memory before,
// at its peak (sampled every 100 ms) and after (as left, then after a full collection), and the
// ledger check. The gateway runs in a process of its own (bench/fuzz-gateway-process.ts) on
// devnet in another (bench/devnet-process.ts), so its memory is its own. Usage:
//   npx tsx bench/fuzz.ts [cases=10000] [concurrency=8] [seed=1]
// or, against a gateway already running (no memory figures, no ledger check):
//   FUZZ_URL=http://127.0.0.1:8545 FUZZ_TOKEN=bgt_… npx tsx bench/fuzz.ts
// Exits 1 when any answer broke a rule or hung, or the ledger check failed.
import fc from "fast-check";
import { anyCase, type FuzzCase } from "../test/support/arbitraries.ts";
import { coreLegacy500, HangError, problemsOf, send } from "../test/support/fuzz-checks.ts";
import { type Child, startChild, startGatewayChild } from "./child.ts";

const CASES = Number(process.argv[2] ?? 10_000);
const CONCURRENCY = Number(process.argv[3] ?? 8);
const SEED = Number(process.argv[4] ?? 1);
const ANSWER_MS = 10_000;
const MB = 1024 * 1024;

interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  caches?: Record<string, unknown>;
}

let devnet: Child<unknown> | undefined;
let gateway: Child<{ url: string; token: string }> | undefined;
let target: { url: string; token: string };
if (process.env.FUZZ_URL) {
  target = { url: process.env.FUZZ_URL, token: process.env.FUZZ_TOKEN ?? "" };
} else {
  devnet = await startChild<unknown>("./devnet-process.ts");
  gateway = await startGatewayChild<{ url: string; token: string }>(
    "./fuzz-gateway-process.ts",
    [JSON.stringify(devnet.info)],
    process.env,
    ["--expose-gc"],
  );
  target = gateway.info;
}
const origin = new URL(target.url);

const cases = fc.sample(anyCase, { numRuns: CASES, seed: SEED });
const statuses = new Map<string, number>();
const broken: string[] = [];
const hangs: string[] = [];
let slowest = { ms: 0, name: "" };
let slowestHostile = { ms: 0, name: "", cases: 0 };
let legacy500 = 0;

const describe = (c: FuzzCase) =>
  `${c.kind} ${c.method} ${c.path.slice(0, 80)} ${(c.body ?? "").slice(0, 160)}`;

// The gateway gives back much of its start-up memory (external: PGlite's) a few seconds after
// it listens, idle or not: wait for its memory to settle (three equal readings of external memory
// a second apart, 30 s at most), then a warm-up of other cases (seed + 1, not counted) loads the
// unified API's modules and warms what is warmed on first use. Either would otherwise read as the
// fuzzing's doing.
for (let i = 0, same = 0, last = -1; gateway && i < 30 && same < 3; i++) {
  const { external } = await gateway.ask<Memory>("gc");
  same = Math.abs(external - last) < MB ? same + 1 : 0;
  last = external;
  await new Promise((r) => setTimeout(r, 1_000));
}
const WARM_UP = Math.min(1_000, CASES);
await Promise.all(
  fc
    .sample(anyCase, { numRuns: WARM_UP, seed: SEED + 1 })
    .map((c, i) =>
      new Promise((r) => setTimeout(r, i * 4)).then(() =>
        send(origin, c, target.token, ANSWER_MS).catch(() => undefined),
      ),
    ),
);
const before = await gateway?.ask<Memory>("gc");
// FUZZ_SNAPSHOTS=dir: heap snapshots of the gateway before and after, to see what it kept.
const snapshots = process.env.FUZZ_SNAPSHOTS;
if (snapshots) await gateway?.ask(`snapshot ${snapshots}/before.heapsnapshot`);
let peak = before;
let sampling = true;
const sampler = (async () => {
  while (sampling && gateway) {
    const now = await gateway.ask<Memory>("mem");
    if (!peak || now.rss > peak.rss) peak = now;
    await new Promise((r) => setTimeout(r, 100));
  }
})();

const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < cases.length) {
      const i = next++;
      const c = cases[i] as FuzzCase;
      try {
        const answer = await send(origin, c, target.token, ANSWER_MS);
        const key = String(answer.status);
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if (coreLegacy500(c, answer)) legacy500 += 1;
        const problems = problemsOf(c, answer);
        if (problems.length > 0) {
          broken.push(
            `#${i} ${problems.join("; ")}: ${describe(c)} → ${answer.text.slice(0, 200)}`,
          );
        }
        if (answer.ms > slowest.ms) slowest = { ms: answer.ms, name: `#${i} ${describe(c)}` };
        if (c.answerMsMax !== undefined) {
          slowestHostile.cases += 1;
          if (answer.ms > slowestHostile.ms) {
            slowestHostile = { ...slowestHostile, ms: answer.ms, name: `#${i} ${describe(c)}` };
          }
        }
      } catch (err) {
        const key = err instanceof HangError ? "hang" : `error ${(err as Error).message}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if (err instanceof HangError) hangs.push(`#${i} ${describe(c)}`);
      }
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
sampling = false;
await sampler;
await new Promise((r) => setTimeout(r, 2_000)); // timers and sockets of the last answers settle
const after = await gateway?.ask<Memory>("mem");
const afterGc = await gateway?.ask<Memory>("gc");
if (snapshots) await gateway?.ask(`snapshot ${snapshots}/after.heapsnapshot`);
const ledger = await gateway?.ask<{ accounts: number; failed: unknown[] }>("ledger");

const mem = (m: Memory | undefined) =>
  m
    ? `rss ${(m.rss / MB).toFixed(0)} MB, heap used ${(m.heapUsed / MB).toFixed(0)} MB of ${(m.heapTotal / MB).toFixed(0)} MB, external ${(m.external / MB).toFixed(0)} MB`
    : "n/a (gateway not started here)";

console.log(
  `fuzz: ${CASES} cases, concurrency ${CONCURRENCY}, seed ${SEED}, ${seconds.toFixed(1)} s`,
);
console.log("statuses:");
for (const [status, n] of [...statuses].sort()) console.log(`  ${status.padEnd(6)} ${n}`);
const fivexx = [...statuses].filter(([s]) => s.startsWith("5")).reduce((n, [, k]) => n + k, 0);
console.log(
  `5xx: ${fivexx - legacy500} (besides ${legacy500} of Core's legacy 500: an RPC error to a JSON-RPC 1.0 call, mirrored)`,
);
console.log(`rule broken: ${broken.length}`);
for (const b of broken.slice(0, 20)) console.log(`  ${b}`);
console.log(`hangs (no answer in ${ANSWER_MS} ms): ${hangs.length}`);
for (const h of hangs.slice(0, 20)) console.log(`  ${h}`);
console.log(`slowest: ${slowest.ms.toFixed(0)} ms: ${slowest.name}`);
console.log(
  `slowest of ${slowestHostile.cases} hostile shapes: ${slowestHostile.ms.toFixed(0)} ms: ${slowestHostile.name}`,
);
console.log(`memory before (after ${WARM_UP} warm-up cases and a full GC): ${mem(before)}`);
console.log(`memory peak (by RSS, every 100 ms): ${mem(peak)}`);
console.log(`memory after (2 s later):          ${mem(after)}`);
console.log(`memory after a full GC:            ${mem(afterGc)}`);
if (afterGc?.caches) console.log(`bounded caches after: ${JSON.stringify(afterGc.caches)}`);
console.log(
  ledger
    ? `ledger check: ${ledger.failed.length === 0 ? "ok" : "FAILED"} (${ledger.accounts} accounts)${ledger.failed.length ? ` ${JSON.stringify(ledger.failed)}` : ""}`
    : "ledger check: n/a (gateway not started here; run `blockgate ledger check` against its store)",
);

await gateway?.stop();
await devnet?.stop();
process.exit(broken.length + hangs.length > 0 || (ledger && ledger.failed.length > 0) ? 1 : 0);
