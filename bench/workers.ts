// `blockgate start --workers N` against a bare proxy given the same worker processes: the node
// route (getrawtransaction over block 277647's transactions) through the gateway run as the CLI
// runs it (`node bin/blockgate.js start --workers 1` and `--workers 2`, on PostgreSQL, billing and
// audit on) and through bench/proxy-cluster-process.ts with 1 and 2 workers, side by side, the
// order rotating each round; medians. Devnet runs in its own process. Then the acceptance check:
// on `--workers 2`, an account funded for exactly `paid` calls is sent `sent` calls at
// `burst` concurrency through the one port; exactly `paid` must be answered 200, every call
// audited, the ledger check ok. Loopback only. Usage:
//   [GATEWAY_NODE_FLAGS=…] [DATABASE_URL=postgres://…] npx tsx bench/workers.ts [calls=4000] [concurrency=64] [rounds=3] [paid=300] [sent=1000] [burst=500]
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent, request } from "undici";
import { issueToken } from "../src/access/tokens.ts";
import { createAccount } from "../src/billing/ledger/accounts.ts";
import { checkLedger, grantCredits } from "../src/billing/ledger/ledger.ts";
import type { Database } from "../src/db/database.ts";
import { openDatabase } from "../src/db/open.ts";
import { GATEWAY_NODE_FLAGS, startChild } from "./child.ts";

const [CALLS, CONCURRENCY, ROUNDS, PAID, SENT, BURST] = [4000, 64, 3, 300, 1000, 500].map((d, i) =>
  Number(process.argv[2 + i] ?? d),
) as [number, number, number, number, number, number];
const DATABASE_URL = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const PRICE = 200; // getrawtransaction on mainnet

const TXIDS = (
  Object.values(
    JSON.parse(
      readFileSync(new URL("../data/chain/blocks/INDEX.json", import.meta.url), "utf8"),
    ) as Record<string, { blocks: { height: number; tx: string[] }[] }>,
  )
    .flatMap((f) => f.blocks)
    .find((b) => b.height === 277647) ?? { tx: [] }
).tx;
if (TXIDS.length < 200) throw new Error("block 277647 is not in data/chain/blocks/INDEX.json");
const bodies = TXIDS.map((txid, i) =>
  JSON.stringify({ jsonrpc: "2.0", id: i, method: "getrawtransaction", params: [txid] }),
);

type Core = { url: string; user: string; password: string };
interface Side {
  name: string;
  url: string;
  stop(): Promise<void>;
}

/** `n` calls, `c` at a time on `c` connections: the statuses, calls/s and latencies. */
async function run(url: string, n: number, c: number) {
  const dispatcher = new Agent({ connections: c, keepAliveTimeout: 10_000 });
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) {
        const body = bodies[next++ % bodies.length]!;
        const t = performance.now();
        const res = await request(url, { method: "POST", body, dispatcher });
        await res.body.text();
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const perSecond = n / ((performance.now() - started) / 1000);
  await dispatcher.close();
  const sorted = latencies.sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.floor(sorted.length * q)] ?? 0;
  return { perSecond, p50: at(0.5), p99: at(0.99), statuses };
}

