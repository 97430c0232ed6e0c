import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeToken } from "../../src/access/tokens.ts";
import { latestAudit } from "../../src/billing/usage/usage.ts";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { accountTotals } from "../support/ledger.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

const txGets = () =>
  t.devnet.electrum.get("mainnet")!.stats.methods["blockchain.transaction.get"] ?? 0;

describe("electrum route security", () => {
  it("401 for a missing, malformed, unknown or revoked token, before anything is forwarded", async () => {
    const asked = txGets();
    for (const token of [`bgt_${"B".repeat(43)}`, "nope", "bgt_"]) {
      const res = await post(
        `${t.url}/electrum/mainnet/${token}`,
        rpc("blockchain.transaction.get", [HAL_TXID]),
      );
      expect(res.status).toBe(401);
      expect((res.json as { error: { data: { code: string } } }).error.data.code).toBe(
        "UNAUTHENTICATED",
      );
    }
    expect((await post(`${t.url}/electrum/mainnet`, {})).status).toBe(401);
    expect(txGets()).toBe(asked);
  });

  it("a revoked token fails on its next request: 401, nothing forwarded or charged", async () => {
    const { id, token, tokenId } = await t.account("revoked", 1_000);
    const url = `${t.url}/electrum/mainnet/${token}`;
    expect((await post(url, rpc("blockchain.transaction.get", [HAL_TXID]))).status).toBe(200);
    expect(await revokeToken(t.gateway.app.db, { id: tokenId })).toBe(true);
    const asked = txGets();
    const res = await post(url, rpc("blockchain.transaction.get", [HAL_TXID]));
    expect(res.status).toBe(401);
    expect((res.json as { error: { data: { code: string } } }).error.data.code).toBe(
      "UNAUTHENTICATED",
    );
    expect(txGets()).toBe(asked);
    expect((await accountTotals(t.gateway.app.db, id)).account).toEqual({ balance: 900, held: 0 });
  });

  it("a body over server.bodyBytesMax: 413 with connection: close, nothing forwarded or charged, audited", async () => {
    const { id, token } = await t.account("bulky", 1_000);
    const asked = txGets();
    const limit = t.gateway.app.config.server.bodyBytesMax;
    const res = await post(
      `${t.url}/electrum/mainnet/${token}`,
      rpc("blockchain.transaction.get", [HAL_TXID, "x".repeat(limit)]),
    );
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    expect((res.json as { error: { data: { code: string } } }).error.data.code).toBe(
      "PAYLOAD_TOO_LARGE",
    );
    expect(txGets()).toBe(asked);
    const [record] = await latestAudit(t.gateway.app.db, id, 5);
    expect(record).toMatchObject({
      backend: "electrum",
      outcome: "rejected",
      error_code: "PAYLOAD_TOO_LARGE",
      charged_cc: 0,
    });
    expect((await accountTotals(t.gateway.app.db, id)).account).toEqual({ balance: 1000, held: 0 });
  });

  it("a token is not logged, and upstream addresses stay in the logs, not in answers", async () => {
    const { token } = await t.account("quiet", 1_000);
    const testnet = t.devnet.electrum.get("testnet")!;
    await testnet.stop();
    const res = await post(
      `${t.url}/electrum/testnet/${token}`,
      rpc("blockchain.transaction.get", [HAL_TXID]),
    );
    await testnet.restart();
    expect(res.status).toBe(503);
    expect(res.text).not.toContain(String(testnet.port));
    expect(t.logs.join("\n")).toContain(String(testnet.port));
    expect(t.logs.join("\n")).not.toContain(token.slice(4, 24));
  });

  it("a batch cannot exceed batchItemsMax, so one request's cost is bounded", async () => {
    const { token } = await t.account("greedy", 1_000_000);
    const asked = txGets();
    const res = await post(
      `${t.url}/electrum/mainnet/${token}`,
      Array.from({ length: 101 }, (_, i) => rpc("blockchain.transaction.get", [HAL_TXID], i)),
    );
    expect((res.json as { error: { code: number } }).error.code).toBe(-32600);
    expect(txGets()).toBe(asked);
  });
});
