import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";

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
    expect((await post(`${t.url}/electrum/mainnet`, {})).status).toBe(404);
    expect(txGets()).toBe(asked);
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
    expect(res.status).toBe(502);
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
