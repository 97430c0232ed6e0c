// The dispatching process attempts a block's first batch of messages itself, without pg-boss's
// fetch: while it does, one job naming them all waits, held back as long as a fetched job would
// run before expiring, and goes once they are recorded; should the process die first, that job
// runs and attempts them all. Both stores.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { someAddress } from "../support/devnet-core.ts";
import {
  askDevnetCore,
  POSTGRES_URL,
  type StoreKind,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";
import { newBlockEndpoint } from "../support/webhook-endpoints.ts";

describe.each<StoreKind>(["pglite", "postgres"])("webhook batches handed over on %s", (store) => {
  let t: TestGateway;
  let receiver: Server;
  let base = "";
  const received: string[] = [];
  /** Answers held back until released (paths under /hold). */
  const held: ServerResponse[] = [];

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received.push(req.url ?? "");
        if (req.url?.startsWith("/hold")) held.push(res);
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    t = await startTestGateway(store, {
      networks: ["regtest"],
      events: { pollMs: 600_000 },
      webhooks: { allowTargets: ["127.0.0.1/32"], pollMs: 500 },
    });
    await t.gateway.app.events.pollNow(); // the first look: tips known, nothing announced
  }, 60_000);
  afterAll(async () => {
    for (const res of held.splice(0)) res.writeHead(204).end();
    await t?.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  const jobs = () => `${t.schema ?? "public"}_jobs.job`;

  const endpoint = (name: string, path: string) =>
    newBlockEndpoint(t, `${store}-${name}`, `${base}${path}`);

  async function statuses(endpointIds: number[]) {
    const { rows } = await t.gateway.app.db.query<{ id: string; status: string }>(
      "SELECT id, status FROM webhook_messages WHERE endpoint_id = ANY($1::int8[]) ORDER BY id",
      [endpointIds],
    );
    return rows;
  }

  it("a block's messages are sent at once under one held job, which goes once they are recorded", async () => {
    const hooks = await Promise.all(["a", "b", "c"].map((n) => endpoint(n, `/hold-${n}`)));
    const ids = hooks.map((h) => h.endpointId);
    await askDevnetCore(t.devnet, "generatetoaddress", [1, someAddress("regtest")], "regtest");
    await t.gateway.app.events.pollNow();
    await vi.waitFor(() => expect(held).toHaveLength(3), { timeout: 10_000 });

    // Every POST under way: their one job waits, not to be fetched before it would have expired.
    const messages = (await statuses(ids)).map((m) => m.id);
    expect(messages).toHaveLength(3);
    const { rows: waiting } = await t.gateway.app.db.query<{
      ids: string[];
      state: string;
      held: boolean;
    }>(
      `SELECT ARRAY(SELECT jsonb_array_elements_text(data->'messageIds') ORDER BY 1) AS ids, state,
         start_after > now() + interval '14 minutes' AS held
       FROM ${jobs()} WHERE data->'messageIds' ?| $1::text[]`,
      [messages],
    );
    expect(waiting).toEqual([{ ids: messages, state: "created", held: true }]);
    const { rows: each } = await t.gateway.app.db.query(
      `SELECT id FROM ${jobs()} WHERE data->>'messageId' = ANY($1::text[])`,
      [messages],
    );
    expect(each).toEqual([]);
    // Their charge marks are open, for this process, and not settled yet.
    const marks = async () =>
      (
        await t.gateway.app.db.query<{ key: string; open: boolean; process_id: string }>(
          `SELECT key, settled_at IS NULL AS open, process_id FROM idempotency_keys
           WHERE key = ANY($1::text[]) ORDER BY key`,
          [messages.map((m) => `webhook:${m}`)],
        )
      ).rows;
    const processId = t.gateway.app.credits.opts.processId;
    expect(await marks()).toEqual(
      messages.map((m) => ({ key: `webhook:${m}`, open: true, process_id: processId })),
    );

    for (const res of held.splice(0)) res.writeHead(204).end();
    await vi.waitFor(
      async () =>
        expect((await statuses(ids)).map((m) => m.status)).toEqual([
          "delivered",
          "delivered",
          "delivered",
        ]),
      { timeout: 10_000 },
    );
    await vi.waitFor(async () => {
      const { rows } = await t.gateway.app.db.query(
        `SELECT id FROM ${jobs()} WHERE data->'messageIds' ?| $1::text[]`,
        [messages],
      );
      expect(rows).toEqual([]);
    });
    // Each mark went with its message's record.
    expect(await marks()).toEqual([]);
    for (const h of hooks) await expectLedgerOk(t.gateway.app.db, h.id, { charged: 5 });
  });

  it("a held job that runs (its process died before recording) attempts every message it names, once", async () => {
    const hooks = await Promise.all(["d", "e"].map((n) => endpoint(n, `/ok-${store}-${n}`)));
    const messages = hooks.map((h) => `msg_${store}_lost_${h.endpointId}`);
    for (const [i, h] of hooks.entries()) {
      await t.gateway.app.db.query(
        "INSERT INTO webhook_messages(id, endpoint_id, event_id, payload) VALUES ($1, $2, $3, '{}')",
        [messages[i], h.endpointId, `event-${messages[i]}`],
      );
    }
    // As the dispatcher wrote it, its hold now over.
    await t.gateway.app.db.query(`INSERT INTO ${jobs()} (name, data) VALUES ($1, $2)`, [
      "webhook-delivery",
      JSON.stringify({ messageIds: messages }),
    ]);
    await vi.waitFor(
      async () =>
        expect((await statuses(hooks.map((h) => h.endpointId))).map((m) => m.status)).toEqual([
          "delivered",
          "delivered",
        ]),
      { timeout: 10_000 },
    );
    expect(received.filter((p) => p.startsWith(`/ok-${store}-`)).sort()).toEqual(
      hooks.map((_, i) => `/ok-${store}-${"de"[i]}`),
    );
    for (const h of hooks) await expectLedgerOk(t.gateway.app.db, h.id, { charged: 5 });
  });
});

describe("a batch handed over when the gateway stops", () => {
  it("is waited for: the stop ends once its delivery is answered and recorded", async () => {
    const answers: ServerResponse[] = [];
    const receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => answers.push(res));
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/slow`;
    const t = await startTestGateway("postgres", {
      networks: ["regtest"],
      events: { pollMs: 600_000 },
      webhooks: { allowTargets: ["127.0.0.1/32"], pollMs: 60_000 },
    });
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    try {
      await t.gateway.app.events.pollNow();
      const { endpointId } = await newBlockEndpoint(t, "stopping", url);
      await askDevnetCore(t.devnet, "generatetoaddress", [1, someAddress("regtest")], "regtest");
      await t.gateway.app.events.pollNow();
      await vi.waitFor(() => expect(answers).toHaveLength(1), { timeout: 10_000 });
      const order: string[] = [];
      const stopped = t.gateway.close().then(() => order.push("stopped"));
      await new Promise((resolve) => setTimeout(resolve, 300));
      order.push("answered");
      answers[0]!.writeHead(204).end();
      await stopped;
      expect(order).toEqual(["answered", "stopped"]);
      // Recorded before the store closed: the batch's settle and record were waited for too.
      await client.connect();
      const { rows } = await client.query(
        `SELECT status, attempts FROM ${t.schema}.webhook_messages WHERE endpoint_id = $1`,
        [endpointId],
      );
      expect(rows).toEqual([{ status: "delivered", attempts: 1 }]);
    } finally {
      for (const res of answers) if (!res.writableEnded) res.writeHead(204).end();
      await client.end();
      await t.close();
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