/** A fresh schema, migrated, and the URL a gateway process is given to work in it. */
async function schemaStore(): Promise<{ db: Database; url: string; schema: string }> {
  const schema = `bench_workers_${randomBytes(4).toString("hex")}`;
  const db = await openDatabase({
    databaseUrl: DATABASE_URL,
    schema,
    pgliteDir: "",
    poolSize: 4,
    migrations: "apply",
  });
  const url = new URL(DATABASE_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return { db, url: url.toString(), schema };
}

async function funded(db: Database, name: string, credits: number) {
  const account = await createAccount(db, name);
  await grantCredits(db, account.id, credits);
  return { id: account.id, token: (await issueToken(db, account.id)).token };
}

/**
 * `node <GATEWAY_NODE_FLAGS> bin/blockgate.js start --workers N` on devnet's Core; resolves once
 * every worker serves.
 */
async function gatewayCluster(workers: number, core: Core, databaseUrl: string, dir: string) {
  const configFile = join(dir, `gateway-${workers}.json`);
  const config = {
    server: { port: 0 },
    networks: ["mainnet"],
    upstreams: { node: { mainnet: [core] }, electrum: {}, graph: {}, esplora: {} },
    cache: { bytesMax: 0 }, // every call goes to Core, as through the proxy
    demo: { enabled: false },
    log: { level: "warn", format: "json" },
  };
  writeFileSync(configFile, JSON.stringify(config));
  const child: ChildProcess = spawn(
    process.execPath,
    // As `npm start` runs it, with the gateway's deployed Node flags (its workers inherit them).
    [...GATEWAY_NODE_FLAGS, "bin/blockgate.js", "start", "--workers", String(workers)],
    {
      env: { ...process.env, BLOCKGATE_CONFIG: configFile, DATABASE_URL: databaseUrl },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /workers? listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`blockgate start exited ${code}:\n${out}`)));
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return {
    url,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

async function proxyCluster(workers: number, core: Core): Promise<Side> {
  const child = await startChild<{ url: string }>("./proxy-cluster-process.ts", [
    String(workers),
    core.url,
    core.user,
    core.password,
  ]);
  return { name: `proxy ×${workers}`, url: child.info.url, stop: () => child.stop() };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Rounds of every side, the order rotating; each side's median calls/s and p50, p99. */
async function measure(sides: Side[]) {
  const figures = new Map(sides.map((s) => [s.name, [] as Awaited<ReturnType<typeof run>>[]]));
  for (const side of sides) await run(side.url, Math.min(CALLS, 1_000), CONCURRENCY); // warm-up
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let i = 0; i < sides.length; i += 1) {
      const side = sides[(i + round) % sides.length]!;
      const result = await run(side.url, CALLS, CONCURRENCY);
      const bad = [...result.statuses.keys()].filter((s) => s !== 200);
      if (bad.length > 0) throw new Error(`${side.name}: HTTP ${bad.join(", ")}`);
      figures.get(side.name)!.push(result);
    }
  }
  const out = new Map<string, { perSecond: number; p50: number; p99: number }>();
  for (const [name, rs] of figures) {
    out.set(name, {
      perSecond: median(rs.map((r) => r.perSecond)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
    });
    const spread = rs.map((r) => r.perSecond.toFixed(0)).join(", ");
    const f = out.get(name)!;
    console.log(
      `${name.padEnd(12)} ${f.perSecond.toFixed(0).padStart(6)} calls/s  p50 ${f.p50.toFixed(2)} ms  p99 ${f.p99.toFixed(2)} ms  (rounds: ${spread})`,
    );
  }
  return out;
}

/** The acceptance check: exactly the affordable calls answered through the one port. */
async function exactCredits(url: string, db: Database) {
  const { id, token } = await funded(db, "exact", PAID * PRICE);
  const result = await run(`${url}/node/mainnet/${token}`, SENT, BURST);
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM audit_records WHERE account_id = $1",
    [id],
  );
  const broken = (await checkLedger(db)).filter((c) => !c.ok).length;
  const statuses = Object.fromEntries(result.statuses);
  console.log(
    `exact credits (--workers 2): ${SENT} sent at ${BURST} concurrency, funded for ${PAID}: statuses ${JSON.stringify(statuses)}, audit rows ${rows[0]?.n}, ledger ${broken === 0 ? "ok" : `${broken} accounts broken`}`,
  );
}

async function main() {
  const devnet = await startChild<{ core: Core }>("./devnet-process.ts");
  const dir = mkdtempSync(join(tmpdir(), "bench-workers-"));
  const store = await schemaStore();
  const { token } = await funded(store.db, "bench", 1_000_000_000_000);
  const sides: Side[] = [];
  try {
    for (const workers of [1, 2]) {
      const g = await gatewayCluster(workers, devnet.info.core, store.url, dir);
      sides.push({
        name: `gateway ×${workers}`,
        url: `${g.url}/node/mainnet/${token}`,
        stop: g.stop,
      });
      sides.push(await proxyCluster(workers, devnet.info.core));
    }
    console.log(`${CALLS} calls at concurrency ${CONCURRENCY}, ${ROUNDS} rounds, medians:`);
    const f = await measure(sides);
    const ratio = (a: string, b: string) => (f.get(a)!.perSecond / f.get(b)!.perSecond).toFixed(2);
    console.log(
      `2 workers ÷ 1: gateway ×${ratio("gateway ×2", "gateway ×1")}, proxy ×${ratio("proxy ×2", "proxy ×1")}`,
    );
    console.log(
      `gateway ÷ proxy: 1 worker ×${ratio("gateway ×1", "proxy ×1")}, 2 workers ×${ratio("gateway ×2", "proxy ×2")}`,
    );
    const two = sides.find((s) => s.name === "gateway ×2")!;
    await exactCredits(two.url.replace(/\/node\/.*$/, ""), store.db);
  } finally {
    for (const side of sides) await side.stop();
    await devnet.stop();
    await store.db.query(`DROP SCHEMA ${store.schema} CASCADE`);
    await store.db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
