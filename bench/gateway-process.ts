// The blockgate gateway in a process of its own, billing on, for bench/graphql.ts: started against
// the devnet Core and indexer named in argv[2] (JSON, as bench/devnet-process.ts prints them), on
// PostgreSQL when DATABASE_URL is set (a schema of its own, dropped on exit), else PGlite in memory.
// Prints `{url, token}` (an account granted plenty of credits) as one JSON line; a line `cpu` on
// stdin is answered with process.cpuUsage() (user and system µs) as one JSON line, so the bench can
// tell the CPU time this process spent per request; a line `answers` with the unified API's cache of
// whole answers (hits, misses, entries); `plans` its plans' counts and the ended trips taken; a line `gc` with the garbage collections since the last
// (by kind: a tail latency's pauses); `loop` the longest event-loop delay since the last ask; `mem` the process's memory (`mem gc` after a collection,
// under --expose-gc); `heap <path>` writes a heap snapshot there; `sample start`,
// then `sample stop <path>`, a sampling heap profile of what outlived a minor collection
// meanwhile (SAMPLE_MAJOR=off: only what is still alive at the stop). ANSWERS=off turns that cache off (cache.gatewayBytesMax 0),
// for the side that always executes; TX_CACHE=on keeps the transaction cache (off otherwise, so
// every transaction goes to Core); DECODED=off turns the decoded-transaction cache off
// (cache.decodedBytesMax 0); SHARED_AFTER=off shares no ended indexer trip; LEDGER (JSON) sets
// the ledger section. LIMITS=memory|redis puts the account on a plan whose every limit is checked
// and never reached (bench/node-gateway.ts), its counters in memory or in Redis (REDIS_URL, which
// also gives the response cache its Redis tier). `statements`: the statements it sent since the
// last ask, counted by their first words. Runs until its stdin closes.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { constants, monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks";
import { createInterface } from "node:readline";
import { writeHeapSnapshot } from "node:v8";
import { issueToken } from "../src/access/tokens.ts";
import { startGateway } from "../src/app/app.ts";
import { createAccount } from "../src/billing/ledger/accounts.ts";
import { grantCredits } from "../src/billing/ledger/ledger.ts";
import { parseConfig } from "../src/config/load.ts";
import type { BitcoinCoreUpstreamConfig } from "../src/config/schema.ts";
import type { Queryable } from "../src/db/database.ts";
import { unreachedPlan } from "./node-gateway.ts";

interface Upstreams {
  core: { url: string; user: string; password: string };
  indexer: { url: string; secret: string };
}

const upstreams = JSON.parse(process.argv[2] ?? "{}") as Upstreams;
const CONNECTIONS = 64;
const LIMITS = process.env.LIMITS;
const config = parseConfig({
  ...(LIMITS === "memory" || LIMITS === "redis" ? unreachedPlan() : {}),
  server: {
    port: 0,
    // RESPONSE_BYTES_MAX: server.responseBytesMax (bench/large-answers.ts).
    ...(process.env.RESPONSE_BYTES_MAX
      ? { responseBytesMax: Number(process.env.RESPONSE_BYTES_MAX) }
      : {}),
  },
  database: { pgliteDir: "memory://" },
  demo: { enabled: false },
  log: { level: "silent" },
  networks: ["mainnet"],
  // Every transaction goes to Core, as the raw batch does.
  // TX_CACHE=on keeps the transaction cache (the node route's cached answers).
  cache: {
    ...(process.env.TX_CACHE === "on" ? {} : { bytesMax: 0 }),
    ...(process.env.ANSWERS === "off" ? { gatewayBytesMax: 0 } : {}),
    ...(process.env.DECODED === "off" ? { decodedBytesMax: 0 } : {}),
  },
  upstreams: { node: { mainnet: [{ ...upstreams.core, connections: CONNECTIONS }] } },
  // LEDGER: settings of the ledger section as JSON, for side-by-side trials of them.
  ledger: JSON.parse(process.env.LEDGER ?? "{}") as Record<string, unknown>,
  graphql: {
    // PLANS=off: every unified API request not answered by the cache goes through Yoga.
    ...(process.env.PLANS === "off" ? { queryPlansMax: 0 } : {}),
    // SHARED_AFTER=off: only indexer trips in flight are shared (graphql.sharedAfterTripMs 0).
    ...(process.env.SHARED_AFTER === "off" ? { sharedAfterTripMs: 0 } : {}),
  },
});
const databaseUrl = process.env.DATABASE_URL || undefined;
const schema = databaseUrl ? `bench_${randomBytes(4).toString("hex")}` : undefined;
const gateway = await startGateway(config, {
  databaseUrl,
  ...(schema ? { databaseSchema: schema } : {}),
  nodeUpstreams: {
    mainnet: (config.upstreams.node?.mainnet ?? []).filter(
      (u): u is BitcoinCoreUpstreamConfig => u !== "devnet",
    ),
  },
  graphUpstreams: {
    mainnet: [
      {
        url: upstreams.indexer.url,
        adminSecret: upstreams.indexer.secret,
        timeoutMs: 10_000,
        connections: CONNECTIONS,
      },
    ],
  },
  noAdminFile: true,
  redisUrl: LIMITS === "redis" ? (process.env.REDIS_URL ?? "redis://127.0.0.1:6379") : undefined,
});
// Statements the gateway sends, by their first words (`statements` asks for them, then forgets):
// what a request costs the store, counted rather than timed.
const statements = new Map<string, number>();
const counted = <Q extends Queryable>(q: Q, via: string): void => {
  const query = q.query.bind(q);
  q.query = ((sql: string, params?: readonly unknown[]) => {
    // The first words alone: a settle statement's text is kilobytes, read once per statement.
    const head = `${via}${sql.slice(0, 140).replace(/\s+/g, " ").trim().slice(0, 70)}`;
    statements.set(head, (statements.get(head) ?? 0) + 1);
    return query(sql, params);
  }) as Q["query"];
};
counted(gateway.app.db, "");
counted(gateway.app.db.settles, "settles: ");
const transaction = gateway.app.db.transaction.bind(gateway.app.db);
gateway.app.db.transaction = (fn) => {
  statements.set("(transaction)", (statements.get("(transaction)") ?? 0) + 1);
  return transaction(fn);
};

