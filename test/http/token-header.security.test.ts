import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditCount, latestAuthFailure } from "../support/audit.ts";
import {
  BLOCK_170,
  HAL_TXID,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { accountTotals } from "../support/ledger.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway();
});
afterAll(() => t.close());

async function send(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${t.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: JSON.parse(text) as unknown };
}

/** One priced call per backend route, with what its answer must hold. */
const ROUTES = [
  {
    path: "/node/mainnet",
    body: rpc("getrawtransaction", [HAL_TXID], 7),
    answered: (json: unknown) =>
      expect((json as { result: string }).result.startsWith("0100000001c997")).toBe(true),
  },
  {
    path: "/electrum/mainnet",
    body: rpc("blockchain.transaction.get", [HAL_TXID], 7),
    answered: (json: unknown) =>
      expect((json as { result: string }).result.startsWith("0100000001c997")).toBe(true),
  },
  {
    path: "/graph/mainnet",
    body: { query: `{ block_by_pk(hash: "${BLOCK_170}") { height } }` },
    answered: (json: unknown) =>
      expect(json).toMatchObject({ data: { block_by_pk: { height: 170 } } }),
  },
  {
    path: "/gateway/mainnet",
    body: { query: `{ block_by_pk(hash: "${BLOCK_170}") { height } }` },
    answered: (json: unknown) =>
      expect(json).toMatchObject({ data: { block_by_pk: { height: 170 } } }),
  },
] as const;

describe("the access token in a header instead of the path", () => {
  it.each(
    ROUTES,
  )("$path: Bearer and X-Api-Key are served, charged and audited exactly as the path form", async (route) => {
    const { id, token } = await t.account(`hdr${route.path.replaceAll("/", "-")}`, 1_000_000);
    const inPath = await send(`${route.path}/${token}`, route.body);
    expect(inPath.status).toBe(200);
    route.answered(inPath.json);
    const pathPrice = 1_000_000 - (await accountTotals(t.gateway.app.db, id)).account!.balance;
    expect(pathPrice).toBeGreaterThan(0);

    const variants: Record<string, string>[] = [
      { authorization: `Bearer ${token}` },
      { authorization: `bearer  ${token}` }, // RFC 6750: the scheme is case-insensitive
      { "x-api-key": token },
      // The same token twice is one token, not a conflict.
      { authorization: `Bearer ${token}`, "x-api-key": token },
    ];
    for (const headers of variants) {
      const before = (await accountTotals(t.gateway.app.db, id)).account!.balance;
      const res = await send(route.path, route.body, headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      route.answered(res.json);
      expect(res.headers.get("x-credits-charged")).toBe(inPath.headers.get("x-credits-charged"));
      expect(before - (await accountTotals(t.gateway.app.db, id)).account!.balance).toBe(pathPrice);
    }
    expect(
      await auditCount(t.gateway.app.db, { accountId: id, outcome: "ok" }),
    ).toBeGreaterThanOrEqual(5);
  });

  it.each(
    ROUTES,
  )("$path with no token at all: 401 in the route's protocol, with WWW-Authenticate, audited once per minute", async (route) => {
    for (const path of [route.path, `${route.path}/`]) {
      const res = await send(path, route.body);
      expect(res.status, path).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="blockgate"');
      expect(JSON.stringify(res.json)).toContain("UNAUTHENTICATED");
    }
    const failures = await latestAuthFailure(t, route.path.split("/")[1]!);
    expect(failures[0]).toMatchObject({ outcome: "unauthenticated", charged_cc: 0 });
  });

  it("several tokens: the path wins, then X-Api-Key, then Authorization; the others are not charged", async () => {
    const a = await t.account("first-a", 1_000_000);
    const b = await t.account("first-b", 1_000_000);
    const body = rpc("getrawtransaction", [HAL_TXID]);
    const cases: [string, Record<string, string>][] = [
      [`/node/mainnet/${a.token}`, { authorization: `Bearer ${b.token}` }],
      [`/node/mainnet/${a.token}`, { "x-api-key": b.token }],
      ["/node/mainnet", { authorization: `Bearer ${b.token}`, "x-api-key": a.token }],
    ];
    for (const [path, headers] of cases) {
      expect((await send(path, body, headers)).status).toBe(200);
    }
    expect((await accountTotals(t.gateway.app.db, a.id)).account!.balance).toBeLessThan(1_000_000);
    expect((await accountTotals(t.gateway.app.db, b.id)).account!.balance).toBe(1_000_000);
    // A bad token in the winning place is a 401, whatever good one is elsewhere.
    const bad = `bgt_${"A".repeat(43)}`;
    expect((await send(`/node/mainnet/${bad}`, body, { "x-api-key": a.token })).status).toBe(401);
  });

  it("another scheme in Authorization (a proxy's Basic credentials) is not taken for our token", async () => {
    const { token } = await t.account("basic", 1_000_000);
    const basic = { authorization: `Basic ${Buffer.from("proxy:secret").toString("base64")}` };
    expect(
      (await send(`/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]), basic)).status,
    ).toBe(200);
    expect((await send("/node/mainnet", rpc("getrawtransaction", [HAL_TXID]), basic)).status).toBe(
      401,
    );
  });

  it("a header token never reaches the logs; the request line names it by its hint", async () => {
    const { token } = await t.account("quiet", 1_000_000);
    const from = t.logs.length;
    await send("/node/mainnet", rpc("getrawtransaction", [HAL_TXID]), {
      authorization: `Bearer ${token}`,
    });
    await send("/node/mainnet", "garbage", { "x-api-key": token });
    const lines = t.logs.slice(from).join("\n");
    expect(lines).not.toContain(token.slice(4, 24));
    expect(lines).toContain(`bgt_…${token.slice(-4)}`);
    expect(lines).toContain('"path":"/node/mainnet"');
  });
});
