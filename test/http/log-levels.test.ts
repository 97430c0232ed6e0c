import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  blockTxids,
  HAL_TXID,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";

/**
 * What the gateway logs at warn and error is what an operator must act on. A client that goes
 * away mid-request, and calls cut by a drain that timed out, are neither: the first is a debug
 * line, the second one warn line for all of them — never an error with a stack per call.
 */
interface Line {
  level: number;
  msg: string;
  [key: string]: unknown;
}
const lines = (t: TestGateway): Line[] => t.logs.map((l) => JSON.parse(l) as Line);
const atLeast = (t: TestGateway, level: number) => lines(t).filter((l) => l.level >= level);
const WARN = 40;
const ERROR = 50;

/** Sends the headers and part of a body, then closes the connection. */
function abortMidBody(url: string, body: string): Promise<void> {
  const target = new URL(url);
  return new Promise((resolve) => {
    const req = request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "POST",
      headers: { "content-type": "application/json", "content-length": body.length * 2 },
    });
    req.on("error", () => resolve());
    req.on("close", () => resolve());
    req.write(body, () => req.destroy());
  });
}

describe("a client that closes its connection mid-request", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway("pglite", { log: { level: "debug" } });
  });
  afterAll(() => t.close());

  it("is a debug line on every route, without a stack; the next request is answered", async () => {
    const { token } = await t.account("leaver", 100_000);
    const unanswered = () => lines(t).filter((l) => l.msg === "request ended unanswered");
    const bodies = [
      [`/node/mainnet/${token}`, JSON.stringify(rpc("getrawtransaction", [HAL_TXID]))],
      [`/gateway/mainnet/${token}`, JSON.stringify({ query: "{ __typename }" })],
      [`/graph/mainnet/${token}`, JSON.stringify({ query: "{ block(limit: 1) { height } }" })],
    ] as const;
    for (const [path, body] of bodies) await abortMidBody(`${t.url}${path}`, body);
    await vi.waitFor(() => expect(unanswered()).toHaveLength(bodies.length), {
      timeout: 20_000,
      interval: 20,
    });
    expect(unanswered()[0]).toMatchObject({ level: 20, why: "aborted" });
    expect(JSON.stringify(unanswered())).not.toContain("stack");
    expect(atLeast(t, WARN)).toEqual([]);
    const next = await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
    expect(next.status).toBe(200);
  });
});

describe("calls cut by a drain that timed out", () => {
  it("end without touching the closed store: one warn line with their count, no error", async () => {
    const t = await startTestGateway("postgres", {
      server: { port: 0, drainTimeoutMs: 200 },
      cache: { bytesMax: 0 },
      // The chain follower's look at the held node is cut too.
      events: { pollMs: 50 },
    });
    const core = t.devnet.cores.get("mainnet")!;
    const { token } = await t.account("cut", 1_000_000);
    // Counted before the hold: the follower's next look, held, counts beside the six calls.
    const before = core.stats.callsRead;
    const release = core.hold();
    try {
      const txids = blockTxids();
      const sent = [
        ...Array.from({ length: 5 }, (_, i) =>
          post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [txids[i]!], i)),
        ),
        post(`${t.url}/gateway/mainnet/${token}`, {
          query: `{ transaction(txid: "${txids[7]}") { txid } }`,
        }),
      ].map((p) => p.catch((err: Error) => err.message));
      await vi.waitFor(() => expect(core.stats.callsRead).toBeGreaterThanOrEqual(before + 7), {
        timeout: 20_000,
        interval: 20,
      });
      await t.gateway.close();
      expect(await Promise.all(sent)).toEqual(Array(6).fill("fetch failed"));
      // Every call's own work has ended (its settle refused) before the lines are read.
      await vi.waitFor(() => expect(t.gateway.http.inFlight()).toBe(0), {
        timeout: 20_000,
        interval: 20,
      });
      expect(atLeast(t, ERROR)).toEqual([]);
      expect(t.logs.join("")).not.toContain("Cannot use a pool");
      // The drain refuses a cut call's charge; a settle that still comes after the store was
      // given up (an audit-only record, the follower's) is counted on one line, when there is any.
      const warned = atLeast(t, WARN).map((l) => l.msg);
      expect(warned[0]).toBe(
        "drain timed out: calls cut, their holds are left to the hold sweeper",
      );
      expect(warned.slice(1)).toEqual(
        warned.length > 1 ? ["cut calls ended unsettled, not charged"] : [],
      );
      const unsettled = lines(t).find((l) => l.msg === "cut calls ended unsettled, not charged");
      if (unsettled) expect(unsettled).toMatchObject({ settles: expect.any(Number) });
    } finally {
      release();
      await t.close();
    }
  });
});
