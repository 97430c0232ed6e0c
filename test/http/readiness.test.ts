import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startGateway } from "../../src/app/app.ts";
import type { ReadyReport } from "../../src/app/readiness.ts";
import { parseConfig } from "../../src/config/load.ts";
import type { ConfigInput } from "../../src/config/schema.ts";
import {
  HAL_TXID,
  pgliteSnapshotFor,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";

const NETWORKS: ConfigInput["networks"] = ["mainnet", "signet"];

async function readyz(
  t: TestGateway,
): Promise<{ status: number; body: ReadyReport; headers: Headers }> {
  const res = await fetch(`${t.url}/readyz`);
  return { status: res.status, body: (await res.json()) as ReadyReport, headers: res.headers };
}

/** `host:port` as pools name their members. */
const nameOf = (url: string) => {
  const u = new URL(url);
  return `${u.hostname}:${u.port}`;
};

/** A loopback port nothing listens on: connections to it are refused. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("readiness: happy", () => {
  let t: TestGateway;
  beforeAll(async () => {
    // A long cache, so that every probe the test sees is one /readyz could not avoid.
    t = await startTestGateway("pglite", {
      networks: NETWORKS,
      readiness: { timeoutMs: 5_000, cacheMs: 60_000 },
    });
  });
  afterAll(() => t.close());
  /** Requests signet's upstreams have received. */
  const signetSeen = () => [
    t.devnet.cores.get("signet")!.stats.httpRequests,
    t.devnet.indexers.get("signet")!.stats.httpRequests,
    t.devnet.electrum.get("signet")!.stats.requests,
  ];

  it("an upstream with no fresh evidence is probed once; a node that just answered a call is not", async () => {
    const { token } = await t.account("reader", 10_000);
    const call = await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
    expect(call.status).toBe(200);
    const mainnet = t.devnet.cores.get("mainnet")!;
    const before = [mainnet.stats.httpRequests, ...signetSeen()];
    const { body } = await readyz(t);
    expect(body.upstreams?.node.mainnet?.status).toBe("healthy");
    // getblockcount to signet's node, { __typename } to its indexer, server.ping to its ElectrumX.
    expect([mainnet.stats.httpRequests, ...signetSeen()]).toEqual([
      before[0],
      ...before.slice(1).map((n) => n! + 1),
    ]);
    expect(t.devnet.electrum.get("signet")!.stats.methods["server.ping"]).toBe(1);
  });

  it("/healthz is 200 ok; /readyz is 200 ready with each pool's members by name", async () => {
    const health = await fetch(`${t.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });

    const { status, body, headers } = await readyz(t);
    expect(status).toBe(200);
    expect(headers.get("cache-control")).toBe("no-store");
    const pool = (url: string) => ({
      status: "healthy",
      members: [{ name: nameOf(url), status: "up" }],
    });
    const d = t.devnet;
    expect(body).toEqual({
      status: "ready",
      database: { status: "up" },
      upstreams: {
        node: {
          mainnet: pool(d.cores.get("mainnet")!.url),
          signet: pool(d.cores.get("signet")!.url),
        },
        electrum: {
          mainnet: pool(d.electrum.get("mainnet")!.url),
          signet: pool(d.electrum.get("signet")!.url),
        },
        graph: {
          mainnet: pool(d.indexers.get("mainnet")!.url),
          signet: pool(d.indexers.get("signet")!.url),
        },
      },
    });
  });

  it("asking often probes each upstream at most once per cache period", async () => {
    const before = signetSeen();
    await Promise.all(Array.from({ length: 20 }, () => readyz(t)));
    for (let i = 0; i < 10; i++) expect((await readyz(t)).status).toBe(200);
    // The first test's /readyz probed signet once; nothing since: the answers are cached.
    expect(signetSeen()).toEqual(before);
  });
});

describe("readiness: error", () => {
  let t: TestGateway;
  let dead: number;
  beforeAll(async () => {
    dead = await deadPort();
    t = await startTestGateway("pglite", {
      networks: NETWORKS,
      upstreams: {
        node: { mainnet: ["devnet", { url: `http://127.0.0.1:${dead}` }], signet: ["devnet"] },
      },
      readiness: { timeoutMs: 500, cacheMs: 100 },
    });
  });
  afterAll(() => t.close());

  it("one of two nodes refusing connections: that pool is degraded, the gateway serves (200)", async () => {
    const { status, body } = await readyz(t);
    expect(status).toBe(200);
    expect(body.status).toBe("degraded");
    expect(body.upstreams?.node.mainnet).toEqual({
      status: "degraded",
      members: [
        { name: nameOf(t.devnet.cores.get("mainnet")!.url), status: "up" },
        { name: `127.0.0.1:${dead}`, status: "down" },
      ],
    });
    expect(body.upstreams?.node.signet?.status).toBe("healthy");
  });

  it("a network's Electrum server gone: that pool is down, the gateway still serves (degraded)", async () => {
    const server = t.devnet.electrum.get("signet")!;
    await server.stop();
    await vi.waitFor(
      async () => expect((await readyz(t)).body.upstreams?.electrum.signet?.status).toBe("down"),
      { timeout: 10_000, interval: 100 },
    );
    const { status, body } = await readyz(t);
    expect(status).toBe(200);
    expect(body.status).toBe("degraded");
    // Back on its port: the pool reconnects and the next probe sees it.
    await server.restart();
    await vi.waitFor(
      async () => expect((await readyz(t)).body.upstreams?.electrum.signet?.status).toBe("healthy"),
      { timeout: 15_000, interval: 100 },
    );
  });

  it("a slow database: /readyz answers down (503) within its bound, /healthz stays 200", async () => {
    // PGlite is one connection: a transaction left open makes every other query wait, as a
    // database that stopped answering would.
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let begun!: () => void;
    const inside = new Promise<void>((resolve) => {
      begun = resolve;
    });
    const tx = t.gateway.app.db.transaction(async (q) => {
      await q.query("SELECT 1");
      begun();
      await held;
    });
    await inside;
    try {
      const health = await fetch(`${t.url}/healthz`);
      expect(health.status).toBe(200);
      await vi.waitFor(
        async () => {
          const started = Date.now();
          const { status, body } = await readyz(t);
          expect(status).toBe(503);
          expect(body.status).toBe("down");
          expect(body.database).toEqual({ status: "down" });
          // timeoutMs is 500; the answer never waits much past it.
          expect(Date.now() - started).toBeLessThan(3_000);
        },
        { timeout: 10_000, interval: 100 },
      );
    } finally {
      release();
      await tx;
    }
    await vi.waitFor(
      async () => expect((await readyz(t)).body.database).toEqual({ status: "up" }),
      {
        timeout: 10_000,
        interval: 100,
      },
    );
  });

  it("a network with no node answering: down (503)", async () => {
    await t.devnet.cores.get("signet")!.close();
    await vi.waitFor(
      async () => {
        const { status, body } = await readyz(t);
        expect(status).toBe(503);
        expect(body.status).toBe("down");
        expect(body.upstreams?.node.signet?.status).toBe("down");
      },
      { timeout: 10_000, interval: 100 },
    );
  });
});

