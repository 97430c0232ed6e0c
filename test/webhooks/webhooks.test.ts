import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { revokeToken } from "../../src/access/tokens.ts";
import { encodeSegwitAddress } from "../../src/bitcoin/address.ts";
import { runDbCommand } from "../../src/cli/commands.ts";
import { auditCount, auditRecords } from "../support/audit.ts";
import { someAddress } from "../support/devnet-core.ts";
import { gql } from "../support/graphql.ts";
import { askDevnetCore, startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";

/**
 * Webhooks end to end on PostgreSQL (pg-boss's queue in the real server): a receiver on
 * 127.0.0.1 (allowed by the operator for this test) that verifies every delivery with the
 * standardwebhooks package, a block mined on devnet, retries after 500s, and the ledger.
 */

interface Received {
  path: string;
  id: string;
  verified: boolean;
  body: { type: string; data: { network: string; kind: string; height: number; hash: string } };
  status: number;
}

let t: TestGateway;
let receiver: Server;
let base = "";
const received: Received[] = [];
const secrets = new Map<string, string>();
/** How many times each path answers 500 before it answers 200 (Infinity: always 500). */
const failFirst: Record<string, number> = {
  "/flaky": 3,
  "/down": Number.POSITIVE_INFINITY,
  "/ok": 0,
  "/until": 1,
};

function verify(path: string, body: string, headers: IncomingHttpHeaders): boolean {
  try {
    new Webhook(secrets.get(path)!).verify(body, headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      const path = req.url ?? "";
      const seen = received.filter((r) => r.path === path).length;
      const status = seen < (failFirst[path] ?? 0) ? 500 : 200;
      received.push({
        path,
        id: String(req.headers["webhook-id"]),
        verified: verify(path, body, req.headers),
        body: JSON.parse(body) as Received["body"],
        status,
      });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  t = await startTestGateway("postgres", {
    networks: ["mainnet", "regtest"],
    events: { pollMs: 60_000 },
    webhooks: {
      allowTargets: ["127.0.0.1/32"],
      retryDelayMs: 5,
      retryWindowMs: 1_500,
      pollMs: 500,
    },
  });
  await t.gateway.app.events.pollNow(); // the first look: tips known, nothing announced
});
afterAll(async () => {
  await t.close();
  await new Promise((resolve) => receiver.close(resolve));
});

const CREATE = `mutation ($url: String!, $event: WebhookEvent!) {
  createWebhook(url: $url, event: $event) { secret endpoint { id network event url } }
}`;

async function create(token: string, url: string, event = "NEW_BLOCK_UNUSED") {
  return gql<{ createWebhook: { secret: string; endpoint: { id: string; network: string } } }>(
    `${t.url}/gateway/regtest/${token}`,
    CREATE,
    { url, event: event === "NEW_BLOCK_UNUSED" ? "newBlock" : event },
  );
}

async function mine(): Promise<string> {
  const text = await askDevnetCore(
    t.devnet,
    "generatetoaddress",
    [1, someAddress("regtest")],
    "regtest",
  );
  await t.gateway.app.events.pollNow();
  return (JSON.parse(text) as { result: string[] }).result[0]!;
}

describe("webhooks: signed, retried, charged once delivered", () => {
  it("a receiver answering 500 three times then 200 gets the block once, verified; the retries are logged; only the delivery is charged", async () => {
    const { id, token } = await t.account("hooked", 1_000);
    for (const path of ["/flaky", "/down"]) {
      const made = await create(token, `${base}${path}`);
      expect(made.body.errors).toBeUndefined();
      expect(made.body.data!.createWebhook.endpoint.network).toBe("regtest");
      expect(made.body.data!.createWebhook.secret).toMatch(/^whsec_/);
      secrets.set(path, made.body.data!.createWebhook.secret);
    }
    const hash = await mine();

    await vi.waitFor(() => expect(received.filter((r) => r.path === "/flaky")).toHaveLength(4), {
      timeout: 15_000,
    });
    const flaky = received.filter((r) => r.path === "/flaky");
    // One message, four attempts: the same webhook-id each time (the receiver drops repeats by
    // it), each signature valid, the block's hash in the body.
    expect(new Set(flaky.map((r) => r.id)).size).toBe(1);
    expect(flaky.every((r) => r.verified)).toBe(true);
    expect(flaky.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    expect(flaky[0]!.body).toMatchObject({
      type: "newBlock",
      data: { network: "regtest", kind: "connected", hash },
    });

    // /down never accepts: retried with doubling delays until webhooks.retryWindowMs has
    // passed, then marked failed.
    const db = t.gateway.app.db;
    await vi.waitFor(
      async () => {
        const { rows } = await db.query<{ status: string }>(
          `SELECT m.status FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id
           WHERE e.url = $1`,
          [`${base}/down`],
        );
        expect(rows.map((r) => r.status)).toEqual(["failed"]);
      },
      { timeout: 15_000, interval: 100 },
    );
    const down = received.filter((r) => r.path === "/down");
    expect(down.length).toBeGreaterThanOrEqual(3);
    expect(new Set(down.map((r) => r.id)).size).toBe(1);

    // Every attempt is in the log the dashboard and the API show, with its status and latency.
    const listed = await gql<{
      account: {
        webhooks: {
          url: string;
          attempts: {
            attempt: number;
            httpStatus: number | null;
            result: string;
            latencyMs: number;
          }[];
        }[];
      };
    }>(
      `${t.url}/gateway/regtest/${token}`,
      "{ account { webhooks { url attempts(limit: 50) { attempt httpStatus result latencyMs } } } }",
    );
    const hooks = listed.body.data!.account.webhooks;
    const flakyLog = hooks.find((h) => h.url.endsWith("/flaky"))!.attempts;
    expect(flakyLog.map((a) => [a.attempt, a.httpStatus, a.result])).toEqual([
      [4, 200, "delivered"],
      [3, 500, "retry"],
      [2, 500, "retry"],
      [1, 500, "retry"],
    ]);
    expect(flakyLog.every((a) => a.latencyMs >= 0)).toBe(true);
    const downLog = hooks.find((h) => h.url.endsWith("/down"))!.attempts;
    expect(downLog[0]!.result).toBe("failed");
    expect(downLog.length).toBe(down.length);

    // Charged: the one accepted delivery, at pricing.events.newBlock (regtest: 5). Every
    // attempt has its audit record; the failed ones are charged nothing.
    const audit = await auditRecords(
      db,
      { accountId: id, backend: "webhook", method: "newBlock" },
      ["method", "charged_cc", "outcome"],
    );
    expect(audit.filter((r) => Number(r.charged_cc) > 0)).toEqual([
      { method: "newBlock", charged_cc: expect.anything(), outcome: "ok" },
    ]);
    expect(audit.reduce((sum, r) => sum + Number(r.charged_cc), 0)).toBe(5);
    expect(audit).toHaveLength(4 + down.length);
    const balance = await gql<{ account: { balance: string | number } }>(
      `${t.url}/gateway/regtest/${token}`,
      "{ account { balance } }",
    );
    expect(Number(balance.body.data!.account.balance)).toBe(995);
    await expectLedgerOk(db, id, { charged: 5 });
  });

  it("refuses a target at 10.0.0.1, ::1 or a loopback address the operator did not allow, before anything is stored", async () => {
    const { id, token } = await t.account("hook-targets", 100);
    for (const url of [
      "http://10.0.0.1/hook",
      "http://127.0.0.2:8080/hook", // the operator allowed 127.0.0.1/32 only
      "http://[::1]/hook",
      "http://[::ffff:10.0.0.1]/hook",
      "http://169.254.169.254/latest/meta-data",
      "ftp://example.com/hook",
      "http://user:pass@127.0.0.1/hook",
    ]) {
      const refused = await create(token, url);
      expect(refused.body.data ?? null, url).toBeNull();
      expect(refused.body.errors?.[0]?.extensions?.code, url).toBe("BAD_USER_INPUT");
    }
    const { rows } = await t.gateway.app.db.query(
      "SELECT 1 FROM webhook_endpoints WHERE account_id = $1",
      [id],
    );
    expect(rows).toHaveLength(0);
  });

  it("a deleted endpoint, and one whose token was revoked, get nothing more; another account cannot delete one", async () => {
    const a = await t.account("hook-owner", 100);
    const b = await t.account("hook-other", 100);
    const r = await t.account("hook-revoked", 100);
    const l = await t.account("hook-live", 100);
    const made = await create(a.token, `${base}/ok?deleted`);
    const hookId = made.body.data!.createWebhook.endpoint.id;
    expect((await create(r.token, `${base}/ok?revoked`)).body.errors).toBeUndefined();
    // Registered last: once it has its message, the dispatch of that block is over for all.
    const live = await create(l.token, `${base}/ok?live`);
    secrets.set("/ok?live", live.body.data!.createWebhook.secret);
    const DELETE = "mutation ($id: ID!) { deleteWebhook(id: $id) }";
    const stranger = await gql(`${t.url}/gateway/regtest/${b.token}`, DELETE, { id: hookId });
    expect(stranger.body.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    const owner = await gql(`${t.url}/gateway/regtest/${a.token}`, DELETE, { id: hookId });
    expect(owner.body.data).toEqual({ deleteWebhook: true });
    await revokeToken(t.gateway.app.db, { id: r.tokenId });

    const hash = await mine();
    await vi.waitFor(
      () =>
        expect(received.filter((x) => x.path === "/ok?live").map((x) => x.body.data.hash)).toEqual([
          hash,
        ]),
      { timeout: 10_000 },
    );
    expect(received.filter((x) => x.path === "/ok?deleted" || x.path === "/ok?revoked")).toEqual(
      [],
    );
    const { rows } = await t.gateway.app.db.query<{ url: string }>(
      `SELECT e.url FROM webhook_messages m JOIN webhook_endpoints e ON e.id = m.endpoint_id
       WHERE e.account_id = ANY($1::bigint[])`,
      [[a.id, r.id, l.id]],
    );
    expect(rows.map((x) => x.url)).toEqual([`${base}/ok?live`]);
    const listed = await gql<{
      account: { webhooks: { endedAt: string | null; endedWhy: string }[] };
    }>(`${t.url}/gateway/regtest/${a.token}`, "{ account { webhooks { endedAt endedWhy } } }");
    expect(listed.body.data!.account.webhooks).toEqual([
      { endedAt: expect.any(String), endedWhy: "deleted" },
    ]);
  });
});

describe("webhooks across a crash", () => {
  it("a message whose charge committed but whose delivery was never recorded (the process died) is recorded delivered, not sent or charged again", async () => {
    const { id, token } = await t.account("hook-crash", 100);
    const made = await create(token, `${base}/ok?lost`);
    const endpointId = Number(made.body.data!.createWebhook.endpoint.id);
    const db = t.gateway.app.db;
    // What the dead process left: the message pending, and the mark its settle set with the charge.
    await db.query(
      "INSERT INTO webhook_messages(id, endpoint_id, event_id, payload) VALUES ('msg_lost', $1, 'event-lost', '{}')",
      [endpointId],
    );
    await db.query(
      `INSERT INTO idempotency_keys(account_id, key, request_hash, settled_at)
       VALUES ($1, 'webhook:msg_lost', '\\x00', now())`,
      [id],
    );
    await t.gateway.webhooks.attempt("msg_lost");
    const { rows: message } = await db.query<{ status: string }>(
      "SELECT status FROM webhook_messages WHERE id = 'msg_lost'",
    );
    expect(message).toEqual([{ status: "delivered" }]);
    expect(received.filter((r) => r.path === "/ok?lost")).toEqual([]);
    expect(await auditCount(db, { accountId: id, backend: "webhook" })).toBe(0);
    // The mark is gone once the attempt is recorded (other endpoints' attempts may hold theirs).
    const { rows: marks } = await db.query(
      "SELECT key FROM idempotency_keys WHERE account_id = $1 AND key = 'webhook:msg_lost'",
      [id],
    );
    expect(marks).toEqual([]);
  });
});

describe("webhooks for an address's activity", () => {
  it("tells the block that paid the address: its transactions, amounts in satoshis", async () => {
    const { token } = await t.account("hook-address", 100);
    const address = encodeSegwitAddress("bcrt", 0, new Uint8Array(20).fill(9));
    const made = await gql<{ createWebhook: { secret: string } }>(
      `${t.url}/gateway/regtest/${token}`,
      `mutation ($url: String!, $address: String!) {
        createWebhook(url: $url, event: addressActivity, address: $address) { secret }
      }`,
      { url: `${base}/ok?address`, address },
    );
    expect(made.body.errors).toBeUndefined();
    secrets.set("/ok?address", made.body.data!.createWebhook.secret);
    const refused = await gql(
      `${t.url}/gateway/regtest/${token}`,
      `mutation { createWebhook(url: "${base}/ok", event: addressActivity, address: "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq") { secret } }`,
    );
    expect(refused.body.errors?.[0]?.message).toMatch(/not a regtest address/);

    const text = await askDevnetCore(t.devnet, "generatetoaddress", [1, address], "regtest");
    const hash = (JSON.parse(text) as { result: string[] }).result[0]!;
    await t.gateway.app.events.pollNow();
    await vi.waitFor(
      () => expect(received.filter((r) => r.path === "/ok?address")).toHaveLength(1),
      {
        timeout: 10_000,
      },
    );
    const got = received.find((r) => r.path === "/ok?address")!;
    expect(got.verified).toBe(true);
    const data = got.body.data as unknown as {
      address: string;
      kind: string;
      hash: string;
      transactions: { txid: string; received: number; sent: number }[];
    };
    expect(data).toMatchObject({ address, kind: "connected", hash });
    expect(data.transactions).toHaveLength(1); // the coinbase
    expect(data.transactions[0]!.received).toBeGreaterThan(0);
    expect(Number.isSafeInteger(data.transactions[0]!.received)).toBe(true);
    expect(data.transactions[0]!.sent).toBe(0);
  });
});

describe("webhooks for a transaction's confirmations", () => {
  it("the message that completes an endpoint is delivered, its retry too; nothing follows it", async () => {
    const { token } = await t.account("hook-until", 100);
    const hash = await mine();
    const block = JSON.parse(await askDevnetCore(t.devnet, "getblock", [hash, 1], "regtest")) as {
      result: { tx: string[] };
    };
    const txid = block.result.tx[0]!;
    const made = await gql<{ createWebhook: { secret: string; endpoint: { id: string } } }>(
      `${t.url}/gateway/regtest/${token}`,
      `mutation ($url: String!, $txid: TxId!) {
        createWebhook(url: $url, event: transactionConfirmations, txid: $txid, until: 2) {
          secret endpoint { id }
        }
      }`,
      { url: `${base}/until`, txid },
    );
    expect(made.body.errors).toBeUndefined();
    secrets.set("/until", made.body.data!.createWebhook.secret);
    const endpointId = made.body.data!.createWebhook.endpoint.id;
    await mine(); // two confirmations: its last message, which ends the endpoint as it is written
    // Refused once (500), then accepted: the retry, read back from the store, finds the endpoint
    // completed and still sends its last message.
    await vi.waitFor(
      () => expect(received.filter((r) => r.path === "/until" && r.status === 200)).toHaveLength(1),
      { timeout: 10_000 },
    );
    const got = received.filter((r) => r.path === "/until");
    expect(got.map((r) => r.status)).toEqual([500, 200]);
    expect(new Set(got.map((r) => r.id)).size).toBe(1);
    expect(got.every((r) => r.verified)).toBe(true);
    expect(got[1]!.body.data).toMatchObject({ txid, confirmations: 2 });
    // Recorded once its answer is in (the POST's receipt comes first).
    await vi.waitFor(async () => {
      const { rows } = await t.gateway.app.db.query<{ ended_why: string; status: string }>(
        `SELECT e.ended_why, m.status FROM webhook_endpoints e
         JOIN webhook_messages m ON m.endpoint_id = e.id WHERE e.id = $1`,
        [endpointId],
      );
      expect(rows).toEqual([{ ended_why: "completed", status: "delivered" }]);
    });
    await mine();
    const { rows: after } = await t.gateway.app.db.query(
      "SELECT id FROM webhook_messages WHERE endpoint_id = $1",
      [endpointId],
    );
    expect(after).toHaveLength(1);
  });
});

describe("webhooks from the CLI (blockgate webhook …)", () => {
  it("adds an endpoint for a token, lists it, shows its attempts, removes it; refuses a private target", async () => {
    const { tokenId } = await t.account("cli-hooked", 100);
    const db = t.gateway.app.db;
    const config = t.gateway.app.config;
    const added = await runDbCommand(
      db,
      [
        "webhook",
        "add",
        String(tokenId),
        `${base}/ok`,
        "--event",
        "mempoolFees",
        "--targets",
        "2,6",
      ],
      config,
    );
    expect(added.code).toBe(0);
    const [, hookId] = /^webhook (\d+): mempoolFees on regtest/.exec(added.text)!;
    expect(added.text).toMatch(/\nwhsec_/);
    const listed = await runDbCommand(db, ["webhook", "list", "cli-hooked"], config);
    expect(listed.text).toMatch(new RegExp(`^${hookId}\\tlive\\tmempoolFees\\tregtest\\t`));
    expect((await runDbCommand(db, ["webhook", "attempts", hookId!], config)).text).toBe(
      "no attempts",
    );
    const refused = await runDbCommand(
      db,
      ["webhook", "add", String(tokenId), "http://10.0.0.1/hook"],
      config,
    );
    expect(refused.code).toBe(2);
    expect(refused.text).toMatch(/not a public address/);
    expect((await runDbCommand(db, ["webhook", "rm", hookId!], config)).code).toBe(0);
    expect((await runDbCommand(db, ["webhook", "rm", hookId!], config)).code).toBe(1);
  });
});
