// A batch of deliveries is read, marked, settled and recorded a statement per step for all its
// messages: what one message comes to (its token revoked, its endpoint refusing, a charge made by a
// process that died) must not change what the others come to, nor what anyone is charged; a
// message named twice, in a batch or in two at once, is sent and charged once. Both stores.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeToken } from "../../src/access/tokens.ts";
import { auditRecords } from "../support/audit.ts";
import { type StoreKind, startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";
import { newBlockEndpoint } from "../support/webhook-endpoints.ts";

interface Received {
  path: string;
  id: string;
  verified: boolean;
}

describe.each<StoreKind>(["pglite", "postgres"])("webhook batches on %s", (store) => {
  let t: TestGateway;
  let receiver: Server;
  let base = "";
  const received: Received[] = [];
  const secrets = new Map<string, string>();

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => {
        body += c.toString();
      });
      req.on("end", () => {
        const path = req.url ?? "";
        let verified = true;
        try {
          new Webhook(secrets.get(path)!).verify(body, req.headers as Record<string, string>);
        } catch {
          verified = false;
        }
        received.push({ path, id: String(req.headers["webhook-id"]), verified });
        res.writeHead(path.startsWith("/refuse") ? 500 : 204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // No block is announced and no retry comes due while a test looks: the tests attempt.
    t = await startTestGateway(store, {
      networks: ["regtest"],
      events: { pollMs: 600_000 },
      webhooks: { allowTargets: ["127.0.0.1/32"], retryDelayMs: 600_000, pollMs: 60_000 },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  /** An account with an endpoint at `path` and a pending message `id` to it. */
  async function hooked(name: string, path: string, id: string) {
    const made = await newBlockEndpoint(t, `${store}-${name}`, `${base}${path}`);
    secrets.set(path, made.secret);
    await t.gateway.app.db.query(
      "INSERT INTO webhook_messages(id, endpoint_id, event_id, payload) VALUES ($1, $2, $3, '{}')",
      [id, made.endpointId, `event-${id}`],
    );
    return made;
  }

  async function messages(ids: string[]) {
    const { rows } = await t.gateway.app.db.query<{ id: string; status: string; n: number }>(
      `SELECT id, status, attempts AS n FROM webhook_messages WHERE id = ANY($1::text[]) ORDER BY id`,
      [ids],
    );
    return Object.fromEntries(rows.map((r) => [r.id, [r.status, Number(r.n)]]));
  }

  async function charged(accountId: number) {
    const audit = await auditRecords(
      t.gateway.app.db,
      { accountId, backend: "webhook", method: "newBlock" },
      ["charged_cc", "outcome"],
    );
    return audit.map((r) => [r.outcome, Number(r.charged_cc)]);
  }

  it("one batch: a revoked token's message refused and its endpoint ended, a refusing endpoint's retried uncharged, the others delivered and charged once", async () => {
    const s = store[0];
    const a = await hooked("a", `/ok-${s}-a`, `msg_${s}_a`);
    const b = await hooked("b", `/ok-${s}-b`, `msg_${s}_b`);
    const r = await hooked("r", `/ok-${s}-r`, `msg_${s}_r`);
    const f = await hooked("f", `/refuse-${s}-f`, `msg_${s}_f`);
    await revokeToken(t.gateway.app.db, { id: r.tokenId });
    const ids = [a, b, r, f].map((_, i) => `msg_${s}_${"abrf"[i]}`);

    await t.gateway.webhooks.attempt(ids);

    const mine = received.filter((x) => x.path.includes(`-${s}-`));
    expect(mine.map((x) => [x.path, x.id, x.verified]).sort()).toEqual(
      [
        [`/ok-${s}-a`, `msg_${s}_a`, true],
        [`/ok-${s}-b`, `msg_${s}_b`, true],
        [`/refuse-${s}-f`, `msg_${s}_f`, true],
      ].sort(),
    );
    expect(await messages(ids)).toEqual({
      [`msg_${s}_a`]: ["delivered", 1],
      [`msg_${s}_b`]: ["delivered", 1],
      [`msg_${s}_f`]: ["pending", 1],
      [`msg_${s}_r`]: ["failed", 1],
    });
    const db = t.gateway.app.db;
    const { rows: attempts } = await db.query<{ message_id: string; result: string }>(
      `SELECT message_id, result, http_status FROM webhook_attempts
       WHERE message_id = ANY($1::text[]) ORDER BY message_id`,
      [ids],
    );
    expect(attempts).toEqual([
      { message_id: `msg_${s}_a`, result: "delivered", http_status: 204 },
      { message_id: `msg_${s}_b`, result: "delivered", http_status: 204 },
      { message_id: `msg_${s}_f`, result: "retry", http_status: 500 },
      { message_id: `msg_${s}_r`, result: "failed", http_status: null },
    ]);
    const { rows: ended } = await db.query<{ id: string; ended_why: string | null }>(
      "SELECT id, ended_why FROM webhook_endpoints WHERE id = ANY($1::bigint[]) ORDER BY id",
      [[a.endpointId, r.endpointId]],
    );
    expect(ended.map((e) => e.ended_why)).toEqual([null, "its token was revoked or expired"]);
    // The refused message's next attempt is queued, later.
    const { rows: jobs } = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${t.schema ?? "public"}_jobs.job
       WHERE data->>'messageId' = $1 AND start_after > now()`,
      [`msg_${s}_f`],
    );
    expect(jobs).toEqual([{ n: 1 }]);
    // Charged: each delivery once, at the event's price; the refused POST audited uncharged.
    expect(await charged(a.id)).toEqual([["ok", 5]]);
    expect(await charged(b.id)).toEqual([["ok", 5]]);
    expect(await charged(f.id)).toEqual([["upstream_failure", 0]]);
    expect(await charged(r.id)).toEqual([]);
    for (const [acct, spent] of [
      [a, 5],
      [b, 5],
      [f, 0],
      [r, 0],
    ] as const) {
      await expectLedgerOk(db, acct.id, { charged: spent });
    }
    // Every mark the batch opened went with its record.
    const { rows: marks } = await db.query(
      "SELECT key FROM idempotency_keys WHERE key = ANY($1::text[])",
      [ids.map((id) => `webhook:${id}`)],
    );
    expect(marks).toEqual([]);
  });

  it("a message named twice in a batch, or attempted by two batches at once, is sent and charged once; a charge a dead process made is not made again", async () => {
    const s = store[0];
    const once = await hooked("once", `/ok-${s}-once`, `msg_${s}_once`);
    const both = await hooked("both", `/ok-${s}-both`, `msg_${s}_both`);
    const lost = await hooked("lost", `/ok-${s}-lost`, `msg_${s}_lost`);
    const db = t.gateway.app.db;
    // What a process that died after its charge left: the mark its settle set.
    await db.query(
      `INSERT INTO idempotency_keys(account_id, key, request_hash, settled_at)
       VALUES ($1, $2, '\\x00', now())`,
      [lost.id, `webhook:msg_${s}_lost`],
    );

    await Promise.all([
      t.gateway.webhooks.attempt([`msg_${s}_once`, `msg_${s}_once`, `msg_${s}_lost`]),
      t.gateway.webhooks.attempt([`msg_${s}_both`]),
      t.gateway.webhooks.attempt([`msg_${s}_both`]),
    ]);
    await t.gateway.webhooks.attempt([`msg_${s}_once`, `msg_${s}_both`]); // done: nothing more

    const paths = received.map((x) => x.path).filter((p) => /-(once|both|lost)$/.test(p));
    expect(paths.filter((p) => p.includes(`-${s}-`)).sort()).toEqual([
      `/ok-${s}-both`,
      `/ok-${s}-once`,
    ]);
    expect(await messages([`msg_${s}_once`, `msg_${s}_both`, `msg_${s}_lost`])).toEqual({
      [`msg_${s}_both`]: ["delivered", 1],
      [`msg_${s}_lost`]: ["delivered", 1],
      [`msg_${s}_once`]: ["delivered", 1],
    });
    expect(await charged(once.id)).toEqual([["ok", 5]]);
    expect(await charged(both.id)).toEqual([["ok", 5]]);
    expect(await charged(lost.id)).toEqual([]);
    await expectLedgerOk(db, once.id, { charged: 5 });
    await expectLedgerOk(db, both.id, { charged: 5 });
    await expectLedgerOk(db, lost.id, { charged: 0 });
  });
});
