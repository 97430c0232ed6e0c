import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { NETWORKS, nameOf, readyz } from "../support/health.ts";

/** /healthz (liveness) and /readyz (readiness) when all is well. Draining: test/http/drain.test.ts. */
describe("health: happy", () => {
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
    // Pings only: a connection (re)made under load adds its own server.version.
    t.devnet.electrum.get("signet")!.stats.methods["server.ping"] ?? 0,
    t.devnet.esplora.get("signet")!.stats.requests,
  ];

  it("an upstream with no fresh evidence is probed once; a node that just answered a call is not", async () => {
    const { token } = await t.account("reader", 10_000);
    const call = await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
    expect(call.status).toBe(200);
    const mainnet = t.devnet.cores.get("mainnet")!;
    const before = [mainnet.stats.httpRequests, ...signetSeen()];
    const { body } = await readyz(t);
    expect(body.upstreams?.node.mainnet?.status).toBe("healthy");
    // getblockcount to signet's node, { __typename } to its indexer, server.ping to its ElectrumX,
    // and a probe to its Esplora server.
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
        esplora: {
          mainnet: pool(d.esplora.get("mainnet")!.url),
          signet: pool(d.esplora.get("signet")!.url),
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

  it("/healthz asks nothing: no upstream and no probe hears of it, however often it is asked", async () => {
    const seen = () => [
      t.devnet.cores.get("mainnet")!.stats.httpRequests,
      t.devnet.indexers.get("mainnet")!.stats.httpRequests,
      t.devnet.electrum.get("mainnet")!.stats.requests,
      ...signetSeen(),
    ];
    const before = seen();
    const answers = await Promise.all(Array.from({ length: 10 }, () => fetch(`${t.url}/healthz`)));
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(await res.json()).toEqual({ status: "ok" });
    }
    expect(seen()).toEqual(before);
  });
});
