import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeToken } from "../../src/access/tokens.ts";
import { auditOf, auditRecords, latestAuthFailure } from "../support/audit.ts";
import { gql } from "../support/graphql.ts";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";

/**
 * What a caller cannot make the unified API do: read or spend with a revoked token, see another
 * account, push an oversize body or an over-deep document through, or read internals in an error.
 * (What the delegated block fields bound is in blocks.security.test.ts.)
 */
let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    server: { port: 0, bodyBytesMax: 16_384 },
    graphql: { depthMax: 6, aliasesMax: 3 },
  });
});
afterAll(() => t.close());

const db = () => t.gateway.app.db;
const nodeCalls = () => t.devnet.cores.get("mainnet")!.stats.calls;
const gateway = (token: string) => `${t.url}/gateway/mainnet/${token}`;

const availableOf = async (id: number) => (await balanceOf(db(), id)).available;

/** What each test reads of a request's audit records. */
const AUDITED = [
  "account_id",
  "backend",
  "method",
  "outcome",
  "error_code",
  "http_status",
  "charged_cc",
] as const;

/** Nothing internal in an answer: no parser's words, no originalError, no stack, no SQL. */
function expectNoInternals(text: string): void {
  expect(text).not.toMatch(
    /originalError|stack|SyntaxError|at position|\bat \S+ \(|\.ts:\d|relation|SELECT/,
  );
}

describe("unified API: tokens", () => {
  it("a revoked token reads no account data and runs nothing: 401 in GraphQL's shape, audited without an account", async () => {
    const { id, token, tokenId } = await t.account("carol", 10_000);
    const query = `{ account { name balance auditRecords { method } } transaction(txid: "${HAL_TXID}") { txid } }`;
    expect((await gql(gateway(token), query)).body.data).toMatchObject({
      account: { name: "carol" },
    });
    expect(await revokeToken(db(), { id: tokenId })).toBe(true);
    const calls = nodeCalls();
    const before = await availableOf(id);

    const res = await gql(gateway(token), query);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      errors: [
        {
          message: "unknown, expired or revoked access token",
          extensions: { code: "UNAUTHENTICATED" },
        },
      ],
    });
    expect(nodeCalls()).toBe(calls);
    expect(await availableOf(id)).toBe(before);
    // Audited without an account, aggregated with the other 401s of its source and minute.
    expect(await auditOf(db(), res.headers.get("x-request-id"), AUDITED)).toEqual([]);
    expect(await latestAuthFailure(t, "gateway")).toEqual([
      expect.objectContaining({
        account_id: null,
        backend: "gateway",
        method: "(unauthenticated)",
        outcome: "unauthenticated",
        error_code: "UNAUTHENTICATED",
        http_status: 401,
        charged_cc: 0,
      }),
    ]);
    // Nor GraphiQL's page, nor a GET query.
    const page = await fetch(gateway(token), { headers: { accept: "text/html" } });
    expect(page.status).toBe(401);
    expect(await page.text()).not.toContain("carol");
    const get = await fetch(
      `${gateway(token)}?query=${encodeURIComponent("{ account { name } }")}`,
    );
    expect(get.status).toBe(401);
  });

  it("`account` is the caller's own: another account's records, usage and balance never show", async () => {
    const a = await t.account("alice", 10_000);
    const b = await t.account("bob", 50_000);
    // Bob's calls: a node lookup (charged), a refused one, a unified API query.
    await post(`${t.url}/node/mainnet/${b.token}`, rpc("getrawtransaction", [HAL_TXID]));
    await post(`${t.url}/node/mainnet/${b.token}`, rpc("bob_only_method", []));
    await gql(gateway(b.token), "{ account { name } }");
    await gql(gateway(a.token), "{ __typename }");

    // Bob's token beside Alice's path token changes nothing: the path decides.
    const res = await gql<{
      account: {
        name: string;
        balance: number;
        auditRecords: { id: string; backend: string; method: string }[];
        cycle: { usage: { backend: string; method: string }[]; auditRecords: { id: string }[] };
        cycles: { calls: number }[];
      };
    }>(
      gateway(a.token),
      `{ account { name balance auditRecords(limit: 500) { id backend method }
          cycle { usage { backend method } auditRecords(limit: 1000) { id } }
          cycles { calls } } }`,
      {},
      { authorization: `Bearer ${b.token}` },
    );
    expect(res.status).toBe(200);
    const account = res.body.data!.account;
    expect(account.name).toBe("alice");
    expect(account.balance).toBe(10_000);
    const rows = await auditRecords(db(), {}, ["id", "account_id"]);
    const own = new Set(rows.filter((r) => r.account_id === a.id).map((r) => String(r.id)));
    const seen = [...account.auditRecords, ...account.cycle.auditRecords].map((r) => r.id);
    expect(seen.length).toBeGreaterThan(0);
    for (const id of seen) expect(own).toContain(id);
    // Alice made one call before this one: the cycle counts hers, not Bob's three.
    expect(account.cycles[0]!.calls).toBe(1);
    expect(account.cycle.usage).toEqual([{ backend: "gateway", method: "graphql" }]);
    const text = JSON.stringify(res.body);
    for (const secret of ["bob", "bob_only_method", "50000", "node"]) {
      expect(text).not.toContain(secret);
    }
    expect(await auditOf(db(), res.headers.get("x-request-id"), AUDITED)).toEqual([
      expect.objectContaining({ account_id: a.id, backend: "gateway" }),
    ]);
  });
});

