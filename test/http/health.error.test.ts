import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { deadPort, NETWORKS, nameOf, readyz } from "../support/health.ts";

/**
 * /readyz when something fails: an upstream member, a whole pool, the database, every node of a
 * network; /healthz stays 200 through all of it. The 503 `draining` answer is in
 * test/http/drain.test.ts, with the rest of the drain.
 */
describe("health: error", () => {
  let t: TestGateway;
  let dead: number;
  beforeAll(async () => {
    dead = await deadPort();
    t = await startTestGateway("pglite", {
      networks: NETWORKS,
      upstreams: {
        node: { mainnet: ["devnet", { url: `http://127.0.0.1:${dead}` }], signet: ["devnet"] },
      },
      // Dead members refuse at once; the bound is for live ones on a loaded machine.
      readiness: { timeoutMs: 2_000, cacheMs: 100 },
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
          // timeoutMs is 2 s; the answer never waits much past it.
          expect(Date.now() - started).toBeLessThan(5_000);
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
