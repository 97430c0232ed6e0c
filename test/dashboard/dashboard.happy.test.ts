import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditCount } from "../support/audit.ts";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { dashboardQuery, signIn } from "./support.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

describe("dashboard", () => {
  it("signs in with a token for an HttpOnly, SameSite=Strict session, reads usage, exports CSV and signs out", async () => {
    const { token } = await t.account("ada", 10_000);
    await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
    const login = await fetch(`${t.url}/dashboard/session`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token }).toString(),
      redirect: "manual",
    });
    expect(login.status).toBe(303);
    expect(login.headers.get("location")).toBe("/dashboard");
    const setCookie = login.headers.get("set-cookie")!;
    expect(setCookie).toMatch(/; HttpOnly; SameSite=Strict; Path=\/dashboard; Max-Age=\d+$/);
    const cookie = setCookie.split(";")[0]!;

    const home = await fetch(`${t.url}/dashboard`, { headers: { cookie } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('<script type="module" src="/dashboard/app.js">');

    const usage = await dashboardQuery(t, cookie, "{ account { name balance } }");
    expect(usage.status).toBe(200);
    expect(usage.json.data).toEqual({ account: { name: "ada", balance: 9_800 } });

    const csv = await fetch(`${t.url}/dashboard/export.csv?kind=usage`, { headers: { cookie } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(await csv.text()).toContain("getrawtransaction");

    const out = await fetch(`${t.url}/dashboard/logout`, {
      method: "POST",
      headers: { cookie },
      redirect: "manual",
    });
    expect(out.status).toBe(303);
    expect((await dashboardQuery(t, cookie, "{ account { name } }")).status).toBe(401);
  });

  it("its own reads are audited and free, but are not usage: not in the cycle's calls or latest calls", async () => {
    const { id, token } = await t.account("looker", 10_000);
    await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
    const cookie = (await signIn(t, token))!;
    const query =
      "{ account { cycle { calls usage { backend calls } auditRecords { backend } } } }";
    for (let i = 0; i < 3; i++) await dashboardQuery(t, cookie, query);
    const res = await dashboardQuery(t, cookie, query);
    const cycle = (res.json as { data: { account: { cycle: Record<string, unknown> } } }).data
      .account.cycle;
    expect(cycle).toEqual({
      calls: 1,
      usage: [{ backend: "node", calls: 1 }],
      auditRecords: [{ backend: "node" }],
    });
    // Each read still has its audit record, uncharged, and the audit export lists them.
    expect(await auditCount(t.gateway.app.db, { accountId: id })).toBe(4 + 1);
    const csv = await fetch(`${t.url}/dashboard/export.csv?kind=audit`, { headers: { cookie } });
    expect((await csv.text()).split("\n").filter((l) => l.includes(",dashboard,"))).toHaveLength(4);
  });

  it("serves its script and style from the gateway itself", async () => {
    const script = await fetch(`${t.url}/dashboard/app.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect((await script.text()).length).toBeGreaterThan(1000);
    const style = await fetch(`${t.url}/dashboard/style.css`);
    expect(style.status).toBe(200);
    expect(style.headers.get("content-security-policy")).toContain("default-src 'self'");
  });
});