describe("unified API: bodies and documents it refuses", () => {
  it("a body over server.bodyBytesMax: 413, connection closed, nothing run or charged, audited", async () => {
    const { id, token } = await t.account("big", 10_000);
    const calls = nodeCalls();
    const res = await gql(
      gateway(token),
      `{ transaction(txid: "${HAL_TXID}") { txid } } # ${"x".repeat(20_000)}`,
    );
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    expect(res.body).toEqual({
      errors: [{ message: "body over 16384 bytes", extensions: { code: "PAYLOAD_TOO_LARGE" } }],
    });
    expect(nodeCalls()).toBe(calls);
    expect(await availableOf(id)).toBe(10_000);
    expect(await auditOf(db(), res.headers.get("x-request-id"), AUDITED)).toEqual([
      expect.objectContaining({
        account_id: id,
        outcome: "rejected",
        error_code: "PAYLOAD_TOO_LARGE",
        http_status: 413,
        charged_cc: 0,
      }),
    ]);
  });

  it("over the depth or alias limit: LIMIT_EXCEEDED before anything runs, not charged, audited", async () => {
    const { id, token } = await t.account("deep", 10_000);
    const calls = nodeCalls();
    const documents = [
      `{ transaction(txid: "${HAL_TXID}") { block { transactions(limit: 1) { transaction { outputs { scriptPubKey { type } } } } } } }`,
      `{ a: transaction(txid: "${HAL_TXID}") { txid } b: transaction(txid: "${HAL_TXID}") { txid } c: transaction(txid: "${HAL_TXID}") { txid } d: transaction(txid: "${HAL_TXID}") { txid } }`,
    ];
    for (const query of documents) {
      const res = await gql(gateway(token), query);
      expect(res.body.data ?? null).toBeNull();
      expect(res.body.errors).toHaveLength(1);
      expect(res.body.errors![0]!.extensions).toEqual({ code: "LIMIT_EXCEEDED" });
      expect(res.body.errors![0]!.message).toMatch(/limit of \d+ exceeded/);
      expectNoInternals(JSON.stringify(res.body));
      expect(await auditOf(db(), res.headers.get("x-request-id"), AUDITED)).toEqual([
        expect.objectContaining({
          account_id: id,
          outcome: "rejected",
          error_code: "LIMIT_EXCEEDED",
          charged_cc: 0,
        }),
      ]);
    }
    expect(nodeCalls()).toBe(calls);
    expect(await availableOf(id)).toBe(10_000);
  });

  it("deeply nested introspection is refused as a limit too, before it runs", async () => {
    const { id, token } = await t.account("introspector", 0);
    // Each level would multiply the rows: types × fields × their type's fields × …
    let selection = "name";
    for (let i = 0; i < 4; i++) selection = `name fields { type { ofType { ${selection} } } }`;
    const res = await gql(gateway(token), `{ __schema { types { ${selection} } } }`);
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: "Maximum introspection depth exceeded",
        extensions: { code: "LIMIT_EXCEEDED" },
      }),
    ]);
    expect(await auditOf(db(), res.headers.get("x-request-id"), AUDITED)).toEqual([
      expect.objectContaining({
        account_id: id,
        outcome: "rejected",
        error_code: "LIMIT_EXCEEDED",
      }),
    ]);
    // Introspection as GraphiQL asks for it still answers, free, at a zero balance.
    const shallow = await gql(gateway(token), "{ __schema { types { name fields { name } } } }");
    expect(shallow.status).toBe(200);
    expect(shallow.body.extensions?.cost).toMatchObject({ charged: 0 });
  });
});

