import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runDbCommand } from "../../src/cli/commands.ts";
import { parseConfig } from "../../src/config/load.ts";
import { mineBlock } from "../support/devnet-core.ts";
import { HAL_TXID, rpc } from "../support/harness.ts";
import { expectSpentExactly, fundedAccount } from "../support/ledger.ts";
import { operatorCredential } from "../support/operator.ts";
import { blockgate, gatewayProcesses, type SchemaStore, startProcess } from "../support/spawn.ts";

/**
 * `blockgate start --workers 2` as operators run it: a primary and two worker processes on one
 * port and one PostgreSQL. Exactly the affordable calls pass across both workers, each call has
 * its audit record, chain events are told once, a killed worker is replaced, SIGTERM ends all.
 */
const PRICE = 200; // getrawtransaction on mainnet
const PAID = 60;
const CALLS = 200;
const CONCURRENCY = 100;

const processes = gatewayProcesses("w");
const operator = operatorCredential();
const deliveries: string[] = [];
let receiver: Server;
let hookUrl = "";
const started: ChildProcess[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      deliveries.push((JSON.parse(body) as { data: { hash: string } }).data.hash);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/blocks`;
});
afterAll(async () => {
  for (const child of started) if (child.exitCode === null) child.kill("SIGKILL");
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

const SETTINGS = {
  webhooks: { allowTargets: ["127.0.0.1/32"], pollMs: 500 },
  events: { pollMs: 100, leaderRetryMs: 100 },
};

/** The config of a cluster on devnet's mainnet Core and Electrum (no devnet in the gateway). */
function clusterConfig(): object {
  const core = processes.devnet.cores.get("mainnet")!;
  return {
    ...SETTINGS,
    server: { port: 0 },
    networks: ["mainnet"],
    upstreams: {
      node: { mainnet: [{ url: core.url, user: core.user, password: core.password }] },
      electrum: { mainnet: [{ url: processes.devnet.electrum.get("mainnet")!.url }] },
      graph: {},
      esplora: {},
    },
    operator: { tokenSha256: [operator.sha256] },
    cache: { bytesMax: 0 }, // every call goes to the node
    ledger: { instance: "cluster" },
    demo: { enabled: false },
    log: { level: "info", format: "json" },
  };
}

/** `blockgate start --workers 2` on the schema; resolves once both workers serve. */
async function startCluster(s: SchemaStore) {
  const configFile = join(processes.dir, `${s.schema}.json`);
  writeFileSync(configFile, JSON.stringify(clusterConfig()));
  const { child, output } = await startProcess(
    process.execPath,
    ["bin/blockgate.js", "start", "--workers", "2"],
    { BLOCKGATE_CONFIG: configFile, DATABASE_URL: s.databaseUrl },
    /2 workers listening on http:\/\/\S+ \(primary pid \d+; worker pids \d+, \d+\)/,
  );
  started.push(child);
  const line = output().match(
    /listening on (http:\/\/\S+) \(primary pid \d+; worker pids (\d+), (\d+)\)/,
  )!;
  return { child, output, url: line[1]!, pids: [Number(line[2]), Number(line[3])] };
}

/** `count` calls, `concurrency` at a time on as many connections; their statuses. */
async function calls(url: string, token: string, count: number, concurrency: number) {
  const agent = new Agent({ connections: concurrency });
  const statuses: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const id = next++;
        const res = await request(`${url}/node/mainnet/${token}`, {
          method: "POST",
          body: JSON.stringify(rpc("getrawtransaction", [HAL_TXID], id)),
          dispatcher: agent,
        });
        await res.body.text();
        statuses.push(res.statusCode);
      }
    }),
  );
  await agent.close();
  return statuses;
}

/** Requests answered per worker, from the one /metrics the cluster serves. */
async function requestsPerWorker(url: string): Promise<Record<string, number>> {
  const res = await fetch(`${url}/metrics`, { headers: operator.headers });
  expect(res.status).toBe(200);
  const text = await res.text();
  const per: Record<string, number> = {};
  for (const m of text.matchAll(/^blockgate_http_requests_total\{([^}]*)\} (\d+)/gm)) {
    const worker = /worker="(\d+)"/.exec(m[1]!)?.[1] ?? "none";
    per[worker] = (per[worker] ?? 0) + Number(m[2]);
  }
  return per;
}

const mine = () => mineBlock(processes.devnet);

/** The pids of the workers that served in `slot`, in the order the primary said so. */
function servingPids(output: string, slot: number): number[] {
  const lines = output.matchAll(/"worker":(\d+),"pid":(\d+),"msg":"worker serving"/g);
  return [...lines].filter((m) => Number(m[1]) === slot).map((m) => Number(m[2]));
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The ledger's live processes: one per worker, named for its slot. */
async function liveInstances(s: SchemaStore): Promise<string[]> {
  const { rows } = await s.db.query<{ instance: string }>(
    "SELECT instance FROM gateway_processes WHERE stopped_at IS NULL ORDER BY instance",
  );
  return rows.map((r) => r.instance);
}

describe("blockgate start --workers 2 on PostgreSQL", { timeout: 90_000 }, () => {
  it("serves on one port from two workers: exact credits, every call audited, blocks told once, a killed worker replaced, SIGTERM drains all", async () => {
    const s = await processes.store();
    const { id, token } = await fundedAccount(s.db, "cluster", PAID * PRICE);
    const watcher = await fundedAccount(s.db, "watcher", 1_000_000);
    const config = parseConfig({ ...SETTINGS, networks: ["mainnet"] });
    const added = await runDbCommand(
      s.db,
      ["webhook", "add", String(watcher.tokenId), hookUrl, "--network", "mainnet"],
      config,
    );
    expect(added.code).toBe(0);
    const cluster = await startCluster(s);
    expect(new Set(cluster.pids).size).toBe(2);
    expect(cluster.pids).not.toContain(cluster.child.pid);
    expect(await liveInstances(s)).toEqual(["cluster/worker-0", "cluster/worker-1"]);

    // Funded for PAID calls: exactly PAID of CALLS pass, through whichever worker took each.
    const statuses = await calls(cluster.url, token, CALLS, CONCURRENCY);
    expect(statuses.filter((x) => x === 200)).toHaveLength(PAID);
    expect(statuses.filter((x) => x === 429)).toHaveLength(CALLS - PAID);
    await expectSpentExactly(s.db, id, { paid: PAID, refused: CALLS - PAID, price: PRICE });
    // Both workers answered some: one /metrics shows each worker's series, to operators only.
    const anonymous = await fetch(`${cluster.url}/metrics`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain("blockgate_http_requests_total");
    const per = await requestsPerWorker(cluster.url);
    expect(Object.keys(per).sort()).toEqual(["0", "1"]);
    expect(per["0"]! + per["1"]!).toBeGreaterThanOrEqual(CALLS);
    expect(Math.min(per["0"]!, per["1"]!)).toBeGreaterThan(0);

    // A block is told to the webhook once, whichever worker leads the chain events.
    const hash = await mine();
    await vi.waitFor(() => expect(deliveries).toContain(hash), { timeout: 20_000, interval: 100 });

    // A worker killed outright is replaced in its slot; the replacement serves.
    process.kill(cluster.pids[1]!, "SIGKILL");
    await vi.waitFor(() => expect(servingPids(cluster.output(), 1)).toHaveLength(2), {
      timeout: 30_000,
      interval: 100,
    });
    expect(servingPids(cluster.output(), 1)[0]).toBe(cluster.pids[1]);
    expect(await liveInstances(s)).toEqual(["cluster/worker-0", "cluster/worker-1"]);
    const after = await calls(cluster.url, watcher.token, 20, 10);
    expect(after.every((x) => x === 200)).toBe(true);
    expect(deliveries.filter((d) => d === hash)).toHaveLength(1);

    // SIGTERM: every worker drains and the primary exits 0.
    const exited = once(cluster.child, "exit");
    cluster.child.kill("SIGTERM");
    const [code] = await exited;
    expect(code).toBe(0);
    expect(cluster.output()).toMatch(/"msg":"primary stopped"/);
    for (const pid of [...servingPids(cluster.output(), 0), ...servingPids(cluster.output(), 1)]) {
      expect(alive(pid)).toBe(false);
    }
    expect(await liveInstances(s)).toEqual([]);
    await s.db.close();
  });

  it("refuses more than one worker on PGlite, and with devnet in the gateway: exit 2, saying why", async () => {
    const pglite = await blockgate(["start", "--workers", "2"], {
      DATABASE_URL: "",
      BLOCKGATE_CONFIG: "",
    });
    expect(pglite.code).toBe(2);
    expect(pglite.stderr).toContain("--workers 2 needs PostgreSQL: set DATABASE_URL");
    const devnet = await blockgate(["start", "--workers", "3"], {
      DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test",
      BLOCKGATE_CONFIG: "",
    });
    expect(devnet.code).toBe(2);
    expect(devnet.stderr).toContain("--workers 3 needs upstreams outside the gateway");
  });
});
