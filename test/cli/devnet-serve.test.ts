import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { parseLine } from "../../src/cli/commands.ts";
import { openDatabase } from "../../src/db/open.ts";
import type { DevnetEndpoints } from "../../src/devnet/endpoints.ts";
import {
  type DevnetProcess,
  freePortRun,
  spawnDevnet,
  spawnDevnetOnFreePorts,
} from "../support/devnet-serve.ts";
import { POSTGRES_URL, post, rpc } from "../support/harness.ts";
import { fundedAccount } from "../support/ledger.ts";
import { connectOutcome } from "../support/net.ts";
import { blockgate, type SpawnedGateway, spawnGateway, stopProcess } from "../support/spawn.ts";

/** The base examples/devnet.yaml is written for, and the networks it names, in its order. */
const EXAMPLE = "examples/devnet.yaml";
const EXAMPLE_BASE = 18400;
const MAINNET_TIP = 951658;

/** A JSON-RPC call to devnet's Core with basic auth; `password` overrides the right one. */
async function callCore(core: DevnetEndpoints["core"], method: string, params: unknown[] = []) {
  const auth = Buffer.from(`${core.user}:${core.password}`).toString("base64");
  const res = await fetch(core.url, {
    method: "POST",
    headers: { authorization: `Basic ${auth}` },
    body: JSON.stringify(rpc(method, params)),
  });
  return { status: res.status, json: (await res.json()) as { result: unknown } };
}

/** Sends Electrum requests, one a line, on a new connection and reads as many answer lines. */
async function askElectrum(url: string, requests: object[]): Promise<unknown[]> {
  const { hostname, port } = new URL(url.replace(/^tcp:/, "http:"));
  const socket = connect(Number(port), hostname);
  const lines = createInterface({ input: socket });
  const answers: unknown[] = [];
  const done = new Promise<void>((resolve) => {
    lines.on("line", (line) => {
      answers.push(JSON.parse(line));
      if (answers.length === requests.length) resolve();
    });
  });
  for (const r of requests) socket.write(`${JSON.stringify(r)}\n`);
  await done;
  socket.destroy();
  return answers;
}

/** A GraphQL query to devnet's indexer with an admin secret (its own unless told). */
async function askIndexer(indexer: DevnetEndpoints["indexer"], query: string, secret?: string) {
  const res = await fetch(indexer.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-hasura-admin-secret": secret ?? indexer.secret,
    },
    body: JSON.stringify({ query }),
  });
  return (await res.json()) as { data?: unknown; errors?: { message: string }[] };
}

const TIP_QUERY = "{ block(limit: 1, order_by: {height: desc}) { height } }";

/** The port of a URL (http://, tcp://). */
const portOf = (url: string) => Number(/:(\d+)(\/|$)/.exec(url)![1]);

