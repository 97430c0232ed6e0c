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

describe("tokens", () => {
  it("401 for a missing, malformed or unknown token, before anything is forwarded", async () => {
    const calls = t.devnet.cores.get("mainnet")!.stats.calls;
    for (const token of [`bgt_${"A".repeat(43)}`, "nope", "bgt_short"]) {
      const res = await post(
        `${t.url}/node/mainnet/${token}`,
        rpc("getrawtransaction", [HAL_TXID]),
      );
      expect(res.status).toBe(401);
      expect((res.json as { error: { data: { code: string } } }).error.data.code).toBe(
        "UNAUTHENTICATED",
      );
    }
    expect(t.devnet.cores.get("mainnet")!.stats.calls).toBe(calls);
  });

  it("a revoked token fails on its next request", async () => {
    const { token, tokenId } = await t.account("carol", 1000);
    const url = `${t.url}/node/mainnet/${token}`;
    expect((await post(url, rpc("getrawtransaction", [HAL_TXID]))).status).toBe(200);
    expect(await revokeToken(t.gateway.app.db, { id: tokenId })).toBe(true);
    expect((await post(url, rpc("getrawtransaction", [HAL_TXID]))).status).toBe(401);
  });

  it("a body over server.bodyBytesMax: 413 with connection: close, nothing forwarded or charged, audited", async () => {
    const { id, token } = await t.account("bulky", 1000);
    const calls = t.devnet.cores.get("mainnet")!.stats.calls;
    const limit = t.gateway.app.config.server.bodyBytesMax;
    const res = await post(
      `${t.url}/node/mainnet/${token}`,
      rpc("getrawtransaction", [HAL_TXID, "x".repeat(limit)]),
    );
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    expect(res.json).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32005,
        message: `body over ${limit} bytes`,
        data: { code: "PAYLOAD_TOO_LARGE" },
      },
    });
    expect(t.devnet.cores.get("mainnet")!.stats.calls).toBe(calls);
    const [record] = await latestAudit(t.gateway.app.db, id, 5);
    expect(record).toMatchObject({
      outcome: "rejected",
      error_code: "PAYLOAD_TOO_LARGE",
      http_status: 413,
      charged_cc: 0,
    });
    expect((await accountTotals(t.gateway.app.db, id)).account).toEqual({ balance: 1000, held: 0 });
  });

  it("tokens carry a prefix and 256 random bits, and are stored only as a hash", async () => {
    const { token } = await t.account("dave", 1000);
    expect(token).toMatch(/^bgt_[A-Za-z0-9_-]{43}$/);
    await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
    // Every text and bytea column of every table, searched for the token and its secret part.
    const db = t.gateway.app.db;
    const { rows: columns } = await db.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns
       WHERE table_schema = current_schema() AND data_type IN ('text', 'bytea', 'character varying')`,
    );
    expect(columns.length).toBeGreaterThan(5);
    const secret = token.slice(4);
    for (const { table_name, column_name } of columns) {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${table_name}
         WHERE position($1 in encode(convert_to(${column_name}::text, 'UTF8'), 'escape')) > 0`,
        [secret.slice(0, 20)],
      );
      expect(rows[0]!.n, `${table_name}.${column_name}`).toBe(0);
    }
  });

  it("no token appears in the logs", async () => {
    const { token } = await t.account("erin", 1000);
    await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
    await post(`${t.url}/node/mainnet/${token}`, "garbage");
    expect(t.logs.length).toBeGreaterThan(0);
    expect(t.logs.join("\n")).not.toContain(token.slice(4, 24));
    expect(t.logs.join("\n")).toContain(`bgt_…${token.slice(-4)}`);
  });
});
