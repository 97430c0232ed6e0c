import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operatorAuthorized } from "../../src/access/operator-token.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import {
  adminCli,
  METRIC_NAMES,
  type OperatorGateway,
  operatorCredential,
  startOperatorGateway,
} from "../support/operator.ts";

describe("operator surfaces: security (PGlite, with the CLI hand-off)", () => {
  let g: OperatorGateway;
  beforeAll(async () => {
    g = await startOperatorGateway();
  });
  afterAll(() => g.close());

  it("the per-start CLI secret opens /admin/cli only: not /metrics, not other admin paths", async () => {
    const secret = { authorization: `Bearer ${g.cliSecret}` };
    expect((await fetch(`${g.url}/metrics`, { headers: secret })).status).toBe(401);
    const other = await fetch(`${g.url}/admin/users`, { method: "POST", headers: secret });
    expect(other.status).toBe(401);
    expect((await adminCli(g.url, ["account", "list"], secret)).status).toBe(200);
  });

  it("an access token (bgt_…) is not an operator credential", async () => {
    const created = await adminCli(
      g.url,
      ["account", "create", "acme", "--credits", "10"],
      g.operator.headers,
    );
    expect(created.status).toBe(200);
    const issued = await adminCli(g.url, ["token", "issue", "acme"], g.operator.headers);
    const token = (JSON.parse(issued.text) as { text: string }).text.match(/bgt_\S{43}/)![0];
    const headers = { authorization: `Bearer ${token}` };
    const metrics = await fetch(`${g.url}/metrics`, { headers });
    expect(metrics.status).toBe(401);
    const text = await metrics.text();
    for (const name of METRIC_NAMES) expect(text).not.toContain(name);
    expect((await adminCli(g.url, ["account", "list"], headers)).status).toBe(401);
  });

  it("an oversize /admin/cli body: 401 unread without a credential; 413 with connection: close and nothing run with one", async () => {
    const argv = ["account", "create", "oversize", "--memo", "x".repeat(70 * 1024)];
    const bare = await adminCli(g.url, argv);
    expect(bare.status).toBe(401);
    const res = await adminCli(g.url, argv, g.operator.headers);
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    expect(JSON.parse(res.text)).toEqual({
      error: { code: "PAYLOAD_TOO_LARGE", message: "request body over the limit" },
    });
    const listed = await adminCli(g.url, ["account", "list"], g.operator.headers);
    expect(listed.text).not.toContain("oversize");
  });

  it("an /admin/cli body nested past server.jsonDepthMax: 400, not a stack overflow; nothing run", async () => {
    const res = await fetch(`${g.url}/admin/cli`, {
      method: "POST",
      headers: { ...g.operator.headers, "content-type": "application/json" },
      body: `{"argv":["account","create",${"[".repeat(30_000)}${"]".repeat(30_000)}]}`,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: { code: "BAD_REQUEST", message: 'expected {"argv": [...]}' },
    });
    expect((await adminCli(g.url, ["account", "list"], g.operator.headers)).status).toBe(200);
  });

  it("neither the operator token, its digest nor the CLI secret appears in any log line", async () => {
    // Requests that succeed and requests that fail, on both surfaces.
    await fetch(`${g.url}/metrics`, { headers: g.operator.headers });
    await fetch(`${g.url}/metrics`, { headers: { authorization: `Bearer ${g.operator.sha256}` } });
    await fetch(`${g.url}/metrics`, { headers: { authorization: `Bearer ${g.operator.token}x` } });
    await adminCli(g.url, ["account", "list"], { authorization: `Bearer ${g.cliSecret}` });
    await adminCli(g.url, ["account", "list"], { authorization: `Bearer ${g.cliSecret}0` });
    const logs = g.logs.join("");
    expect(logs).toContain("operator credential missing or refused");
    for (const secret of [g.operator.token.slice(4), g.operator.sha256, g.cliSecret]) {
      expect(logs).not.toContain(secret);
    }
  });
});

describe("operator surfaces: security (PostgreSQL)", () => {
  const operator = operatorCredential();
  // An access-token-shaped string whose digest an operator pasted into the wrong list.
  const accessShaped = `bgt_${randomBytes(32).toString("base64url")}`;
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway("postgres", {
      networks: ["regtest"],
      operator: {
        tokenSha256: [operator.sha256, createHash("sha256").update(accessShaped).digest("hex")],
      },
    });
  });
  afterAll(() => t.close());

  it("an access token is refused even when its digest is configured: the bgo_ prefix is required", async () => {
    const res = await fetch(`${t.url}/metrics`, {
      headers: { authorization: `Bearer ${accessShaped}` },
    });
    expect(res.status).toBe(401);
    expect((await fetch(`${t.url}/metrics`, { headers: operator.headers })).status).toBe(200);
  });

  it("no CLI hand-off with PostgreSQL: /admin/cli is 404 to the operator, 401 to anyone else", async () => {
    const argv = ["account", "create", "via-http"];
    expect((await adminCli(t.url, argv, operator.headers)).status).toBe(404);
    expect((await adminCli(t.url, argv)).status).toBe(401);
    const { rows } = await t.gateway.app.db.query("SELECT 1 FROM accounts WHERE name = 'via-http'");
    expect(rows).toEqual([]);
  });
});

describe("operator credential check: timing", () => {
  it("takes the same time for the right token, a near miss and a far miss", () => {
    // The token is hashed before anything is compared and every configured digest is compared,
    // so how much of a guess is right cannot show in the time taken. Each case's fastest of
    // interleaved batches (what the code costs when nothing else runs); a leak is systematic and
    // shows in every attempt, while a burst of load on a shared machine spoils one at most.
    const operator = operatorCredential();
    const digests = [operatorCredential().sha256, operator.sha256, operatorCredential().sha256];
    const near = `Bearer ${operator.token.slice(0, -1)}${operator.token.endsWith("A") ? "B" : "A"}`;
    const far = `Bearer ${operatorCredential().token}`;
    const cases = { right: operator.headers.authorization, near, far };
    expect(operatorAuthorized(cases.right, digests)).toBe(true);
    expect(operatorAuthorized(cases.near, digests)).toBe(false);
    const attempts: number[][] = [];
    for (let attempt = 0; attempt < 5; attempt++) {
      const [right, nearNs, farNs] = fastestBatches([cases.right, cases.near, cases.far], digests);
      const ratios = [nearNs / right, farNs / right, nearNs / farNs];
      attempts.push(ratios);
      if (ratios.every((r) => r > 0.67 && r < 1.5)) break;
    }
    const last = attempts.at(-1)!;
    expect(
      last.every((r) => r > 0.67 && r < 1.5),
      `ratios per attempt: ${JSON.stringify(attempts)}`,
    ).toBe(true);
  });
});

/** The fastest of 41 interleaved batches of 300 checks, per header, in nanoseconds. */
function fastestBatches(
  headers: [string, string, string],
  digests: string[],
): [number, number, number] {
  const fastest: [number, number, number] = [Infinity, Infinity, Infinity];
  for (let round = 0; round < 41; round++) {
    headers.forEach((header, i) => {
      const started = process.hrtime.bigint();
      for (let n = 0; n < 300; n++) operatorAuthorized(header, digests);
      fastest[i] = Math.min(fastest[i]!, Number(process.hrtime.bigint() - started));
    });
  }
  return fastest;
}
