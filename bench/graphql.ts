// The unified API against its peers, side by side in one run. Five query shapes:
//   (a) ten blocks, heights 100–109, five fields;
//   (b) fifty transactions by txid (block 277647's first fifty);
//   (c) a block (277647) with its transactions and their outputs;
//   (d) the ten latest blocks, five fields: never final, so never kept — the indexer is asked
//       every time (through a query plan once the document has executed: src/routes/gateway/query-plans/);
//   (e) (a) with other literal heights in every request: each document new to every side;
// each sent to the devnet indexer directly, to Hive Gateway proxying that indexer, and to the
// blockgate gateway (billing on: PostgreSQL when DATABASE_URL is set, else PGlite). The indexer
// has no transaction by txid and no outputs, so (b) and (c) are asked of it in its own terms (the
// rows of block_transaction, with input and output counts) — the same query to all three — and the
// gateway is also asked them in its own (`transactions(txids:)`, a join to Core for the outputs).
// For (b), one raw JSON-RPC batch of the same fifty getrawtransaction calls straight to devnet's
// Core is the baseline. For (a) the gateway is measured twice: as configured (a repeated request
// about final blocks served from its cache of whole answers, src/routes/gateway/answers/) and with that
// cache off (every request asks the indexer, through a query plan), and with plans off too (every
// request executed by Yoga: delegation to the indexer); (d) as configured and with plans off. Devnet, Hive Gateway and the
// gateway each run in a process of their own
// (bench/*-process.ts), so the CPU time each spends per request is read from the process itself;
// devnet counts the upstream requests each side made, against the client requests it was sent; on
// PostgreSQL, the CPU PostgreSQL's processes spent meanwhile is shown per request too (read from
// /proc: the ledger's share, on this machine's cores like the rest).
// A gateway row's rate against Hive's is printed over all its rounds, then round by round: the
// machine's own pace moves between rounds, and the spread shows by how much.
// Loopback only; bounded in time and count. Usage:
//   [DATABASE_URL=postgres://…] npx tsx bench/graphql.ts [seconds per run] [concurrency] [rounds] [shapes]
// shapes: which of a, b, c, d, e to run (default abcde).
import { readFileSync } from "node:fs";
import { Agent, request } from "undici";
import { type Child, cpuSpent, startChild, startGatewayChild } from "./child.ts";
import { postgresCpuSince, postgresCpuUs } from "./postgres-cpu.ts";

const SECONDS = Number(process.argv[2] ?? 2);
const CONCURRENCY = Number(process.argv[3] ?? 8);
const ROUNDS = Number(process.argv[4] ?? 2);
const SHAPES = process.argv[5] ?? "abcde";
const REQUESTS_MAX = 20_000; // per run, whatever the time bound

// Real data devnet serves (data/chain): block 277647 and the first fifty of its transactions.
interface IndexedBlock {
  height: number;
  hash: string;
  tx: string[];
}
const index = JSON.parse(
  readFileSync(new URL("../data/chain/blocks/INDEX.json", import.meta.url), "utf8"),
) as Record<string, { blocks: IndexedBlock[] }>;
const block277647 = Object.values(index)
  .flatMap((f) => f.blocks)
  .find((b) => b.height === 277647);
if (!block277647) throw new Error("block 277647 is not in data/chain/blocks/INDEX.json");
const TXIDS = block277647.tx.slice(0, 50);
const ROWS = block277647.tx.length; // 213: every transaction of the block

interface Devnet {
  core: { url: string; user: string; password: string };
  indexer: { url: string; secret: string };
}
interface Stats {
  core: { httpRequests: number; callsRead: number };
  indexer: { httpRequests: number };
}

const gql = (query: string, variables?: Record<string, unknown>) =>
  JSON.stringify({ query, ...(variables ? { variables } : {}) });