const account = await createAccount(gateway.app.db, "bench");
await grantCredits(gateway.app.db, account.id, 1_000_000_000_000);
const { token } = await issueToken(gateway.app.db, account.id);
process.stdout.write(
  `${JSON.stringify({ url: gateway.url, token, store: schema ? "PostgreSQL" : "PGlite" })}\n`,
);

// Each collection's pause (PerformanceObserver's `gc` entries), kept until the next `gc` ask.
let pauses: { ms: number; major: boolean; kind: number }[] = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const { detail } = entry as PerformanceEntry & { detail?: { kind?: number } };
    const kind = detail?.kind;
    pauses.push({
      ms: entry.duration,
      major: kind === constants.NODE_PERFORMANCE_GC_MAJOR,
      kind: kind ?? 0,
    });
  }
}).observe({ entryTypes: ["gc"] });
function gcSince(): {
  count: number;
  major: number;
  totalMs: number;
  maxMs: number;
  heapMb: number;
  /** Count and total ms by kind (1 minor, 2 major, 4 incremental marking, 8 weak callbacks). */
  kinds: Record<number, [number, number]>;
} {
  const seen = pauses;
  pauses = [];
  return {
    heapMb: Math.round(process.memoryUsage().heapUsed / 1e6),
    count: seen.length,
    major: seen.filter((p) => p.major).length,
    totalMs: seen.reduce((a, p) => a + p.ms, 0),
    maxMs: seen.reduce((a, p) => Math.max(a, p.ms), 0),
    kinds: seen.reduce<Record<number, [number, number]>>((by, p) => {
      const [count, ms] = by[p.kind] ?? [0, 0];
      by[p.kind] = [count + 1, Math.round((ms + p.ms) * 10) / 10];
      return by;
    }, {}),
  };
}

const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();

const unified = await gateway.app.unifiedApi();
const sampling = new Session();
sampling.connect();
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (line.trim() === "cpu") process.stdout.write(`${JSON.stringify(process.cpuUsage())}\n`);
  if (line.trim() === "answers") {
    process.stdout.write(`${JSON.stringify(gateway.app.gatewayAnswers.stats)}\n`);
  }
  if (line.trim() === "plans") {
    // With the requests that took an ended indexer trip's answer (decision 0058).
    const taken = gateway.app.indexers.get("mainnet")?.finished.stats.taken ?? 0;
    process.stdout.write(`${JSON.stringify({ ...unified.plans.stats, taken })}\n`);
  }
  // Garbage collections since the last ask (then forgotten): what a tail latency may be made of.
  if (line.trim() === "gc") {
    process.stdout.write(`${JSON.stringify(gcSince())}\n`);
  }
  // Allocation sampling: `sample start`, then `sample stop <path>` writes a .heapprofile of what
  // was allocated meanwhile and outlived a minor collection (collected by a major one or not).
  if (line.trim() === "sample start") {
    void sampling.post("HeapProfiler.enable").then(async () => {
      await sampling.post("HeapProfiler.startSampling", {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: process.env.SAMPLE_MAJOR !== "off",
        includeObjectsCollectedByMinorGC: false,
      });
      process.stdout.write("true\n");
    });
  }
  if (line.startsWith("sample stop ")) {
    void sampling.post("HeapProfiler.stopSampling").then(({ profile }) => {
      writeFileSync(line.slice(12).trim(), JSON.stringify(profile));
      process.stdout.write("true\n");
    });
  }
  // A heap snapshot written to the path given (`heap /tmp/x.heapsnapshot`): what the live heap holds.
  if (line.startsWith("heap ")) {
    process.stdout.write(`${JSON.stringify(writeHeapSnapshot(line.slice(5).trim()))}\n`);
  }
  // The longest the event loop was held up since the last ask, in ms (then forgotten).
  if (line.trim() === "loop") {
    process.stdout.write(`${JSON.stringify(Math.round(loopDelay.max / 1e6))}\n`);
    loopDelay.reset();
  }
  // The process's memory (process.memoryUsage()); `mem gc` collects first (needs --expose-gc).
  if (line.trim().startsWith("mem")) {
    const collect = (globalThis as { gc?: () => void }).gc;
    if (line.trim() === "mem gc" && collect) collect();
    process.stdout.write(`${JSON.stringify(process.memoryUsage())}\n`);
  }
  // The settle queue's statements and items so far (a bench reads the mean batch between two asks).
  if (line.trim() === "settles") {
    process.stdout.write(`${JSON.stringify(gateway.app.credits.queue.stats)}\n`);
  }
  // The statements sent since the last ask, by their first words (then forgotten).
  if (line.trim() === "statements") {
    process.stdout.write(`${JSON.stringify(Object.fromEntries(statements))}\n`);
    statements.clear();
  }
});
lines.on("close", () => {
  void (async () => {
    if (schema) {
      await gateway.app.db.query(`DROP SCHEMA ${schema} CASCADE`);
      // The webhook queue's schema beside ours (src/webhooks/queue.ts).
      await gateway.app.db.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
    }
    await gateway.close();
    process.exit(0);
  })();
});
