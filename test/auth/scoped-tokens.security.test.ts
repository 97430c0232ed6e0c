// Scoped tokens: a token limited to backends, networks, methods and client address ranges, with
// an expiry, restriction and rotation. A call outside its scope gets 403 with a code naming the
// scope, is not executed, not charged, and is audited; a changed scope applies at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken, restrictToken, rotateToken } from "../../src/access/tokens.ts";
import { auditGrouped } from "../support/audit.ts";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { accountTotals } from "../support/ledger.ts";
import { postFrom } from "../support/local-address.ts";

const ELECTRUM_GET = {
  jsonrpc: "2.0",
  id: 1,
  method: "blockchain.transaction.get",
  params: [HAL_TXID],
};
const CORE_GET = rpc("getrawtransaction", [HAL_TXID]);

describe("scoped tokens", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway("pglite", { networks: ["mainnet", "signet"] });
  });
  afterAll(() => t?.close());

  const db = () => t.gateway.app.db;
  const url = (backend: string, network: string, token: string) =>
    `${t.url}/${backend}/${network}/${token}`;

  it("backends, networks and methods: each refusal names its scope, runs nothing and costs nothing", async () => {
    const acc = await t.account("scoped", 100_000);
    const { token } = await issueToken(db(), acc.id, {
      scope: { backends: ["node", "graph"], networks: ["mainnet"] },
    });
    const ok = await post(url("node", "mainnet", token), CORE_GET);
    expect(ok.status).toBe(200);

    const backend = await post(url("electrum", "mainnet", token), ELECTRUM_GET);
    expect(backend.status).toBe(403);
    expect(backend.json).toMatchObject({
      error: { code: -32030, message: "this token may not be used for backend electrum" },
    });
    const network = await post(url("node", "signet", token), CORE_GET);
    expect(network.status).toBe(403);
    expect(network.json).toMatchObject({ error: { code: -32031, data: { scope: "network" } } });
    const graph = await post(url("graph", "signet", token), {
      query: "{ block(limit: 1) { height } }",
    });
    expect(graph.json).toMatchObject({ errors: [{ extensions: { code: "SCOPE_NETWORK" } }] });

    const methods = await issueToken(db(), acc.id, { scope: { methods: ["getrawtransaction"] } });
    expect((await post(url("node", "mainnet", methods.token), CORE_GET)).status).toBe(200);
    const method = await post(url("electrum", "mainnet", methods.token), ELECTRUM_GET);
    expect(method.status).toBe(403);
    expect(method.json).toMatchObject({
      error: {
        code: -32032,
        message: "this token may not be used for method blockchain.transaction.get",
      },
    });
    // The unified API is one method, `graphql`: not in this token's list.
    const unified = await post(url("gateway", "mainnet", methods.token), {
      query: "{ account { balance } }",
    });
    expect(unified.status).toBe(403);
    expect(unified.json).toMatchObject({ errors: [{ extensions: { code: "SCOPE_METHOD" } }] });

    await t.gateway.app.authFailures.flush(true);
    const totals = await accountTotals(db(), acc.id);
    // Two calls ran and were charged; every refusal is on record and charged nothing.
    expect(totals.audit.find((r) => r.outcome === "ok")).toMatchObject({ n: 2, charged: 400 });
    expect(totals.audit.find((r) => r.outcome === "forbidden")).toMatchObject({ charged: 0 });
    const rows = await auditGrouped(
      db(),
      { accountId: acc.id, outcome: "forbidden" },
      "error_code",
      ["calls"],
    );
    expect(rows).toEqual([
      { error_code: "SCOPE_BACKEND", calls: 1 },
      { error_code: "SCOPE_METHOD", calls: 2 },
      { error_code: "SCOPE_NETWORK", calls: 2 },
    ]);
  });

  it("client address ranges", async () => {
    const acc = await t.account("from-range", 100_000);
    const { token } = await issueToken(db(), acc.id, {
      scope: { ips: ["127.0.0.2/32", "10.0.0.0/8"] },
    });
    const outside = await postFrom(url("node", "mainnet", token), CORE_GET, "127.0.0.1");
    expect(outside.status).toBe(403);
    expect(outside.json.error).toMatchObject({ code: -32034 });
    const inside = await postFrom(url("node", "mainnet", token), CORE_GET, "127.0.0.2");
    expect(inside.status).toBe(200);
  });

  it("a restricted token is refused at once; rotation keeps the old token until its grace ends", async () => {
    const acc = await t.account("rotating", 100_000);
    const old = await issueToken(db(), acc.id, { label: "backend" });
    expect((await post(url("node", "mainnet", old.token), CORE_GET)).status).toBe(200);
    await restrictToken(db(), old.id, { networks: ["signet"] });
    expect((await post(url("node", "mainnet", old.token), CORE_GET)).status).toBe(403);
    await restrictToken(db(), old.id, null);
    expect((await post(url("node", "mainnet", old.token), CORE_GET)).status).toBe(200);

    const rotated = (await rotateToken(db(), old.id, 60_000))!;
    expect(rotated.oldExpiresAt.getTime()).toBeGreaterThan(Date.now());
    // Both work during the grace period.
    expect((await post(url("node", "mainnet", old.token), CORE_GET)).status).toBe(200);
    expect((await post(url("node", "mainnet", rotated.issued.token), CORE_GET)).status).toBe(200);
    // Rotated again with no grace: the replaced token stops at once; its successor works.
    const again = (await rotateToken(db(), rotated.issued.id, 0))!;
    expect((await post(url("node", "mainnet", rotated.issued.token), CORE_GET)).status).toBe(401);
    expect((await post(url("node", "mainnet", again.issued.token), CORE_GET)).status).toBe(200);
    // An account's tokens only: another account's id does not match.
    const stranger = await t.account("stranger", 0);
    expect(await rotateToken(db(), again.issued.id, 0, stranger.id)).toBeNull();
    expect(await restrictToken(db(), again.issued.id, null, stranger.id)).toBeNull();
  });

  it("an expired token is refused like a revoked one", async () => {
    const acc = await t.account("expiring", 100_000);
    const issued = await issueToken(db(), acc.id, { expiresAt: new Date(Date.now() + 3_600_000) });
    expect((await post(url("node", "mainnet", issued.token), CORE_GET)).status).toBe(200);
    await db().query("UPDATE tokens SET expires_at = now() - interval '1 second' WHERE id = $1", [
      issued.id,
    ]);
    await db().notify("token_revoked", String(issued.id));
    expect((await post(url("node", "mainnet", issued.token), CORE_GET)).status).toBe(401);
  });

  it("scopes are checked as the store takes them: an empty list or a bad range is refused", async () => {
    const acc = await t.account("bad-scope", 0);
    await expect(issueToken(db(), acc.id, { scope: { networks: [] } })).rejects.toThrow();
    await expect(issueToken(db(), acc.id, { scope: { ips: ["10.0.0.0/33"] } })).rejects.toThrow();
    await expect(
      issueToken(db(), acc.id, { scope: { origins: ["https://app.example/path"] } }),
    ).rejects.toThrow();
  });
});
