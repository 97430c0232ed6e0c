import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditOf } from "../support/audit.ts";
import { HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf, expectLedgerOk } from "../support/ledger.ts";

const UNKNOWN_TXID = `${"00".repeat(31)}01`;

let t: TestGateway;
let token: string;
let account: number;
beforeAll(async () => {
  t = await startTestGateway("pglite", { networks: ["mainnet"] });
  ({ token, id: account } = await t.account("esplora-errors", 100_000));
});
afterAll(() => t.close());

async function call(path: string, init: RequestInit = {}, auth = `${token}/`) {
  const res = await fetch(`${t.url}/esplora/mainnet/${auth}api${path}`, init);
  const audit = await auditOf(t.gateway.app.db, res.headers.get("x-request-id"), [
    "method",
    "outcome",
    "error_code",
    "upstream_code",
    "http_status",
    "charged_cc",
  ]);
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    text: await res.text(),
    charged: res.headers.get("x-credits-charged"),
    audit,
  };
}

const forwarded = () => t.devnet.esplora.get("mainnet")!.stats.requests;

describe("Esplora's own answers and refusals", () => {
  it("passes on 404 Transaction not found for an unknown transaction, charged as an answer", async () => {
    const out = await call(`/tx/${UNKNOWN_TXID}`);
    expect(out).toMatchObject({ status: 404, text: "Transaction not found", charged: "200" });
    expect(out.type).toBe("text/plain");
    expect(out.audit).toEqual([
      {
        method: "esplora.tx",
        outcome: "upstream_error",
        error_code: "UPSTREAM_ERROR",
        upstream_code: "404",
        http_status: 404,
        charged_cc: 200,
      },
    ]);
  });

  it("refuses what Esplora would refuse before forwarding it, in its words, uncharged", async () => {
    const before = forwarded();
    const cases: [string, number, string][] = [
      ["/tx/zz", 400, "Invalid hex string"],
      [`/tx/${HAL_TXID}/outspend/x`, 400, "Invalid number"],
      ["/block-height/-1", 400, "Invalid number"],
      ["/address/not-an-address", 400, "Invalid Bitcoin address"],
      ["/address/tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx", 400, "Address on invalid network"],
      ["/scripthash/abcd", 400, "Invalid scripthash"],
      ["/nope", 404, 'endpoint does not exist "/nope"'],
    ];
    for (const [path, status, text] of cases) {
      const out = await call(path);
      expect({ path, status: out.status, text: out.text }).toEqual({ path, status, text });
      expect(out.charged).toBe("0");
      expect(out.audit).toMatchObject([
        { outcome: "rejected", upstream_code: String(status), http_status: status, charged_cc: 0 },
      ]);
    }
    expect(forwarded()).toBe(before);
  });

  it("passes on a refused broadcast's 400 with the node's error, charged", async () => {
    const out = await call("/tx", { method: "POST", body: "00" });
    expect(out.status).toBe(400);
    expect(out.text).toBe(
      'sendrawtransaction RPC error: {"code":-22,"message":"TX decode failed. Make sure the tx has at least one input."}',
    );
    expect(out.charged).toBe("400");
  });
});

describe("the gateway's own refusals, in plain text", () => {
  it("401 without a token, 405 for another verb, nothing forwarded or charged", async () => {
    const before = forwarded();
    const none = await call("/blocks/tip/height", {}, "");
    expect(none.status).toBe(401);
    expect(none.type).toMatch(/^text\/plain/);
    expect(none.text).toMatch(/^UNAUTHENTICATED: /);
    const wrong = await call("/blocks/tip/height", {}, "bgt_nottoken/");
    expect(wrong.status).toBe(401);
    const put = await call("/tx", { method: "PUT", body: "00" });
    expect(put.status).toBe(405);
    expect(put.text).toMatch(/^METHOD_NOT_ALLOWED: /);
    expect(forwarded()).toBe(before);
  });

  it("takes the token in a header on /esplora/<network>/api/…", async () => {
    const res = await fetch(`${t.url}/esplora/mainnet/api/blocks/tip/height`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("951658");
  });

  it("429 in plain text when the balance is short, nothing forwarded", async () => {
    const poor = await t.account("esplora-poor", 40);
    const before = forwarded();
    const out = await call(`/tx/${HAL_TXID}/status`, {}, `${poor.token}/`);
    expect(out.status).toBe(200);
    const short = await call(`/tx/${HAL_TXID}`, {}, `${poor.token}/`);
    expect(short.status).toBe(429);
    expect(short.text).toMatch(/^INSUFFICIENT_CREDITS: /);
    expect(forwarded()).toBe(before + 1);
    expect((await balanceOf(t.gateway.app.db, poor.id)).available).toBe(0);
  });

  it("a path under /esplora without /api names the route to call", async () => {
    const res = await fetch(`${t.url}/esplora/mainnet/${token}/tx/${HAL_TXID}`);
    expect(res.status).toBe(404);
    expect(await res.text()).toBe(
      "ROUTE_NOT_FOUND: no such route: call /esplora/mainnet/<token>/api/<endpoint>",
    );
  });

  it("keeps the ledger whole", async () => {
    await expectLedgerOk(t.gateway.app.db, account);
  });
});
