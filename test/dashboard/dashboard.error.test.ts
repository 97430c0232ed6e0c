import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { dashboardQuery, signIn } from "./support.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

describe("dashboard errors", () => {
  it("an unknown token gets the sign-in page again with 401 and no cookie", async () => {
    const res = await fetch(`${t.url}/dashboard/session`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: `bgt_${"A".repeat(43)}` }).toString(),
      redirect: "manual",
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await res.text()).toContain("That token is unknown or revoked.");
  });

  it("data without a session is 401 UNAUTHENTICATED; a wrong content type 415; an unknown cycle 400; an unknown path 404", async () => {
    const none = await dashboardQuery(t, null, "{ account { name } }");
    expect(none.status).toBe(401);
    expect(none.json.errors?.[0]?.extensions?.code).toBe("UNAUTHENTICATED");

    const { token } = await t.account("bob", 1000);
    const cookie = (await signIn(t, token))!;
    const plain = await fetch(`${t.url}/dashboard/graphql`, {
      method: "POST",
      headers: { "content-type": "text/plain", cookie },
      body: "{ account { name } }",
    });
    expect(plain.status).toBe(415);
    const cycle = await fetch(`${t.url}/dashboard/export.csv?cycle=99`, { headers: { cookie } });
    expect(cycle.status).toBe(400);
    const unknown = await fetch(`${t.url}/dashboard/nope`, { headers: { cookie } });
    expect(unknown.status).toBe(404);
    // So is a method a dashboard path does not take; without a session, sign in first.
    for (const [method, path] of [
      ["PUT", "/dashboard"],
      ["DELETE", "/dashboard/session"],
      ["PATCH", "/dashboard/nope"],
    ] as const) {
      const signedIn = await fetch(`${t.url}${path}`, { method, headers: { cookie } });
      expect([method, path, signedIn.status, await signedIn.text()]).toEqual([
        method,
        path,
        404,
        "not found",
      ]);
      expect((await fetch(`${t.url}${path}`, { method })).status).toBe(401);
    }
  });
});
