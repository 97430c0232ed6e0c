// The response cache against the node it saves trips to, side by side in one
// run: the 50-transaction verbose batch — getrawtransaction(txid, true) for 50 real txids of
// block 277647 —
//   (a) as one JSON-RPC batch: to devnet's Core directly, through the gateway's node route with the
//       cache off (every call to Core), and through it with every answer cached;
//   (b) as one GraphQL request to /gateway (`transactions(txids)`, the verbose fields), cache off
//       and cached, next to the same raw batch to Core; and cached without `confirmations`, the
//       one verbose field that moves with the tip, which leaves an answer the gateway may keep
//       whole (src/routes/gateway/answers/).
// One client, one request at a time (latency, not throughput), rounds alternating between
// targets; p50, p90 and p99 in ms, and each row ÷ Core's p50. Devnet runs in its own process
// (bench/devnet-process.ts), so Core does not share this process's thread. Billing is on: every
// request through the gateway reserves, charges and writes its audit records (PGlite in memory,
// or PostgreSQL when DATABASE_URL is set). Loopback only; bounded by count. The gateway runs in
// this process: give NODE_ENV=production to measure it as `npm start` runs it (graphql-js then
// skips a development check on every field). Usage:
//   [GATEWAY_NODE_FLAGS=…] NODE_ENV=production [DATABASE_URL=postgres://…] npx tsx bench/cache.ts [requests per round] [rounds]
// The gateway runs in this process, which runs itself again with GATEWAY_NODE_FLAGS (default:
// the gateway's deployed flags, decision 0071; "" for Node's own).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import { issueToken } from "../src/access/tokens.ts";
import { type RunningGateway, startGateway } from "../src/app/app.ts";
import { createAccount } from "../src/billing/ledger/accounts.ts";
import { grantCredits } from "../src/billing/ledger/ledger.ts";
import { parseConfig } from "../src/config/load.ts";
import type { BitcoinCoreUpstreamConfig } from "../src/config/schema.ts";
import { loadDevnetChain } from "../src/devnet/chain.ts";
import { underGatewayFlags } from "./child.ts";

await underGatewayFlags();

const PER_ROUND = Number(process.argv[2] ?? 100);
const ROUNDS = Number(process.argv[3] ?? 5);
const TXIDS = loadDevnetChain()
  .byHeight.get(277647)!
  .block.transactions.slice(1, 51)
  .map((tx) => tx.txid);
const rpcBatch = JSON.stringify(
  TXIDS.map((txid, i) => ({
    jsonrpc: "2.0",
    id: i,
    method: "getrawtransaction",
    params: [txid, true],
  })),
);
/** What the verbose form holds, as the unified API names it. */
const GRAPHQL = JSON.stringify({
  query: `query($ids: [TxId!]!) { transactions(txids: $ids) {
    txid hash version size vsize weight locktime blockhash confirmations time blocktime hex
    inputs { txid vout coinbase scriptSig { asm hex } witness sequence }
    outputs { n value { btc } scriptPubKey { asm desc hex address type } }
  } }`,
  variables: { ids: TXIDS },
});
/** The same but for `confirmations`: every field fixed while the block is on the best chain. */
const GRAPHQL_FIXED = GRAPHQL.replace(" confirmations", "");

interface Target {
  label: string;
  url: string;
  body: string;
  headers: Record<string, string>;
}

const dispatcher = new Agent({ connections: 4, keepAliveTimeout: 30_000 });

