import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { grantCredits } from "../../src/billing/ledger/ledger.ts";
import { auditRecords } from "../support/audit.ts";
import {
  HAL_TXID,
  rpc,
  type StoreKind,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";

/** Idempotency-Key on the node route (src/billing/metering/idempotency.ts), on both stores. */
async function call(url: string, body: unknown, key?: string) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { "idempotency-key": key } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe.each<StoreKind>(["pglite", "postgres"])("Idempotency-Key (%s)", (store) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(store);
  });
  afterAll(() => t.close());

  const balance = async (id: number) => (await balanceOf(t.gateway.app.db, id)).balance;

  async function outcomes(id: number): Promise<string[]> {
    const rows = await auditRecords(t.gateway.app.db, { accountId: id }, ["outcome"]);
    return rows.map((r) => r.outcome);
  }

  it("a retry with the same key and body gets the same answer and is not charged again", async () => {
    const { id, token } = await t.account("retrier", 10_000);
    const url = `${t.url}/node/mainnet/${token}`;
    const body = rpc("getrawtransaction", [HAL_TXID], 7);
    const first = await call(url, body, "order-1");
    expect(first.status).toBe(200);
    expect(first.headers.get("x-credits-charged")).toBe("200");
    const again = await call(url, body, "order-1");
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.headers.get("x-credits-charged")).toBe("0");
    expect(await balance(id)).toBe(10_000 - 200);
    expect(await outcomes(id)).toEqual(["ok", "replayed"]);
    // Another key is another request.
    expect((await call(url, body, "order-2")).headers.get("x-credits-charged")).toBe("200");
    expect(await balance(id)).toBe(10_000 - 400);
  });

  it("the same key with a different body is refused, in the route's protocol", async () => {
    const { id, token } = await t.account("reuser", 10_000);
    const url = `${t.url}/node/mainnet/${token}`;
    expect((await call(url, rpc("getrawtransaction", [HAL_TXID], 1), "k")).status).toBe(200);
    const other = await call(url, rpc("getrawtransaction", [HAL_TXID, true], 1), "k");
    expect(other.status).toBe(422);
    expect(JSON.parse(other.text)).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32012, message: expect.stringMatching(/different request/) },
    });
    const bad = await call(url, rpc("getrawtransaction", [HAL_TXID], 1), "has space");
    expect(bad.status).toBe(400);
    expect(await balance(id)).toBe(10_000 - 200);
  });

  it("while the first is being answered, a retry gets 409 and nothing runs twice", async () => {
    const { id, token } = await t.account("impatient", 10_000);
    const url = `${t.url}/node/mainnet/${token}`;
    const core = t.devnet.cores.get("mainnet")!;
    const body = rpc("getrawtransaction", [HAL_TXID], 1);
    const before = core.stats.httpRequests;
    const release = core.hold();
    const first = call(url, body, "slow");
    await vi.waitFor(() => expect(core.stats.httpRequests).toBe(before + 1), { interval: 10 });
    const second = await call(url, body, "slow");
    release();
    expect(second.status).toBe(409);
    expect(JSON.parse(second.text)).toMatchObject({ error: { code: -32011 } });
    expect((await first).status).toBe(200);
    expect(core.stats.httpRequests).toBe(before + 1);
    expect(await balance(id)).toBe(10_000 - 200);
  });

  it("a request that charged nothing (429) leaves no key behind: the retry runs afresh", async () => {
    const { id, token } = await t.account("topped", 100);
    const url = `${t.url}/node/mainnet/${token}`;
    const body = rpc("getrawtransaction", [HAL_TXID], 1);
    expect((await call(url, body, "later")).status).toBe(429);
    await grantCredits(t.gateway.app.db, id, 1_000);
    const retry = await call(url, body, "later");
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(await balance(id)).toBe(1_100 - 200);
  });
});
