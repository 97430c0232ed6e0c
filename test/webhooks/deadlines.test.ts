// A delivery's POST has `webhooks.timeoutMs` for all of it, however its endpoint spends that time:
// an endpoint that accepts at once (2xx) and then trickles its body, never idle long enough for
// the connection's own timeouts, is cut off at the limit rather than read for ever; its 2xx made
// it a delivery, charged once. The limits share one timer (deadlines.ts): those ended first never
// fire.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveOwner } from "../../src/access/tokens.ts";
import { Deadlines } from "../../src/webhooks/deadlines.ts";
import { registerEndpoint } from "../../src/webhooks/register.ts";
import { auditRecords } from "../support/audit.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";

const TIMEOUT_MS = 1_000;

describe("a delivery's time limit", () => {
  let t: TestGateway;
  let receiver: Server;
  let base = "";
  const trickling = new Set<ServerResponse>();

  beforeAll(async () => {
    // Headers at once, then a byte of body every 50 ms, never ending.
    receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(200, { "content-type": "text/plain" });
        res.flushHeaders(); // the status at once: the delivery was accepted
        trickling.add(res);
        const drip = setInterval(() => res.write("."), 50);
        res.on("close", () => {
          clearInterval(drip);
          trickling.delete(res);
        });
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    t = await startTestGateway("pglite", {
      networks: ["regtest"],
      events: { pollMs: 600_000 },
      webhooks: {
        allowTargets: ["127.0.0.1/32"],
        timeoutMs: TIMEOUT_MS,
        retryDelayMs: 600_000,
        pollMs: 60_000,
      },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    for (const res of trickling) res.destroy();
    await new Promise((resolve) => receiver.close(resolve));
  });

  it("cuts off an endpoint that accepted and then trickles its answer, at the limit", async () => {
    const account = await t.account("trickle", 100);
    const { db, config, webhookTargets } = t.gateway.app;
    const owner = (await liveOwner(db, account.tokenId))!;
    const made = await registerEndpoint(db, config, webhookTargets, owner, {
      url: `${base}/trickle`,
      network: "regtest",
      event: "newBlock",
      args: {},
    });
    await db.query(
      "INSERT INTO webhook_messages(id, endpoint_id, event_id, payload) VALUES ($1, $2, $3, '{}')",
      ["msg_trickle", made.endpoint.id, "event-trickle"],
    );

    await t.gateway.webhooks.attempt("msg_trickle");

    const { rows } = await db.query<{ result: string; error: string; latency_ms: number }>(
      "SELECT result, error, latency_ms FROM webhook_attempts WHERE message_id = 'msg_trickle'",
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.result).toBe("delivered");
    // Cut at the limit: without it the drain would wait for 64 KiB at a byte every 50 ms.
    expect(Number(rows[0]?.latency_ms)).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(Number(rows[0]?.latency_ms)).toBeLessThan(TIMEOUT_MS + 20_000);
    const audit = await auditRecords(
      db,
      { accountId: account.id, backend: "webhook", method: "newBlock" },
      ["charged_cc"],
    );
    expect(audit).toHaveLength(1);
    expect(Number(audit[0]?.charged_cc)).toBeGreaterThan(0);
    await expectLedgerOk(db, account.id);
  });
});

describe("Deadlines", () => {
  it("aborts what is still open at its limit, as AbortSignal.timeout does, and nothing ended", async () => {
    const deadlines = new Deadlines(60);
    const first = deadlines.start();
    const second = deadlines.start();
    first.done();
    const third = deadlines.start();
    second.done();
    second.done(); // twice: no harm
    const aborted = new Promise<unknown>((resolve) =>
      third.signal.addEventListener("abort", () => resolve(third.signal.reason)),
    );
    const reason = await aborted;
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe("TimeoutError");
    // Their limits came before the third's: had they been open, they would have been aborted first.
    expect([first.signal.aborted, second.signal.aborted]).toEqual([false, false]);
    third.done();
  });

  it("keeps the limits of later starts after the earlier ones ended", async () => {
    const deadlines = new Deadlines(40);
    const early = deadlines.start();
    early.done(); // the timer is cleared with nothing open
    const late = deadlines.start();
    await new Promise<void>((resolve) => late.signal.addEventListener("abort", () => resolve()));
    expect(early.signal.aborted).toBe(false);
    expect(late.signal.aborted).toBe(true);
  });
});
