import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeToken } from "../../src/access/tokens.ts";
import { auditCount, auditTotals } from "../support/audit.ts";
import { HAL_TXID, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { sized } from "../support/size.ts";

/** Failed authentications cost no row per request (src/access/auth-failures.ts). */
const FLOOD = sized(500, 10_000);
describe("a flood of bad tokens", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway("pglite");
  });
  afterAll(() => t.close());

  const auditRows = () => auditCount(t.gateway.app.db, {});

  it(`${FLOOD.toLocaleString("en")} requests with bad tokens add a handful of audit rows, which count them all`, async () => {
    const before = await auditRows();
    const dispatcher = new Agent({ connections: 32 });
    const body = JSON.stringify(rpc("getrawtransaction", [HAL_TXID]));
    let next = 0;
    const statuses = new Map<number, number>();
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < FLOOD) {
          const i = next++;
          const token = `bgt_${String(i).padStart(43, "x")}`;
          const res = await request(`${t.url}/node/mainnet/${token}`, {
            method: "POST",
            body,
            headers: { "content-type": "application/json" },
            dispatcher,
          });
          await res.body.text();
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        }
      }),
    );
    await dispatcher.close();
    expect(Object.fromEntries(statuses)).toEqual({ 401: FLOOD });
    await t.gateway.app.authFailures.flush(true);
    const added = (await auditRows()) - before;
    expect(added).toBeGreaterThanOrEqual(1);
    expect(added).toBeLessThanOrEqual(4); // one per source and minute: a minute may turn over
    expect(await auditTotals(t.gateway.app.db, { outcome: "unauthenticated" }, ["calls"])).toEqual({
      calls: FLOOD,
    });
    const counted = await t.gateway.app.metrics.authFailures.get();
    expect(counted.values.find((v) => v.labels.route === "node")?.value).toBe(FLOOD);
  });

  it("a revoked token is refused at once by the process that revoked it, cache or not", async () => {
    const { token, tokenId } = await t.account("cached", 10_000);
    const url = `${t.url}/node/mainnet/${token}`;
    const call = () =>
      fetch(url, { method: "POST", body: JSON.stringify(rpc("getrawtransaction", [HAL_TXID])) });
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(200); // served from the token cache
    expect(await revokeToken(t.gateway.app.db, { id: tokenId })).toBe(true);
    expect((await call()).status).toBe(401);
  });
});
