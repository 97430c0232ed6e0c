// Self-service keys through the unified API and the dashboard: every mutation acts on the
// caller's own account. A token of account A can never list, create, restrict, rotate or revoke
// a token of account B — one test per mutation, on /gateway and on /dashboard/graphql — and a
// scoped token cannot manage keys at all (it could otherwise mint itself a broader one).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "../../src/access/tokens.ts";
import { dashboardQuery, signIn } from "../dashboard/support.ts";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";

let t: TestGateway;
let a: { id: number; token: string; tokenId: number };
let b: { id: number; token: string; tokenId: number };
let aCookie: string;

beforeAll(async () => {
  t = await startTestGateway("pglite", { networks: ["mainnet"] });
  a = await t.account("alice", 100_000);
  b = await t.account("bob", 100_000);
  aCookie = (await signIn(t, a.token))!;
});
afterAll(() => t?.close());

type Answer = {
  data?: Record<string, unknown> | null;
  errors?: { message: string; extensions?: { code?: string } }[];
};

/** The same document through both doors: /gateway with a token, /dashboard/graphql with a session. */
const doors = {
  gateway: async (query: string, token = a.token): Promise<Answer> =>
    (await post(`${t.url}/gateway/mainnet/${token}`, { query })).json as Answer,
  dashboard: async (query: string): Promise<Answer> =>
    (await dashboardQuery(t, aCookie, query)).json as Answer,
};

/** Bob's token as the database holds it: untouched by anything Alice tried. */
async function bobsToken() {
  const { rows } = await t.gateway.app.db.query<{
    scope: unknown;
    expires_at: Date | null;
    revoked_at: Date | null;
  }>("SELECT scope, expires_at, revoked_at FROM tokens WHERE id = $1", [b.tokenId]);
  return rows[0];
}

async function bobStillWorks() {
  expect(await bobsToken()).toEqual({ scope: null, expires_at: null, revoked_at: null });
  expect(
    (await post(`${t.url}/node/mainnet/${b.token}`, rpc("getrawtransaction", [HAL_TXID]))).status,
  ).toBe(200);
}

describe.each(Object.entries(doors))("through %s", (_name, ask) => {
  it("account.tokens lists only the caller's tokens", async () => {
    const r = await ask("{ account { name tokens { id hint current state } } }");
    const account = r.data!.account as { name: string; tokens: { id: string; current: boolean }[] };
    expect(account.name).toBe("alice");
    const ids = account.tokens.map((tk) => Number(tk.id));
    expect(ids).toContain(a.tokenId);
    expect(ids).not.toContain(b.tokenId);
  });

  it("createToken issues for the caller's account only, shown once, and it works", async () => {
    const r = await ask(
      'mutation { createToken(label: "ci", scope: { networks: ["mainnet"] }) { token info { id label scope { networks } } } }',
    );
    const created = r.data!.createToken as { token: string; info: { id: string; scope: unknown } };
    expect(created.token).toMatch(/^bgt_/);
    expect(created.info.scope).toEqual({ networks: ["mainnet"] });
    const { rows } = await t.gateway.app.db.query<{ account_id: number }>(
      "SELECT account_id FROM tokens WHERE id = $1",
      [Number(created.info.id)],
    );
    expect(rows[0]!.account_id).toBe(a.id);
    const call = await post(
      `${t.url}/node/mainnet/${created.token}`,
      rpc("getrawtransaction", [HAL_TXID]),
    );
    expect(call.status).toBe(200);
  });

  it("restrictToken cannot touch another account's token", async () => {
    const r = await ask(
      `mutation { restrictToken(id: "${b.tokenId}", scope: { networks: ["signet"] }) { id } }`,
    );
    expect(r.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    await bobStillWorks();
  });

  it("rotateToken cannot touch another account's token", async () => {
    const r = await ask(`mutation { rotateToken(id: "${b.tokenId}", graceSeconds: 0) { token } }`);
    expect(r.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    expect(r.data).toBeNull();
    await bobStillWorks();
  });

  it("revokeToken cannot touch another account's token", async () => {
    const r = await ask(`mutation { revokeToken(id: "${b.tokenId}") { id } }`);
    expect(r.errors?.[0]?.extensions?.code).toBe("NOT_FOUND");
    await bobStillWorks();
  });

  it("restrict, rotate and revoke act on the caller's own tokens", async () => {
    const own = await issueToken(t.gateway.app.db, a.id, { label: "own" });
    const restricted = await ask(
      `mutation { restrictToken(id: "${own.id}", scope: { backends: ["node"] }) { scope { backends } } }`,
    );
    expect(restricted.data).toEqual({ restrictToken: { scope: { backends: ["node"] } } });
    const rotated = await ask(
      `mutation { rotateToken(id: "${own.id}", graceSeconds: 60) { token info { label } previous { id expiresAt } } }`,
    );
    const r = rotated.data!.rotateToken as {
      token: string;
      info: { label: string };
      previous: { expiresAt: string };
    };
    expect(r.info.label).toBe("own");
    expect(Date.parse(r.previous.expiresAt)).toBeGreaterThan(Date.now());
    const revoked = await ask(`mutation { revokeToken(id: "${own.id}") { state } }`);
    expect(revoked.data).toEqual({ revokeToken: { state: "REVOKED" } });
    expect(
      (await post(`${t.url}/node/mainnet/${own.token}`, rpc("getrawtransaction", [HAL_TXID])))
        .status,
    ).toBe(401);
    // The rotated successor keeps the scope and works.
    expect(
      (await post(`${t.url}/node/mainnet/${r.token}`, rpc("getrawtransaction", [HAL_TXID]))).status,
    ).toBe(200);
  });
});

describe("scoped tokens cannot manage keys", () => {
  it("on /gateway, and in a dashboard signed in with one", async () => {
    const scoped = await issueToken(t.gateway.app.db, a.id, {
      scope: { backends: ["gateway", "node"] },
    });
    const r = await doors.gateway(
      'mutation { createToken(label: "wider") { token } }',
      scoped.token,
    );
    expect(r.errors?.[0]).toMatchObject({
      message: "managing tokens needs an unrestricted token; this one has a scope",
      extensions: { code: "SCOPE_METHOD" },
    });
    const cookie = (await signIn(t, scoped.token))!;
    const viaDashboard = await dashboardQuery(
      t,
      cookie,
      `mutation { revokeToken(id: "${a.tokenId}") { id } }`,
    );
    expect(viaDashboard.json.errors?.[0]?.extensions?.code).toBe("SCOPE_METHOD");
    // Listing stays allowed: the Keys view shows them read-only.
    const list = await dashboardQuery(t, cookie, "{ account { tokens { id } } }");
    expect(list.json.errors).toBeUndefined();
  });

  it("a mutation over GET is refused (no key change from a link)", async () => {
    const res = await fetch(
      `${t.url}/gateway/mainnet/${a.token}?query=${encodeURIComponent("mutation { createToken { token } }")}`,
    );
    expect(res.status).toBe(405);
  });
});