const TEN_BLOCKS = gql(
  "{ block(where: {height: {_gte: 100, _lte: 109}}, order_by: {height: asc}) { hash height timestamp transaction_count size_bytes } }",
);
const LATEST_TEN = gql(
  "{ block(limit: 10, order_by: {height: desc}) { hash height timestamp transaction_count size_bytes } }",
);
const TXS_AS_ROWS = gql(
  "query ($txids: [String!]) { block(limit: 1, where: {transactions: {hash: {_in: $txids}}}) { height transactions(limit: 50, where: {hash: {_in: $txids}}) { hash size_bytes input_count output_count } } }",
  { txids: TXIDS },
);
const TXS_BY_TXID = gql(
  "query ($txids: [TxId!]!) { transactions(txids: $txids) { txid size vsize weight version locktime } }",
  { txids: TXIDS },
);
const BLOCK_ROWS = gql(
  `{ block(limit: 1, where: {height: {_eq: 277647}}) { hash height timestamp transactions(limit: ${ROWS}) { hash size_bytes input_count output_count } } }`,
);
const BLOCK_OUTPUTS = gql(
  `{ block(limit: 1, where: {height: {_eq: 277647}}) { hash height timestamp transactions(limit: ${ROWS}) { hash transaction { txid outputs { n value { sats } scriptPubKey { type address } } } } } }`,
);
/**
 * (e): (a)'s query with other literal heights in every request, so that each document is one no
 * side has seen (their caches of parsed, validated and planned documents, and our plans and
 * answers, are keyed by the document): what a client that writes its values into the query costs.
 */
const newTenBlocks = (): Varying => ({
  sent: 0,
  nth: (n) => {
    const from = 100 + ((n * 7) % 50_000);
    return gql(
      `{ block(where: {height: {_gte: ${from}, _lte: ${from + 9}}}, order_by: {height: asc}) { hash height timestamp transaction_count size_bytes } }`,
    );
  },
});
const RAW_BATCH = JSON.stringify(
  TXIDS.map((txid, id) => ({ jsonrpc: "2.0", id, method: "getrawtransaction", params: [txid, 1] })),
);

/** Bodies that change with every request (scenario (e)): the nth, counted per side. */
interface Varying {
  nth(n: number): string;
  sent: number;
}

interface Target {
  label: string;
  side: "indexer" | "hive" | "gateway" | "core";
  url: string;
  headers: Record<string, string>;
  body: string | Varying;
  /** The process whose CPU time counts as this side's. */
  process: Child<unknown>;
}

interface Run {
  requests: number;
  seconds: number;
  latencies: number[];
  cpuUs: number;
  devnetCpuUs: number;
  indexerRequests: number;
  coreRequests: number;
  coreCalls: number;
  /** Requests the gateway served from its cache of whole answers. */
  answerHits: number;
  /** CPU time PostgreSQL's processes spent meanwhile (the gateway's ledger), in µs. */
  postgresCpuUs: number;
  /** Settle statements the gateway wrote meanwhile, and the requests they settled. */
  settleStatements: number;
  settleItems: number;
  /** Requests the gateway's query plans sent to the indexer without Yoga. */
  planned: number;
  /** Of those, the ones that took the answer of an ended identical trip (decision 0058). */
  taken: number;
}

const answerHits = async (t: Target) =>
  t.side === "gateway" ? (await t.process.ask<{ hits: number }>("answers")).hits : 0;

type SettleStats = { batches: number; items: number };
const settleStats = async (t: Target): Promise<SettleStats> =>
  t.side === "gateway" ? t.process.ask<SettleStats>("settles") : { batches: 0, items: 0 };

type PlanStats = { served: number; taken: number };
const plannedServed = async (t: Target): Promise<PlanStats> =>
  t.side === "gateway" ? t.process.ask<PlanStats>("plans") : { served: 0, taken: 0 };

/** The body of a side's next request. */
const nextBody = (t: Target): string =>
  typeof t.body === "string" ? t.body : t.body.nth(t.body.sent++);