describe("readiness: security", () => {
  let t: TestGateway;
  const password = "pw-in-the-url-4af1";
  const path = "wallet/secret-path-9c2e";
  beforeAll(async () => {
    t = await startTestGateway("pglite", { networks: ["regtest"] });
  });
  afterAll(() => t.close());

  it("members are host:port only: no user, password, path or secret of the configured URLs", async () => {
    // A second gateway on the same devnet, its node configured with credentials and a path in
    // the URL (devnet's Core answers any path), and the indexer's admin secret from config.
    const core = t.devnet.cores.get("regtest")!;
    const base = new URL(core.url);
    const url = `http://${core.user}:${core.password}@${base.host}/${path}?key=${password}`;
    const config = parseConfig({
      server: { port: 0 },
      networks: ["regtest"],
      database: { pgliteDir: "memory://" },
      demo: { enabled: false },
      log: { level: "silent" },
    });
    const indexer = t.devnet.indexers.get("regtest")!;
    const gw = await startGateway(config, {
      ...pgliteSnapshotFor("memory://"),
      nodeUpstreams: { regtest: [{ url, timeoutMs: 5_000, connections: 2 }] },
      graphUpstreams: {
        regtest: [
          { url: indexer.url, adminSecret: indexer.secret, timeoutMs: 5_000, connections: 2 },
        ],
      },
      noAdminFile: true,
    });
    try {
      const res = await fetch(`${gw.url}/readyz`);
      const text = await res.text();
      expect(res.status).toBe(200);
      const body = JSON.parse(text) as ReadyReport;
      expect(body.upstreams?.node.regtest).toEqual({
        status: "healthy",
        members: [{ name: base.host, status: "up" }],
      });
      for (const secret of [core.password, password, "secret-path", indexer.secret, "http", "@"]) {
        expect(text).not.toContain(secret);
      }
    } finally {
      await gw.close();
    }
  });

  it("only GET: other methods are not an answer (404)", async () => {
    const res = await fetch(`${t.url}/readyz`, { method: "POST" });
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("upstreams");
  });
});
