import { Agent, request } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { HAL_TXID, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { connectOutcome } from "../support/net.ts";

/** One HTTP request through `agent`, with the socket it went out on. */
function send(
  agent: Agent,
  url: string,
  method: string,
  body?: unknown,
): Promise<{ status: number; headers: Record<string, unknown>; text: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, method, headers: { "content-type": "application/json" } });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, socket: req.socket! }),
      );
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe("drain (in process)", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway("pglite", {
      networks: ["mainnet"],
      server: { port: 0, drainTimeoutMs: 20_000 },
      readiness: { timeoutMs: 10_000, cacheMs: 100 },
    });
  });
  afterAll(() => t.close());

  it("closes idle keep-alive connections at once, answers calls in flight (connection: close), /readyz says draining, refuses new connections", async () => {
    const { token } = await t.account("drained", 10_000);
    const port = Number(new URL(t.url).port);
    const idleAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const busyAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const readyAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // A kept-alive connection that then sits idle.
      const first = await send(idleAgent, `${t.url}/healthz`, "GET");
      expect(first.status).toBe(200);
      const idleClosed = new Promise<void>((resolve) => first.socket.once("close", resolve));

      // Slow the node down, and put a call and a /readyz (whose node probe the node holds too)
      // in flight, each on a kept-alive connection.
      const core = t.devnet.cores.get("mainnet")!;
      const seen = core.stats.httpRequests;
      const release = core.hold();
      const call = send(
        busyAgent,
        `${t.url}/node/mainnet/${token}`,
        "POST",
        rpc("getrawtransaction", [HAL_TXID]),
      );
      const ready = send(readyAgent, `${t.url}/readyz`, "GET");
      await vi.waitFor(() => expect(core.stats.httpRequests).toBe(seen + 2), { timeout: 10_000 });

      const closing = t.gateway.close();
      // Logged once the listening socket is closed.
      await vi.waitFor(() => expect(t.logs.join("")).toMatch(/"inFlight":2,.*"msg":"draining"/));
      expect(await connectOutcome(port)).toBe("ECONNREFUSED");
      await idleClosed; // closed by the server while the calls are still held
      expect(t.gateway.http.inFlight()).toBe(2);

      release();
      const answered = await call;
      expect(answered.status).toBe(200);
      expect(answered.headers.connection).toBe("close");
      expect((JSON.parse(answered.text) as { result: string }).result).toMatch(/^01000000/);
      const readiness = await ready;
      expect(readiness.status).toBe(503);
      expect(readiness.headers.connection).toBe("close");
      expect(JSON.parse(readiness.text)).toEqual({ status: "draining" });
      await closing;
      expect(t.logs.join("")).toMatch(/"cut":0,"msg":"drained"/);
    } finally {
      for (const agent of [idleAgent, busyAgent, readyAgent]) agent.destroy();
    }
  });
});