describe("blockgate devnet serve", () => {
  const dir = mkdtempSync(join(tmpdir(), "bg-devnet-serve-"));
  const schema = `ds_${randomBytes(5).toString("hex")}`;
  let devnet: DevnetProcess;
  let base: number;

  beforeAll(async () => {
    ({ devnet, base } = await spawnDevnetOnFreePorts(8, ["--networks", "mainnet,regtest"]));
  }, 60_000);
  afterAll(async () => {
    await devnet?.stop();
    rmSync(dir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  });

  it("prints one JSON line: per network, in the order given, its servers on P, P + 1, …", () => {
    const { mainnet, regtest } = devnet.endpoints;
    expect(Object.keys(devnet.endpoints)).toEqual(["mainnet", "regtest"]);
    expect(mainnet).toEqual({
      core: { url: `http://127.0.0.1:${base}/`, user: "devnet", password: expect.any(String) },
      electrum: { url: `tcp://127.0.0.1:${base + 1}` },
      indexer: { url: `http://127.0.0.1:${base + 2}/v1/graphql`, secret: expect.any(String) },
      esplora: { url: `http://127.0.0.1:${base + 3}/api` },
    });
    expect(regtest).toMatchObject({
      core: { url: `http://127.0.0.1:${base + 4}/` },
      electrum: { url: `tcp://127.0.0.1:${base + 5}` },
      indexer: { url: `http://127.0.0.1:${base + 6}/v1/graphql` },
      esplora: { url: `http://127.0.0.1:${base + 7}/api` },
    });
    expect(mainnet!.core.password).not.toBe(regtest!.core.password);
  });

  it("Core answers getblockcount with basic auth, and 401 without the password", async () => {
    const core = devnet.endpoints.mainnet!.core;
    expect(await callCore(core, "getblockcount")).toEqual({
      status: 200,
      json: { jsonrpc: "2.0", result: MAINNET_TIP, id: 1 },
    });
    const res = await fetch(core.url, { method: "POST", body: JSON.stringify(rpc("uptime", [])) });
    expect(res.status).toBe(401);
  });

  it("Electrum answers server.version on its line-delimited TCP", async () => {
    const [answer] = await askElectrum(devnet.endpoints.mainnet!.electrum.url, [
      { jsonrpc: "2.0", id: 0, method: "server.version", params: ["test", "1.4"] },
    ]);
    expect(answer).toEqual({
      jsonrpc: "2.0",
      result: ["ElectrumX 1.18.0 (blockgate devnet)", "1.4"],
      id: 0,
    });
  });

  it("the indexer answers GraphQL with its secret, and refuses another", async () => {
    const indexer = devnet.endpoints.mainnet!.indexer;
    expect(await askIndexer(indexer, TIP_QUERY)).toEqual({
      data: { block: [{ height: MAINNET_TIP }] },
    });
    const refused = await askIndexer(indexer, TIP_QUERY, "wrong");
    expect(refused.errors?.[0]?.message).toBe("invalid x-hasura-admin-secret/x-hasura-access-key");
  });

  it("Esplora answers its REST API", async () => {
    const res = await fetch(`${devnet.endpoints.mainnet!.esplora.url}/blocks/tip/height`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(String(MAINNET_TIP));
  });

  it("mines through Core's generateblock; Electrum, the indexer and Esplora see the same chain", async () => {
    const { core, electrum, indexer, esplora } = devnet.endpoints.regtest!;
    const before = (await callCore(core, "getblockcount")).json.result as number;
    const mined = await callCore(core, "generateblock", ["raw(51)", []]);
    expect(mined.json.result).toEqual({ hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await callCore(core, "getblockcount")).json.result).toBe(before + 1);
    const [, tip] = await askElectrum(electrum.url, [
      { jsonrpc: "2.0", id: 0, method: "server.version", params: ["test", "1.4"] },
      { jsonrpc: "2.0", id: 1, method: "blockchain.headers.subscribe", params: [] },
    ]);
    expect(tip).toMatchObject({ result: { height: before + 1 } });
    expect(await askIndexer(indexer, TIP_QUERY)).toEqual({
      data: { block: [{ height: before + 1 }] },
    });
    expect(await (await fetch(`${esplora.url}/blocks/tip/height`)).text()).toBe(`${before + 1}`);
  });

  it("a gateway configured as examples/devnet.yaml (at this port base) answers through it", async () => {
    const example = parse(readFileSync(EXAMPLE, "utf8")) as { upstreams: object };
    // The example's ports, moved from its base to this test's: the same documented order.
    const upstreams = JSON.parse(
      JSON.stringify(example.upstreams).replace(
        /127\.0\.0\.1:(\d+)/g,
        (_, port: string) => `127.0.0.1:${Number(port) - EXAMPLE_BASE + base}`,
      ),
    ) as Record<"node" | "electrum" | "graph" | "esplora", Record<string, [{ url: string }]>>;
    for (const network of ["mainnet", "regtest"] as const) {
      const printed = devnet.endpoints[network]!;
      expect(upstreams.node[network]![0].url).toBe(printed.core.url);
      expect(upstreams.electrum[network]![0].url).toBe(printed.electrum.url);
      expect(upstreams.graph[network]![0].url).toBe(printed.indexer.url);
      expect(upstreams.esplora[network]![0].url).toBe(printed.esplora.url);
    }
    const db = await openDatabase({
      databaseUrl: POSTGRES_URL,
      schema,
      pgliteDir: "",
      poolSize: 2,
    });
    const databaseUrl = new URL(POSTGRES_URL);
    databaseUrl.searchParams.set("options", `-c search_path=${schema}`);
    let gateway: SpawnedGateway | undefined;
    try {
      const { token } = await fundedAccount(db, "devnet-serve", 10_000);
      const { mainnet, regtest } = devnet.endpoints;
      gateway = await spawnGateway(
        {
          ...example,
          upstreams,
          server: { port: 0 },
          demo: { enabled: false },
          log: { level: "warn" },
        },
        join(dir, "gateway.json"),
        {
          DATABASE_URL: databaseUrl.toString(),
          DEVNET_MAINNET_CORE_PASSWORD: mainnet!.core.password,
          DEVNET_MAINNET_INDEXER_SECRET: mainnet!.indexer.secret,
          DEVNET_REGTEST_CORE_PASSWORD: regtest!.core.password,
          DEVNET_REGTEST_INDEXER_SECRET: regtest!.indexer.secret,
        },
      );
      const node = await post(`${gateway.url}/node/mainnet/${token}`, rpc("getblockcount", []));
      expect(node.json).toEqual({ jsonrpc: "2.0", result: MAINNET_TIP, id: 1 });
      const graph = await post(`${gateway.url}/graph/mainnet/${token}`, { query: TIP_QUERY });
      expect(graph.json).toMatchObject({ data: { block: [{ height: MAINNET_TIP }] } });
      const esplora = await fetch(`${gateway.url}/esplora/mainnet/${token}/api/blocks/tip/height`);
      expect(await esplora.text()).toBe(String(MAINNET_TIP));
    } finally {
      if (gateway) await stopProcess(gateway.child);
      await db.close();
    }
  }, 60_000);

  it("--lie N:JSON: a lying Core and Electrum server in front of N's, named in the JSON line; without --port-base, any free ports, all closed on SIGTERM, exit 0", async () => {
    const lying = await spawnDevnet([
      "--networks",
      "regtest",
      "--lie",
      'regtest:{"invalidHeaders":{"kind":"bits"}}',
    ]);
    const line = lying.endpoints as typeof lying.endpoints & {
      liars: { regtest: { core: DevnetEndpoints["core"]; electrum: { url: string } } };
    };
    const { core, electrum, indexer, esplora } = line.regtest!;
    const liars = [line.liars.regtest.core.url, line.liars.regtest.electrum.url];
    const ports = [core.url, electrum.url, indexer.url, esplora.url, ...liars].map(portOf);
    expect(new Set(ports).size).toBe(6);
    expect((await callCore(core, "getblockcount")).json.result).toBe(0);
    const honest = (await callCore(line.regtest!.core, "getbestblockhash")).json.result as string;
    const liar = line.liars.regtest.core;
    const told = (await callCore(liar, "getbestblockhash")).json.result as string;
    expect(told).not.toBe(honest);
    const header = (await callCore(liar, "getblockheader", [told, false])).json.result as string;
    // nBits, little-endian at bytes 72..75: regtest's 0x207fffff with its low bit flipped.
    expect(header.slice(144, 152)).toBe("feff7f20");
    expect(line.liars.regtest.electrum.url).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    expect(await lying.stop()).toEqual({ code: 0, signal: null });
    for (const port of ports) expect(await connectOutcome(port)).toBe("ECONNREFUSED");
    const wrong = await blockgate(
      ["devnet", "serve", "--networks", "regtest", "--lie", 'regtest:{"fib":1}'],
      {},
    );
    expect(wrong.code).toBe(2);
    expect(wrong.stderr.split("\n")[0]).toBe(
      'blockgate devnet serve: --lie: "fib" is not a lie (tamperTx, wrongBlock, shorterBy, invalidHeaders, stall)',
    );
  }, 60_000);

  it("its own mistakes: one line naming it, its usage, exit 2, nothing started", async () => {
    const usage = "usage: blockgate devnet serve [--networks L] [--port-base P] [--lie N:JSON]";
    // Found as the line is parsed, as for every command.
    const parsedMistakes = [
      ["--networks", "mainnet,moon"],
      ["--networks", "regtest,regtest"],
      ["--port-base", "70000"],
    ].map((args) => {
      const parsed = parseLine(["devnet", "serve", ...args]);
      if (!("out" in parsed)) throw new Error(`${args.join(" ")} parsed as a command to run`);
      expect(parsed.out.code).toBe(2);
      expect(parsed.out.text.split("\n")[1]).toBe(usage);
      return parsed.out.text.split("\n")[0];
    });
    expect(parsedMistakes).toEqual([
      'blockgate devnet serve: --networks: networks separated by commas, each one of mainnet, testnet, testnet4, signet, regtest (got "mainnet,moon")',
      'blockgate devnet serve: --networks: each network once (got "regtest,regtest")',
      'blockgate devnet serve: --port-base: a whole number from 1 to 65535 (got "70000")',
    ]);
    // Found once the networks are known: the whole command, as a user runs it.
    const ran = await blockgate(
      ["devnet", "serve", "--networks", "mainnet,regtest", "--port-base", "65529"],
      {},
    );
    expect(ran.code).toBe(2);
    expect(ran.stdout).toBe("");
    expect(ran.stderr.split("\n").slice(0, 2)).toEqual([
      "blockgate devnet serve: --port-base: 2 networks need ports 65529 to 65536, past 65535",
      usage,
    ]);
  }, 60_000);

  it("a port already taken: says which, exit 1, nothing printed on stdout", async () => {
    const port = await freePortRun(4);
    const taken = createServer();
    taken.listen(port, "127.0.0.1");
    await once(taken, "listening");
    try {
      const ran = await blockgate(
        ["devnet", "serve", "--networks", "regtest", "--port-base", String(port)],
        {},
      );
      expect(ran).toEqual({
        code: 1,
        stdout: "",
        stderr: `devnet serve: regtest's Core cannot listen: port ${port} is in use\n`,
      });
    } finally {
      taken.close();
    }
  }, 60_000);
});