describe("unified API: errors", () => {
  it("a fault of the gateway is INTERNAL with a plain message: no stack, no SQL, no originalError; the cause is logged", async () => {
    const { id, token } = await t.account("faulty", 10_000);
    // A real database fault, made in the database: the column `account` reads is renamed away.
    await db().exec("ALTER TABLE accounts RENAME COLUMN created_at TO created_at_hidden");
    let res: Awaited<ReturnType<typeof gql>>;
    try {
      res = await gql(gateway(token), "{ account { name } }");
    } finally {
      await db().exec("ALTER TABLE accounts RENAME COLUMN created_at_hidden TO created_at");
    }
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: "Unexpected error.",
        path: ["account"],
        extensions: { code: "INTERNAL" },
      }),
    ]);
    expectNoInternals(JSON.stringify(res.body));
    expect(JSON.stringify(res.body)).not.toContain("created_at");
    expect(await availableOf(id)).toBe(10_000);
    const logged = t.logs.find((line) => line.includes("unexpected error in the unified API"));
    expect(logged).toContain("created_at");
    expect(logged).not.toContain(token.slice(4));
  });

  it("hostile strings in operationName and variables: refused before any upstream call, audited as refusals", async () => {
    const { id, token } = await t.account("mallory", 10_000);
    const calls = nodeCalls();
    const hostile = "Q\u0000\u001b[31m\u202e";
    const query = "query Q($t: TxId!) { transaction(txid: $t) { txid } }";
    const byName = await fetch(gateway(token), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query, operationName: hostile, variables: { t: HAL_TXID } }),
    });
    expect(byName.status).toBe(400);
    expect(await byName.json()).toEqual({
      errors: [
        {
          message: "Could not determine what operation to execute.",
          extensions: { code: "BAD_REQUEST" },
        },
      ],
    });
    const byValue = await gql(gateway(token), query, { t: `${HAL_TXID.slice(0, 60)}${hostile}` });
    expect(byValue.status).toBe(400);
    expect(byValue.body.errors![0]!.extensions).toEqual({ code: "BAD_USER_INPUT" });
    expect(byValue.body.extensions?.cost).toMatchObject({ charged: 0 });
    expect(nodeCalls()).toBe(calls);
    expect(await availableOf(id)).toBe(10_000);
    const rows = await auditRecords(db(), { accountId: id }, [
      "method",
      "outcome",
      "error_code",
      "charged_cc",
    ]);
    expect(rows).toEqual([
      { method: "graphql", outcome: "rejected", error_code: "BAD_REQUEST", charged_cc: 0 },
      { method: "graphql", outcome: "rejected", error_code: "INVALID_PARAMS", charged_cc: 0 },
    ]);
  });
});