async function once(t: Target): Promise<number> {
  const started = performance.now();
  const res = await request(t.url, {
    method: "POST",
    body: t.body,
    headers: { "content-type": "application/json", ...t.headers },
    dispatcher,
  });
  const text = await res.body.text();
  const ms = performance.now() - started;
  if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode} from ${t.label}: ${text}`);
  if (text.includes('"errors"') || text.includes('"error":{')) {
    throw new Error(`${t.label} answered an error: ${text.slice(0, 300)}`);
  }
  return ms;
}

async function devnetProcess() {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("./devnet-process.ts", import.meta.url))],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0] as string);
    });
    child.once("exit", (code) => reject(new Error(`devnet exited ${code}`)));
  });
  const info = JSON.parse(line) as { core: { url: string; user: string; password: string } };
  return { ...info, stop: () => child.stdin.end() };
}

async function gatewayOn(core: { url: string; user: string; password: string }, cached: boolean) {
  const databaseUrl = process.env.DATABASE_URL;
  const config = parseConfig({
    server: { port: 0 },
    database: { pgliteDir: "memory://" },
    demo: { enabled: false },
    log: { level: "silent" },
    networks: ["mainnet"],
    cache: cached ? { bytesMax: 64 * 1024 * 1024 } : { bytesMax: 0, gatewayBytesMax: 0 },
    upstreams: { node: { mainnet: [{ ...core }] } },
  });
  const schema = databaseUrl ? `bench_${randomBytes(4).toString("hex")}` : undefined;
  const gateway: RunningGateway = await startGateway(config, {
    databaseUrl,
    ...(schema ? { databaseSchema: schema } : {}),
    nodeUpstreams: {
      mainnet: (config.upstreams.node?.mainnet ?? []).filter(
        (u): u is BitcoinCoreUpstreamConfig => u !== "devnet",
      ),
    },
    noAdminFile: true,
  });
  const account = await createAccount(gateway.app.db, "bench");
  await grantCredits(gateway.app.db, account.id, 1_000_000_000_000);
  const { token } = await issueToken(gateway.app.db, account.id);
  return {
    gateway,
    node: `${gateway.url}/node/mainnet/${token}`,
    unified: `${gateway.url}/gateway/mainnet/${token}`,
    close: async () => {
      if (schema) {
        await gateway.app.db.query(`DROP SCHEMA ${schema} CASCADE`);
        // The webhook queue's schema beside ours (src/webhooks/queue.ts).
        await gateway.app.db.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
      }
      await gateway.close();
    },
  };
}

const pct = (sorted: number[], q: number) => sorted[Math.floor(sorted.length * q)] ?? 0;

const devnet = await devnetProcess();
const coreAuth = {
  authorization: `Basic ${Buffer.from(`${devnet.core.user}:${devnet.core.password}`).toString("base64")}`,
};
const uncached = await gatewayOn(devnet.core, false);
const cached = await gatewayOn(devnet.core, true);
const targets: Target[] = [
  {
    label: "Core directly (one JSON-RPC batch)",
    url: devnet.core.url,
    body: rpcBatch,
    headers: coreAuth,
  },
  { label: "gateway node route, cache off", url: uncached.node, body: rpcBatch, headers: {} },
  { label: "gateway node route, cached", url: cached.node, body: rpcBatch, headers: {} },
  {
    label: "gateway /gateway GraphQL, cache off",
    url: uncached.unified,
    body: GRAPHQL,
    headers: {},
  },
  { label: "gateway /gateway GraphQL, cached", url: cached.unified, body: GRAPHQL, headers: {} },
  {
    label: "gateway /gateway cached, no confirmations",
    url: cached.unified,
    body: GRAPHQL_FIXED,
    headers: {},
  },
];

// Warm-up: connections, JIT, and the cached gateway's cache filled by its first answers.
for (const t of targets) for (let i = 0; i < 20; i++) await once(t);
const memory = cached.gateway.app.txCache.memory;
if (!TXIDS.every((txid) => memory.has("mainnet", txid))) throw new Error("cache not filled");
if (uncached.gateway.app.txCache.memory.stats.entries !== 0) throw new Error("cache off is on");

const load = loadavg().map((l) => l.toFixed(2));
const samples = new Map<string, number[]>(targets.map((t) => [t.label, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (let k = 0; k < targets.length; k++) {
    const t = targets[(k + round) % targets.length]!;
    for (let i = 0; i < PER_ROUND; i++) samples.get(t.label)!.push(await once(t));
  }
}
const hits = cached.gateway.app.txCache.memory.stats.hits;

const coreP50 = pct(
  [...samples.get(targets[0]!.label)!].sort((a, b) => a - b),
  0.5,
);
console.log(
  `50 verbose transactions per request; ${ROUNDS} rounds × ${PER_ROUND} requests per target, one at a time; store ${process.env.DATABASE_URL ? "PostgreSQL" : "PGlite"}; load average at start ${load.join(" ")}`,
);
console.log(
  `${"target".padEnd(42)} ${"p50 ms".padStart(8)} ${"p90 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"÷ Core p50".padStart(11)}`,
);
for (const t of targets) {
  const sorted = [...samples.get(t.label)!].sort((a, b) => a - b);
  const p50 = pct(sorted, 0.5);
  console.log(
    `${t.label.padEnd(42)} ${p50.toFixed(2).padStart(8)} ${pct(sorted, 0.9).toFixed(2).padStart(8)} ${pct(sorted, 0.99).toFixed(2).padStart(8)} ${(p50 / coreP50).toFixed(2).padStart(11)}`,
  );
}
console.log(
  `cache hits in the cached gateway's memory tier: ${hits}; load average at end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`,
);

await uncached.close();
await cached.close();
await dispatcher.close();
devnet.stop();
