import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";

/** A raw connection to the gateway, with everything it has received and a promise of its close. */
async function open(port: number) {
  const socket = connect(port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  let received = "";
  socket.on("data", (chunk: Buffer) => {
    received += chunk.toString("utf8");
  });
  socket.on("error", () => {}); // a reset after the server's answer is the server's business
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, received: () => received, closed };
}

/** GET /healthz on an open connection, kept alive; resolves with the answer's status line. */
function healthz(socket: Socket, received: () => string): Promise<string> {
  const from = received().length;
  socket.write("GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n");
  return vi.waitFor(
    () => {
      const text = received().slice(from);
      expect(text).toContain('{"status":"ok"}');
      return text.split("\r\n")[0]!;
    },
    { timeout: 10_000, interval: 5 },
  );
}

describe("connections per client address", () => {
  let t: TestGateway;
  let port: number;
  beforeAll(async () => {
    t = await startTestGateway("pglite", { server: { port: 0, connectionsPerAddressMax: 3 } });
    port = Number(new URL(t.url).port);
  });
  afterAll(() => t.close());

  it("the connection past server.connectionsPerAddressMax gets 429 RATE_LIMITED and is closed; the others are served, and a closed one frees its place", async () => {
    const held = [await open(port), await open(port), await open(port)];
    const extra = await open(port);
    await extra.closed;
    const [head, body] = extra.received().split("\r\n\r\n");
    expect(head!.split("\r\n")[0]).toBe("HTTP/1.1 429 Too Many Requests");
    expect(head).toContain("retry-after: 1");
    expect(JSON.parse(body!)).toMatchObject({ error: { code: "RATE_LIMITED" } });

    // The connections within the limit work, and keep working.
    for (const c of held) expect(await healthz(c.socket, c.received)).toBe("HTTP/1.1 200 OK");

    held[0]!.socket.destroy();
    await held[0]!.closed;
    // The server sees the close a moment after the client: the next connection is served once it
    // has (each refused try is answered and closed at once, so this settles quickly).
    await vi.waitFor(
      async () => {
        const next = await open(port);
        try {
          expect(await Promise.race([healthz(next.socket, next.received), next.closed])).toBe(
            "HTTP/1.1 200 OK",
          );
        } finally {
          next.socket.destroy();
        }
      },
      { timeout: 10_000, interval: 20 },
    );
    for (const c of held) c.socket.destroy();
    const metrics = await t.gateway.app.metrics.registry.getSingleMetricAsString(
      "blockgate_connections_refused_total",
    );
    expect(metrics).toMatch(/blockgate_connections_refused_total [1-9]/);
  });
});

describe("slow clients", () => {
  let t: TestGateway;
  let port: number;
  beforeAll(async () => {
    t = await startTestGateway("pglite", {
      server: { port: 0, headersTimeoutMs: 400, requestTimeoutMs: 800, keepAliveTimeoutMs: 300 },
    });
    port = Number(new URL(t.url).port);
  });
  afterAll(() => t.close());

  it("headers that trickle in are cut with 408 near server.headersTimeoutMs, not 30 s later", async () => {
    const c = await open(port);
    const started = performance.now();
    c.socket.write("POST /node/mainnet/x HTTP/1.1\r\nHost: gateway\r\n");
    await c.closed;
    const took = performance.now() - started;
    expect(c.received().startsWith("HTTP/1.1 408")).toBe(true);
    // node checks its connections every quarter of the bound: well before the old 30 s.
    expect(took).toBeGreaterThanOrEqual(400);
    expect(took).toBeLessThan(10_000);
  });

  it("a body that never finishes is cut at server.requestTimeoutMs, nothing charged", async () => {
    const { token } = await t.account("slowpoke", 1_000);
    const c = await open(port);
    c.socket.write(
      `POST /node/mainnet/${token} HTTP/1.1\r\nHost: gateway\r\ncontent-length: 100\r\n\r\n{"jsonrpc"`,
    );
    await c.closed;
    expect(c.received().startsWith("HTTP/1.1 408")).toBe(true);
    expect(await balanceOf(t.gateway.app.db, "slowpoke")).toMatchObject({
      balance: 1_000,
      held: 0,
    });
  });

  it("an idle keep-alive connection is closed after server.keepAliveTimeoutMs", async () => {
    const c = await open(port);
    expect(await healthz(c.socket, c.received)).toBe("HTTP/1.1 200 OK");
    await c.closed; // closed by the server: the test's timeout bounds it
  });
});
