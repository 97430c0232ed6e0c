// How many requests clients keep in flight, by Little's law over the recent ones: what the settle
// queue of an in-process store waits for (src/billing/ledger/settle-queue.ts).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RecentLoad } from "../../src/http/recent-load.ts";
import { blockTxids, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";

/** A load on a clock of the test's own. */
function clocked() {
  let now = 0;
  const load = new RecentLoad(() => now);
  return {
    load,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

/**
 * `clients` clients each sending a request as soon as the last is answered: each request takes
 * `serverMs` at the server and `clientMs` on its way back, for `rounds` rounds.
 */
function closedLoop(
  load: RecentLoad,
  advance: (ms: number) => void,
  clients: number,
  serverMs: number,
  clientMs: number,
  rounds: number,
) {
  for (let r = 0; r < rounds; r++) {
    const ends = Array.from({ length: clients }, () => load.arrival());
    advance(serverMs);
    for (const end of ends) end();
    advance(clientMs);
  }
}

describe("RecentLoad", () => {
  it("knows nothing before a request has ended", () => {
    const { load, advance } = clocked();
    load.arrival();
    advance(1);
    load.arrival();
    expect(load.inFlight()).toBe(0);
  });

  it("finds the clients of a closed loop, less those on their way back", () => {
    for (const clients of [1, 8, 64]) {
      const { load, advance } = clocked();
      closedLoop(load, advance, clients, 2, 0.5, 40);
      // Four fifths of each round at the server: four fifths of the clients in flight there.
      expect(load.inFlight()).toBeGreaterThan(clients * 0.7);
      expect(load.inFlight()).toBeLessThan(clients * 0.9);
    }
  });

  it("counts a stream held open for minutes as an arrival, not as time at the server", () => {
    const { load, advance } = clocked();
    closedLoop(load, advance, 4, 2, 0.5, 40);
    const before = load.inFlight();
    const stream = load.arrival();
    advance(120_000);
    stream();
    closedLoop(load, advance, 4, 2, 0.5, 40);
    expect(load.inFlight()).toBeCloseTo(before, 1);
  });

  it("forgets a load that stopped", () => {
    const { load, advance } = clocked();
    closedLoop(load, advance, 8, 2, 0.5, 40);
    advance(1_000);
    expect(load.inFlight()).toBeLessThan(1);
  });
});

describe("the gateway's load", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway("pglite", { networks: ["mainnet"] });
  });
  afterAll(() => t?.close());

  it("counts the backends' authenticated requests, not probes, scrapes, pages or bad tokens, which never settle", async () => {
    const paths = ["/healthz", "/readyz", "/metrics", "/"];
    await Promise.all(Array.from({ length: 40 }, (_, i) => fetch(`${t.url}${paths[i % 4]}`)));
    const refused = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        post(`${t.url}/node/mainnet/bg_unknown${i}`, rpc("getblockcount", [], i)),
      ),
    );
    expect(refused.map((a) => a.status)).toEqual(Array(40).fill(401));
    expect(t.gateway.app.load.inFlight()).toBe(0);
    const { token } = await t.account("load", 1_000_000);
    const txids = blockTxids();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [txids[i]!], i)),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    // Once a response has closed at the server, which may come a turn after the client has it.
    await vi.waitFor(() => expect(t.gateway.app.load.inFlight()).toBeGreaterThan(0), {
      interval: 5,
      timeout: 5_000,
    });
  });
});
