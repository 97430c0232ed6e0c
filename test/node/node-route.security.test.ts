import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeToken } from "../../src/auth/tokens.ts";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";

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
