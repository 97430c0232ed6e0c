import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueOperatorToken } from "../../src/access/operator-token.ts";
import {
  adminCli,
  METRIC_NAMES,
  type OperatorGateway,
  startOperatorGateway,
} from "../support/operator.ts";

let g: OperatorGateway;
beforeAll(async () => {
  g = await startOperatorGateway();
});
afterAll(() => g.close());

/** Every refusal looks the same: 401, a Bearer challenge, a small JSON error, nothing else. */
const UNAUTHORIZED = {
  error: { code: "UNAUTHENTICATED", message: "operator credential required" },
};

async function expectRefused(res: { status: number; headers: Headers; text: string }) {
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toBe("Bearer");
  expect(JSON.parse(res.text)).toEqual(UNAUTHORIZED);
  for (const name of METRIC_NAMES) expect(res.text).not.toContain(name);
}

/** Requests that must all be refused: no credential, a wrong one, or the right one malformed. */
const badHeaders = (): [string, Record<string, string>][] => [
  ["no header", {}],
  ["an unknown operator token", { authorization: `Bearer ${issueOperatorToken().token}` }],
  ["no token after the scheme", { authorization: "Bearer" }],
  ["another scheme", { authorization: "Basic b3BlcmF0b3I6c2VjcmV0" }],
  ["the right token in another scheme", { authorization: `Token ${g.operator.token}` }],
  ["the right token with text after it", { authorization: `Bearer ${g.operator.token} x` }],
  ["the right token cut short", { authorization: `Bearer ${g.operator.token.slice(0, -1)}` }],
  ["the digest instead of the token", { authorization: `Bearer ${g.operator.sha256}` }],
];

describe("operator surfaces: error", () => {
  it("/metrics: 401 for a missing, wrong or malformed credential, with no metric in the body", async () => {
    for (const [why, headers] of badHeaders()) {
      const res = await fetch(`${g.url}/metrics`, { headers });
      await expectRefused({
        status: res.status,
        headers: res.headers,
        text: await res.text(),
      }).catch((err: Error) => {
        throw new Error(`${why}: ${err.message}`);
      });
    }
  });

  it("/admin/cli: 401 for a missing, wrong or malformed credential, and nothing is executed", async () => {
    for (const [i, [why, headers]] of badHeaders().entries()) {
      const res = await adminCli(g.url, ["account", "create", `intruder-${i}`], headers);
      await expectRefused(res).catch((err: Error) => {
        throw new Error(`${why}: ${err.message}`);
      });
    }
    const listed = await adminCli(g.url, ["account", "list"], g.operator.headers);
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain("intruder");
  });

  it("unknown /admin/* paths: 401 without a credential (as /admin/cli), 404 with one", async () => {
    for (const path of ["/admin", "/admin/users", "/admin/cli/x"]) {
      const bare = await fetch(`${g.url}${path}`, { method: "POST" });
      await expectRefused({ status: bare.status, headers: bare.headers, text: await bare.text() });
      const res = await fetch(`${g.url}${path}`, { method: "POST", headers: g.operator.headers });
      expect(res.status).toBe(404);
    }
  });

  it("a wrong method with a valid credential: 405 with Allow; a body that is not JSON: 400", async () => {
    const get = await fetch(`${g.url}/admin/cli`, { headers: g.operator.headers });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    const postMetrics = await fetch(`${g.url}/metrics`, {
      method: "POST",
      headers: g.operator.headers,
    });
    expect(postMetrics.status).toBe(405);
    expect(postMetrics.headers.get("allow")).toBe("GET");
    const bad = await fetch(`${g.url}/admin/cli`, {
      method: "POST",
      headers: g.operator.headers,
      body: "{argv",
    });
    expect(bad.status).toBe(400);
  });
});