async function send(t: Target, dispatcher: Agent, body = nextBody(t)): Promise<string> {
  const res = await request(t.url, {
    method: "POST",
    body,
    headers: { "content-type": "application/json", ...t.headers },
    dispatcher,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${t.label}: HTTP ${res.statusCode} ${text}`);
  return text;
}

/** Requests for `SECONDS` (at most REQUESTS_MAX), CONCURRENCY in flight. */
async function run(t: Target, devnet: Child<Devnet>, seconds: number): Promise<Run> {
  const dispatcher = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 10_000 });
  const latencies: number[] = [];
  const statsBefore = await devnet.ask<Stats>("stats");
  const cpuBefore = await t.process.ask<NodeJS.CpuUsage>("cpu");
  const devnetCpuBefore = await devnet.ask<NodeJS.CpuUsage>("cpu");
  const hitsBefore = await answerHits(t);
  const settlesBefore = await settleStats(t);
  const plannedBefore = await plannedServed(t);
  const postgresBefore = postgresCpuUs();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let sent = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < REQUESTS_MAX && performance.now() < deadline) {
        sent++;
        const at = performance.now();
        await send(t, dispatcher);
        latencies.push(performance.now() - at);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const cpuAfter = await t.process.ask<NodeJS.CpuUsage>("cpu");
  const devnetCpuAfter = await devnet.ask<NodeJS.CpuUsage>("cpu");
  const statsAfter = await devnet.ask<Stats>("stats");
  const postgresSpent = postgresCpuSince(postgresBefore);
  const hitsAfter = await answerHits(t);
  const settlesAfter = await settleStats(t);
  const plannedAfter = await plannedServed(t);
  await dispatcher.close();
  return {
    requests: latencies.length,
    seconds: elapsed,
    latencies,
    cpuUs: cpuSpent(cpuBefore, cpuAfter),
    devnetCpuUs: cpuSpent(devnetCpuBefore, devnetCpuAfter),
    indexerRequests: statsAfter.indexer.httpRequests - statsBefore.indexer.httpRequests,
    coreRequests: statsAfter.core.httpRequests - statsBefore.core.httpRequests,
    coreCalls: statsAfter.core.callsRead - statsBefore.core.callsRead,
    answerHits: hitsAfter - hitsBefore,
    postgresCpuUs: postgresSpent,
    settleStatements: settlesAfter.batches - settlesBefore.batches,
    settleItems: settlesAfter.items - settlesBefore.items,
    planned: plannedAfter.served - plannedBefore.served,
    taken: plannedAfter.taken - plannedBefore.taken,
  };
}

const percentile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;

interface Summary {
  perSecond: number;
  p50: number;
  p99: number;
  cpuUsPerRequest: number;
  run: Run;
}

/** The rounds of one target taken together: requests/s over all of them, percentiles over all. */
function summarise(runs: Run[]): Summary {
  const all: Run = {
    requests: 0,
    seconds: 0,
    latencies: [],
    cpuUs: 0,
    devnetCpuUs: 0,
    indexerRequests: 0,
    coreRequests: 0,
    coreCalls: 0,
    answerHits: 0,
    postgresCpuUs: 0,
    settleStatements: 0,
    settleItems: 0,
    planned: 0,
    taken: 0,
  };
  for (const r of runs) {
    all.requests += r.requests;
    all.seconds += r.seconds;
    all.latencies.push(...r.latencies);
    all.cpuUs += r.cpuUs;
    all.devnetCpuUs += r.devnetCpuUs;
    all.indexerRequests += r.indexerRequests;
    all.coreRequests += r.coreRequests;
    all.coreCalls += r.coreCalls;
    all.answerHits += r.answerHits;
    all.postgresCpuUs += r.postgresCpuUs;
    all.settleStatements += r.settleStatements;
    all.settleItems += r.settleItems;
    all.planned += r.planned;
    all.taken += r.taken;
  }
  const sorted = all.latencies.sort((a, b) => a - b);
  return {
    perSecond: all.requests / all.seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    cpuUsPerRequest: all.cpuUs / all.requests,
    run: all,
  };
}

/** What each answer must hold: data and no errors, the same data wherever the query is the same. */
async function firstAnswers(targets: Target[]): Promise<void> {
  const dispatcher = new Agent({ connections: 1 });
  const seen = new Map<string, string>();
  for (const t of targets) {
    // Every side's first body is the same, (e)'s included: its answers are compared.
    const body = typeof t.body === "string" ? t.body : t.body.nth(0);
    const text = await send(t, dispatcher, body);
    if (t.side === "core") {
      const calls = JSON.parse(text) as { result?: unknown; error?: unknown }[];
      if (calls.length !== TXIDS.length || calls.some((c) => c.error || !c.result)) {
        throw new Error(`${t.label}: ${text.slice(0, 400)}`);
      }
      continue;
    }
    const answer = JSON.parse(text) as { data?: unknown; errors?: unknown };
    if (answer.errors !== undefined || answer.data === undefined || answer.data === null) {
      throw new Error(`${t.label}: ${text.slice(0, 400)}`);
    }
    const data = JSON.stringify(answer.data);
    const before = seen.get(body);
    if (before !== undefined && before !== data) {
      throw new Error(`${t.label} answered differently from the indexer itself`);
    }
    seen.set(body, data);
  }
  await dispatcher.close();
}

const devnet = await startChild<Devnet>("./devnet-process.ts");
const hive = await startChild<{ url: string }>("./hive-process.ts", [
  JSON.stringify(devnet.info.indexer),
]);
const gateway = await startGatewayChild<{ url: string; token: string; store: string }>(
  "./gateway-process.ts",
  [JSON.stringify(devnet.info)],
);
// The same gateway with its cache of whole answers off: every request asks the indexer, through
// a query plan (src/routes/gateway/query-plans/) once the document has executed once.
const gatewayCold = await startGatewayChild<{ url: string; token: string; store: string }>(
  "./gateway-process.ts",
  [JSON.stringify(devnet.info)],
  { ...process.env, ANSWERS: "off" },
);
// (d)'s baseline: no request takes the answer of an indexer trip that ended (decision 0058), only
// trips in flight are shared.
const gatewayInFlight = SHAPES.includes("d")
  ? await startGatewayChild<{ url: string; token: string; store: string }>(
      "./gateway-process.ts",
      [JSON.stringify(devnet.info)],
      { ...process.env, SHARED_AFTER: "off" },
    )
  : null;
// And with query plans off too: every request executed by Yoga (delegation to the indexer).
const gatewayYoga = await startGatewayChild<{ url: string; token: string; store: string }>(
  "./gateway-process.ts",
  [JSON.stringify(devnet.info)],
  { ...process.env, ANSWERS: "off", PLANS: "off" },
);
const gatewayUrl = `${gateway.info.url}/gateway/mainnet/${gateway.info.token}`;
const indexerHeaders = { "x-hasura-admin-secret": devnet.info.indexer.secret };
const coreHeaders = {
  authorization: `Basic ${Buffer.from(`${devnet.info.core.user}:${devnet.info.core.password}`).toString("base64")}`,
};

const at = (
  label: string,
  side: Target["side"] | "gateway-cold" | "gateway-yoga",
  body: string | Varying,
): Target => {
  switch (side) {
    case "indexer":
      return {
        label,
        side,
        url: devnet.info.indexer.url,
        headers: indexerHeaders,
        body,
        process: devnet,
      };
    case "hive":
      return { label, side, url: hive.info.url, headers: {}, body, process: hive };
    case "gateway":
      return { label, side, url: gatewayUrl, headers: {}, body, process: gateway };
    case "gateway-cold":
      return {
        label,
        side: "gateway",
        url: `${gatewayCold.info.url}/gateway/mainnet/${gatewayCold.info.token}`,
        headers: {},
        body,
        process: gatewayCold,
      };
    case "gateway-yoga":
      return {
        label,
        side: "gateway",
        url: `${gatewayYoga.info.url}/gateway/mainnet/${gatewayYoga.info.token}`,
        headers: {},
        body,
        process: gatewayYoga,
      };
    case "core":
      return {
        label,
        side,
        url: devnet.info.core.url,
        headers: coreHeaders,
        body,
        process: devnet,
      };
  }
};

const scenarios: { title: string; targets: Target[] }[] = [
  {
    title: "(a) ten blocks, heights 100–109, five fields",
    targets: [
      at("indexer directly", "indexer", TEN_BLOCKS),
      at("Hive Gateway → indexer", "hive", TEN_BLOCKS),
      at(`blockgate (${gateway.info.store})`, "gateway", TEN_BLOCKS),
      at(`blockgate (${gateway.info.store}), answer cache off`, "gateway-cold", TEN_BLOCKS),
      at(
        `blockgate (${gateway.info.store}), answer cache and plans off`,
        "gateway-yoga",
        TEN_BLOCKS,
      ),
    ],
  },
  {
    title: "(e) ten blocks as (a), other literal heights in every document",
    targets: [
      at("indexer directly", "indexer", newTenBlocks()),
      at("Hive Gateway → indexer", "hive", newTenBlocks()),
      at(`blockgate (${gateway.info.store})`, "gateway", newTenBlocks()),
      at(`blockgate (${gateway.info.store}), answer cache off`, "gateway-cold", newTenBlocks()),
    ],
  },
  {
    title: "(d) the ten latest blocks, five fields (never final)",
    targets: [
      at("indexer directly", "indexer", LATEST_TEN),
      at("Hive Gateway → indexer", "hive", LATEST_TEN),
      at(`blockgate (${gateway.info.store})`, "gateway", LATEST_TEN),
      ...(gatewayInFlight
        ? [
            {
              ...at(
                `blockgate (${gateway.info.store}), ended trips unshared`,
                "gateway",
                LATEST_TEN,
              ),
              url: `${gatewayInFlight.info.url}/gateway/mainnet/${gatewayInFlight.info.token}`,
              process: gatewayInFlight,
            },
          ]
        : []),
      at(`blockgate (${gateway.info.store}), plans off`, "gateway-yoga", LATEST_TEN),
    ],
  },
  {
    title: "(b) fifty transactions by txid",
    targets: [
      at("indexer directly, as rows", "indexer", TXS_AS_ROWS),
      at("Hive Gateway → indexer, as rows", "hive", TXS_AS_ROWS),
      at(`blockgate (${gateway.info.store}), as rows`, "gateway", TXS_AS_ROWS),
      at("Core directly, one JSON-RPC batch of 50", "core", RAW_BATCH),
      at(`blockgate (${gateway.info.store}), transactions(txids)`, "gateway", TXS_BY_TXID),
      // Every request to Core: what fifty transactions not asked before cost.
      at(
        `blockgate (${gateway.info.store}), transactions(txids), answer cache off`,
        "gateway-cold",
        TXS_BY_TXID,
      ),
      // And through Yoga every time: what the node plan (query-plans/node-plan.ts) saves.
      at(
        `blockgate (${gateway.info.store}), transactions(txids), answer cache and plans off`,
        "gateway-yoga",
        TXS_BY_TXID,
      ),
    ],
  },
  {
    title: `(c) block 277647 with its ${ROWS} transactions and their outputs`,
    targets: [
      at("indexer directly, output counts", "indexer", BLOCK_ROWS),
      at("Hive Gateway → indexer, output counts", "hive", BLOCK_ROWS),
      at(`blockgate (${gateway.info.store}), output counts`, "gateway", BLOCK_ROWS),
      at(`blockgate (${gateway.info.store}), outputs joined from Core`, "gateway", BLOCK_OUTPUTS),
    ],
  },
];

const fmt = (n: number, digits = 0) => n.toFixed(digits);
const rate = (r: Run | undefined) => (r ? r.requests / r.seconds : 0);

/**
 * A side's rate against Hive's round by round, the two measured one after the other: how far the
 * machine's own pace moved the ratio between rounds (a run's figure is over all its rounds).
 */
function roundRatios(runs: Map<Target, Run[]>, t: Target): string[] {
  const hive = [...runs].find(([k]) => k.side === "hive")?.[1] ?? [];
  return (runs.get(t) ?? []).map((r, i) => fmt(rate(r) / rate(hive[i]), 2));
}

function load(): string {
  const [one, five] = readFileSync("/proc/loadavg", "utf8").split(" ");
  return `${one} ${five}`;
}

console.log(
  `bench/graphql: ${SECONDS} s per run, ${CONCURRENCY} in flight, ${ROUNDS} rounds (order rotating); load average ${load()}`,
);
for (const scenario of scenarios.filter((s) => SHAPES.includes(s.title[1] ?? ""))) {
  await firstAnswers(scenario.targets);
  // Warm-up: every side is JIT-compiled JavaScript (Node) or a process just started; the first
  // second still ran 10–20% below the rounds after it, on every side.
  for (const t of scenario.targets) await run(t, devnet, Math.min(3, SECONDS));
  const runs = new Map<Target, Run[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < scenario.targets.length; k++) {
      const t = scenario.targets[(k + round) % scenario.targets.length]!;
      runs.set(t, [...(runs.get(t) ?? []), await run(t, devnet, SECONDS)]);
    }
  }
  const summaries = new Map(scenario.targets.map((t) => [t, summarise(runs.get(t) ?? [])]));
  const hiveRate = [...summaries].find(([t]) => t.side === "hive")?.[1].perSecond ?? 0;
  const rawBatch = [...summaries].find(([t]) => t.side === "core")?.[1];
  console.log(`\n${scenario.title}   (load average ${load()})`);
  for (const [t, s] of summaries) {
    const ratios: string[] = [];
    if (t.side === "gateway" && t.body !== TXS_BY_TXID && t.body !== BLOCK_OUTPUTS) {
      ratios.push(
        `gateway ÷ Hive ${fmt(s.perSecond / hiveRate, 2)}x req/s (rounds ${roundRatios(runs, t).join(" ")})`,
      );
    }
    if (t.body === TXS_BY_TXID && rawBatch) {
      ratios.push(`gateway ÷ raw batch ${fmt(s.p50 / rawBatch.p50, 2)}x p50`);
    }
    const cpu =
      t.side === "indexer" || t.side === "core"
        ? `devnet CPU ${fmt(s.cpuUsPerRequest)} µs/req`
        : `CPU ${fmt(s.cpuUsPerRequest)} µs/req (devnet ${fmt(s.run.devnetCpuUs / s.run.requests)}${
            t.side === "gateway" && gateway.info.store === "PostgreSQL"
              ? `, PostgreSQL ${fmt(s.run.postgresCpuUs / s.run.requests)}`
              : ""
          }${
            s.run.settleStatements
              ? `; ${fmt(s.run.settleItems / s.run.settleStatements, 1)} per settle`
              : ""
          })`;
    console.log(
      `  ${t.label.padEnd(52)} ${fmt(s.perSecond).padStart(6)} req/s  p50 ${fmt(s.p50, 2).padStart(6)} ms  p99 ${fmt(s.p99, 2).padStart(6)} ms  ${cpu}${ratios.length ? `  ${ratios.join(", ")}` : ""}`,
    );
  }
  console.log("  upstream requests devnet saw, against client requests (deduplication):");
  for (const [t, s] of summaries) {
    const { requests, indexerRequests, coreRequests, coreCalls } = s.run;
    const upstream =
      t.side === "core"
        ? `${coreRequests} Core requests (${coreCalls} calls)`
        : [
            indexerRequests ? `${indexerRequests} indexer requests` : "",
            coreRequests ? `${coreRequests} Core requests (${coreCalls} calls)` : "",
          ]
            .filter(Boolean)
            .join(" + ") || "none";
    const kept = [
      s.run.answerHits
        ? ` — ${s.run.answerHits} answered from the gateway's cache of whole answers`
        : "",
      s.run.planned ? ` — ${s.run.planned} answered by a query plan, without Yoga` : "",
      s.run.taken ? ` (${s.run.taken} from an indexer trip that had ended)` : "",
    ].join("");
    const shared =
      t.side === "indexer" || t.side === "core"
        ? ""
        : indexerRequests > 0 && indexerRequests < requests
          ? ` — ${requests - indexerRequests} of ${requests} client requests shared another's indexer request (${fmt(requests / indexerRequests, 1)} a trip)`
          : indexerRequests > 0
            ? " — none deduplicated"
            : "";
    console.log(
      `    ${t.label.padEnd(52)} ${requests} client requests → ${upstream}${shared}${kept}`,
    );
  }
}

await gateway.stop();
await gatewayCold.stop();
await gatewayYoga.stop();
await gatewayInFlight?.stop();
await hive.stop();
await devnet.stop();
