// The limits phase alone, as a node-route call goes through it: admission (rates, a slot, a guess
// taken from the credit caps), the cap phase claiming it, a turn of the event loop for the call's
// work, then the release — for no plan, a plan whose every limit is checked and never reached with
// its counters in memory, and the same plan in Redis (REDIS_URL), side by side in one process,
// rounds alternating. Per call: this process's CPU (what the phase costs the gateway's thread),
// Redis's commands and, with REDIS_PID, redis-server's CPU (give it a Redis of its own). Calls are
// kept `concurrency` in flight, as a loaded gateway keeps them. Bounded by count. Usage:
//   [KINDS=none,memory,redis] [REDIS_URL=redis://127.0.0.1:<port>] [REDIS_PID=<its pid>] npx tsx bench/limits-phase.ts [calls] [concurrency] [rounds]
import { loadavg } from "node:os";
import { Redis } from "ioredis";
import pino from "pino";
import { issueToken } from "../src/access/tokens.ts";
import { createAccount } from "../src/billing/ledger/accounts.ts";
import { grantCredits } from "../src/billing/ledger/ledger.ts";
import { parseConfig } from "../src/config/load.ts";
import { openDatabase } from "../src/db/open.ts";
import { Limits } from "../src/limits/limits.ts";
import { unreachedPlan } from "./node-gateway.ts";
import { processCpuUs } from "./process-cpu.ts";

const CALLS = Number(process.argv[2] ?? 20_000);
const CONCURRENCY = Number(process.argv[3] ?? 64);
const ROUNDS = Number(process.argv[4] ?? 3);
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const REDIS_PID = process.env.REDIS_PID;
/** A node call's price, as the cap phase takes it. */
const ESTIMATE = 2;

/** node-route's plan: every limit checked, none reached; its own Redis key prefix. */
const plan = unreachedPlan();
const config = (withPlan: boolean) =>
  parseConfig({
    database: { pgliteDir: "memory://" },
    log: { level: "silent" },
    networks: ["mainnet"],
    ...(withPlan ? plan : {}),
  });

const db = await openDatabase({ pgliteDir: "memory://", poolSize: 1 });
const account = await createAccount(db, "bench");
await grantCredits(db, account.id, 1_000_000_000);
const { id: tokenId } = await issueToken(db, account.id);
const owner = { tokenId, accountId: account.id, hint: "bench" };
const log = pino({ enabled: false });
const KINDS = (process.env.KINDS ?? "none,memory,redis").split(",");
const kinds: [string, Limits][] = (
  [
    ["none", () => Limits.create(config(false), db, log)],
    ["memory", () => Limits.create(config(true), db, log)],
    ["redis", () => Limits.create(config(true), db, log, REDIS_URL)],
  ] as const
).flatMap(([kind, make]) => (KINDS.includes(kind) ? [[kind, make()] as [string, Limits]] : []));

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * One call through the phase: admitted, its estimate claimed, its work (`turns` turns of the event
 * loop, so that calls in flight end apart, as calls to an upstream do), released.
 */
async function call(limits: Limits, turns: number): Promise<void> {
  const admission = await limits.admit(owner, `${tokenId}/node/mainnet`);
  if (!admission.ok) throw new Error(`refused: ${admission.error.message}`);
  const spent = await limits.spend(owner, ESTIMATE, admission.caps ?? null);
  if (!spent.ok) throw new Error(`capped: ${spent.error.message}`);
  for (let i = 0; i < turns; i++) await turn();
  await spent.giveBack(0);
  admission.release?.();
}

async function run(limits: Limits, n: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < n) {
      next++;
      await call(limits, 1 + (next % 7));
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

const redisCpuUs = () => processCpuUs(REDIS_PID);

const probe = new Redis(REDIS_URL);
/** Commands sent by clients (a script's own calls are counted apart): scripts and ZREMs. */
async function commands(): Promise<number> {
  const info = await probe.info("commandstats");
  let n = 0;
  for (const m of info.matchAll(/cmdstat_(evalsha|eval|zrem):calls=(\d+)/g)) n += Number(m[2]);
  return n;
}

const results = new Map<
  string,
  { cpu: number[]; rate: number[]; cmds: number[]; redis: number[] }
>();
for (const [, limits] of kinds) await run(limits, 2_000); // warm
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? kinds : [...kinds].reverse();
  for (const [kind, limits] of order) {
    const before = { cmds: await commands(), redis: redisCpuUs() };
    const cpu = process.cpuUsage();
    const started = performance.now();
    await run(limits, CALLS);
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    const cmds = (await commands()) - before.cmds;
    const r = results.get(kind) ?? { cpu: [], rate: [], cmds: [], redis: [] };
    r.cpu.push((used.user + used.system) / CALLS);
    r.rate.push((CALLS / ms) * 1000);
    r.cmds.push(cmds / CALLS);
    r.redis.push((redisCpuUs() - before.redis) / CALLS);
    results.set(kind, r);
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
console.log(
  `${CALLS} calls, ${CONCURRENCY} in flight, ${ROUNDS} rounds (medians), load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);
const none = median(results.get("none")?.cpu ?? [0]);
for (const [kind, r] of results) {
  const cpu = median(r.cpu);
  console.log(
    `${kind.padEnd(7)} ${cpu.toFixed(2).padStart(6)} µs CPU a call (+${(cpu - none).toFixed(2)} over no plan)` +
      `  ${Math.round(median(r.rate))} calls/s  Redis: ${median(r.cmds).toFixed(3)} scripts and ZREMs a call` +
      (REDIS_PID ? `, ${median(r.redis).toFixed(2)} µs CPU a call` : ""),
  );
}
for (const [, limits] of kinds) await limits.close();
const keys = await probe.keys(`${plan.limits.redisKeyPrefix}*`);
if (keys.length > 0) await probe.del(...keys);
probe.disconnect();
await db.close();
