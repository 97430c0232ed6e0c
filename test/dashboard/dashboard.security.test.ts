import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeToken } from "../../src/access/tokens.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { dashboardQuery, signIn } from "./support.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

describe("dashboard security", () => {
  it("a revoked token ends its sessions", async () => {
    const { token, tokenId } = await t.account("carol", 1000);
    const cookie = await signIn(t, token);
    expect((await dashboardQuery(t, cookie, "{ account { name } }")).status).toBe(200);
    await revokeToken(t.gateway.app.db, { id: tokenId });
    expect((await dashboardQuery(t, cookie, "{ account { name } }")).status).toBe(401);
    expect(await signIn(t, token)).toBeNull();
  });

  it("a session sees its own account only, and the token appears in no cookie or redirect", async () => {
    const a = await t.account("dora", 1000);
    const b = await t.account("eve", 5000);
    const res = await fetch(`${t.url}/dashboard/session`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: b.token }).toString(),
      redirect: "manual",
    });
    const headers = [...res.headers.entries()].map(([k, v]) => `${k}: ${v}`).join("\n");
    expect(headers).not.toContain(b.token.slice(4));
    const cookie = res.headers.get("set-cookie")!.split(";")[0]!;
    const seen = await dashboardQuery(t, cookie, "{ account { name balance } }");
    expect(seen.json.data).toEqual({ account: { name: "eve", balance: 5000 } });
    expect(JSON.stringify(seen.json)).not.toContain("dora");
    // Another account's token sent alongside the session changes nothing: the session decides.
    const mixed = await fetch(`${t.url}/dashboard/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie, authorization: `Bearer ${a.token}` },
      body: JSON.stringify({ query: "{ account { name } }" }),
    });
    expect(((await mixed.json()) as { data: unknown }).data).toEqual({ account: { name: "eve" } });
  });

  it("an oversize sign-in or query body is refused with 413, not a server error", async () => {
    const big = "x".repeat(64 * 1024);
    const login = await fetch(`${t.url}/dashboard/session`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `token=${big}`,
    });
    expect(login.status).toBe(413);
    const { token } = await t.account("frank", 1000);
    const cookie = await signIn(t, token);
    const query = await fetch(`${t.url}/dashboard/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) },
      body: JSON.stringify({ query: `{ account { name } } # ${"x".repeat(2 * 1024 * 1024)}` }),
    });
    expect(query.status).toBe(413);
  });
});
