// Verified answers against unverified ones, side by side in one run, on devnet's regtest (the
// network devnet serves whole, so its header chain can be verified): two gateways on the same
// devnet Core and Electrum server, one with `verification.enabled` (block claims proven and
// confirmations counted from the verified chain) and one without (bytes still checked: that is
// never off). Measured: getrawtransaction verbose on the node route, and a transaction by txid
// through the unified API, each over the coinbases of the blocks devnet mines first; every call
// reaches Core (the response cache off). First one cold pass (every proof asked), then `rounds`
// warm runs (proofs kept), the order rotating; medians of calls/s and p50, and the ratio of
// verified to unverified. Devnet and both gateways run in this process, on PGlite.
// Loopback only; bounded by count. Usage:
//   [GATEWAY_NODE_FLAGS=…] npx tsx bench/verified.ts [calls] [concurrency] [rounds] [blocks]
// The gateway runs in this process, which runs itself again with GATEWAY_NODE_FLAGS (default:
// the gateway's deployed flags, decision 0071; "" for Node's own).
import { Agent, request } from "undici";
import { issueToken } from "../src/access/tokens.ts";
import { type RunningGateway, startGateway } from "../src/app/app.ts";
import { resolveElectrumUpstreams, resolveNodeUpstreams } from "../src/app/upstreams.ts";
import { createAccount } from "../src/billing/ledger/accounts.ts";
import { grantCredits } from "../src/billing/ledger/ledger.ts";
import { parseConfig } from "../src/config/load.ts";
import { type Devnet, startDevnet } from "../src/devnet/devnet.ts";
import { underGatewayFlags } from "./child.ts";

await underGatewayFlags();

const CALLS = Number(process.argv[2] ?? 3000);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const ROUNDS = Number(process.argv[4] ?? 3);
const BLOCKS = Number(process.argv[5] ?? 300);

interface Figures {
  perSecond: number;
  p50: number;
}

async function run(url: string, bodies: string[], n: number, c: number): Promise<Figures> {
  const dispatcher = new Agent({ connections: c, keepAliveTimeout: 10_000 });
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: c }, async () => {
      while (next < n) {
        const body = bodies[next++ % bodies.length]!;
        const t = performance.now();
        const res = await request(url, {
          method: "POST",
          body,
          headers: { "content-type": "application/json" },
          dispatcher,
        });
        const text = await res.body.text();
        if (res.statusCode !== 200 || text.includes('"errors"') || text.includes('"error":{')) {
          throw new Error(`HTTP ${res.statusCode} from ${url}: ${text.slice(0, 200)}`);
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await dispatcher.close();
  latencies.sort((a, b) => a - b);
  return { perSecond: n / seconds, p50: latencies[Math.floor(latencies.length / 2)] ?? 0 };
}

async function gatewayOn(devnet: Devnet, verified: boolean) {
  const config = parseConfig({
    server: { port: 0 },
    database: { pgliteDir: "memory://" },
    demo: { enabled: false },
    log: { level: "silent" },
    networks: ["regtest"],
    cache: { bytesMax: 0, blockBytesMax: 0 },
    events: { pollMs: 0 },
    verification: { enabled: verified, pollMs: 60_000 },
    upstreams: { node: { regtest: ["devnet"] }, electrum: { regtest: ["devnet"] } },
  });
  const gateway: RunningGateway = await startGateway(config, {
    nodeUpstreams: resolveNodeUpstreams(config, devnet, process.env, {
      connections: CONCURRENCY * 2,
    }),
    electrumUpstreams: resolveElectrumUpstreams(config, devnet),
    noAdminFile: true,
  });
  await gateway.app.verifiedChains.get("regtest")?.synced(30_000);
  const account = await createAccount(gateway.app.db, "bench");
  await grantCredits(gateway.app.db, account.id, 1_000_000_000_000);
  const { token } = await issueToken(gateway.app.db, account.id);
  return { gateway, token };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const devnet = await startDevnet(["regtest"]);
devnet.producers.get("regtest")!.mine(BLOCKS);
const core = devnet.cores.get("regtest")!;
const auth = `Basic ${Buffer.from(`${core.user}:${core.password}`).toString("base64")}`;
async function coreCall(method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(core.url, {
    method: "POST",
    headers: { authorization: auth },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}
const txids: string[] = [];
for (let h = 1; h <= BLOCKS; h++) {
  const hash = (await coreCall("getblockhash", [h])) as string;
  txids.push(((await coreCall("getblock", [hash, 1])) as { tx: string[] }).tx[0]!);
}
const nodeBodies = txids.map((txid, i) =>
  JSON.stringify({ jsonrpc: "2.0", id: i, method: "getrawtransaction", params: [txid, 1] }),
);
const query = "query ($t: TxId!) { transaction(txid: $t) { txid confirmations blockhash } }";
const gqlBodies = txids.map((t) => JSON.stringify({ query, variables: { t } }));

const sides = [
  { label: "unverified", ...(await gatewayOn(devnet, false)) },
  { label: "verified", ...(await gatewayOn(devnet, true)) },
];
const routes = [
  { name: "node route, getrawtransaction verbose", path: "node", bodies: nodeBodies },
  { name: "unified API, transaction by txid", path: "gateway", bodies: gqlBodies },
];
const urlOf = (side: (typeof sides)[number], path: string) =>
  `${side.gateway.url}/${path}/regtest/${side.token}`;
// Each side answers as it is meant to: the verified one's answers proven on the chain.
for (const [side, expected] of [
  [sides[0]!, "partial"],
  [sides[1]!, "chain"],
] as const) {
  const res = await fetch(urlOf(side, "node"), { method: "POST", body: nodeBodies[0] });
  const verified = res.headers.get("x-blockgate-verified");
  await res.text();
  if (verified !== expected) throw new Error(`${side.label}: X-Blockgate-Verified ${verified}`);
}

console.log(
  `regtest, ${BLOCKS} confirmed transactions; ${CALLS} calls, ${CONCURRENCY} in flight, ${ROUNDS} rounds (medians)`,
);
for (const route of routes) {
  // Cold: each transaction asked once, every proof fetched on the verified side.
  const cold = new Map<string, Figures>();
  for (const side of sides) {
    cold.set(
      side.label,
      await run(urlOf(side, route.path), route.bodies, txids.length, CONCURRENCY),
    );
  }
  const warm = new Map<string, Figures[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(k + round) % sides.length]!;
      const r = await run(urlOf(side, route.path), route.bodies, CALLS, CONCURRENCY);
      warm.set(side.label, [...(warm.get(side.label) ?? []), r]);
    }
  }
  const base = warm.get("unverified") ?? [];
  const baseRate = median(base.map((r) => r.perSecond));
  const baseP50 = median(base.map((r) => r.p50));
  const coldBase = cold.get("unverified")!;
  for (const side of sides) {
    const rs = warm.get(side.label) ?? [];
    const rate = median(rs.map((r) => r.perSecond));
    const p50 = median(rs.map((r) => r.p50));
    const c = cold.get(side.label)!;
    console.log(
      `${route.name.padEnd(40)} ${side.label.padEnd(10)} warm ${rate.toFixed(0).padStart(6)} calls/s p50 ${p50.toFixed(2)} ms (×${(rate / baseRate).toFixed(2)} calls/s, ×${(p50 / baseP50).toFixed(2)} p50)  cold ${c.perSecond.toFixed(0)} calls/s p50 ${c.p50.toFixed(2)} ms (×${(c.perSecond / coldBase.perSecond).toFixed(2)})`,
    );
  }
}
for (const side of sides) await side.gateway.close();
await devnet.close();
