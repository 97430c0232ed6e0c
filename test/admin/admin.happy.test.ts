import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminCli, type OperatorGateway, startOperatorGateway } from "../support/operator.ts";
import { blockgate } from "../support/spawn.ts";

let g: OperatorGateway;
beforeAll(async () => {
  g = await startOperatorGateway();
});
afterAll(() => g.close());

describe("operator surfaces: happy", () => {
  it("/metrics answers the operator token with the metrics", async () => {
    const res = await fetch(`${g.url}/metrics`, { headers: g.operator.headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    expect(await res.text()).toContain("# HELP blockgate_http_requests_total");
  });

  it("the scheme is case-insensitive (RFC 9110): `bearer <token>` works too", async () => {
    const res = await fetch(`${g.url}/metrics`, {
      headers: { authorization: `bearer ${g.operator.token}` },
    });
    expect(res.status).toBe(200);
  });

  it("/admin/cli runs a command for the operator token, and for the per-start CLI secret", async () => {
    const created = await adminCli(g.url, ["account", "create", "ops-a"], g.operator.headers);
    expect(created.status).toBe(200);
    expect(JSON.parse(created.text)).toMatchObject({
      code: 0,
      text: expect.stringContaining("ops-a"),
    });
    const listed = await adminCli(g.url, ["account", "list"], {
      authorization: `Bearer ${g.cliSecret}`,
    });
    expect(listed.status).toBe(200);
    expect(JSON.parse(listed.text)).toMatchObject({
      code: 0,
      text: expect.stringContaining("ops-a"),
    });
  });

  it("the blockgate CLI still hands its commands to the gateway holding the PGlite store", async () => {
    const out = await blockgate(["account", "create", "ops-b", "--credits", "5"], g.env);
    expect(out.stdout).toContain("account ops-b");
    expect(out.code).toBe(0);
    const listed = await adminCli(g.url, ["account", "list"], g.operator.headers);
    expect(listed.text).toContain("ops-b");
  }, 60_000);
});
