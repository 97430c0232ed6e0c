import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ERROR_CODES,
  GRAPHQL_CODES,
  graphqlCodeOf,
  httpStatusOf,
  jsonRpcCodeOf,
} from "../../src/protocol/errors/codes.ts";
import { auditRecords } from "../support/audit.ts";
import { gql } from "../support/graphql.ts";
import {
  HAL_TXID,
  post,
  rpc,
  type StoreKind,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";

describe("the closed error list", () => {
  it("gives every code a status, a JSON-RPC code and a GraphQL code of its own", () => {
    for (const code of ERROR_CODES) {
      expect(httpStatusOf(code)).toBeGreaterThanOrEqual(400);
      expect(Number.isInteger(jsonRpcCodeOf(code))).toBe(true);
    }
    // The unified API's codes are the list's, one each, so an answer can be read back.
    expect(new Set(GRAPHQL_CODES).size).toBe(ERROR_CODES.length);
    expect(GRAPHQL_CODES).toEqual(ERROR_CODES.map(graphqlCodeOf));
  });
});

/** Nothing internal in an answer: no parser's words, no originalError, no stack. */
function expectNoInternals(text: string): void {
  expect(text).not.toMatch(/originalError|stack|SyntaxError|at position|\bat \S+ \(/);
}

describe.each<StoreKind>(["pglite", "postgres"])("audit rows on %s", (store) => {
  let t: TestGateway;
  let token: string;
  let accountId: number;
  beforeAll(async () => {
    t = await startTestGateway(store, { graphql: { depthMax: 4 } });
    ({ id: accountId, token } = await t.account("errors", 1_000_000));
  });
  afterAll(() => t.close());

  it("hold only list codes in error_code, the upstream's own code beside it", async () => {
    const node = `${t.url}/node/mainnet/${token}`;
    await post(node, "{");
    await post(node, [
      rpc("getrawtransaction", ["00".repeat(32)]),
      rpc("nosuch", []),
      rpc("getrawtransaction", ["xyz"]),
      { x: 1 },
    ]);
    const electrum = `${t.url}/electrum/mainnet/${token}`;
    await post(electrum, [
      rpc("blockchain.transaction.get", ["00".repeat(32)]),
      rpc("nosuch", []),
      rpc("blockchain.transaction.get", [1]),
    ]);
    const graph = `${t.url}/graph/mainnet/${token}`;
    await post(graph, "{");
    await post(graph, { query: "{ nosuch { x } }" });
    await post(graph, { query: "{ block(limit: 100000) { height } }" });
    const gateway = `${t.url}/gateway/mainnet/${token}`;
    await post(gateway, "{");
    await gql(gateway, "{ transaction(");
    await gql(gateway, '{ transaction(txid: "xyz") { txid } }');
    await gql(
      gateway,
      `{ transaction(txid: "${HAL_TXID}") { inputs { prevout { scriptPubKey { type } } } } }`,
    );
    await gql(gateway, "{ __typename }", {}, { "x-dry-run": "true" });
    await post(`${t.url}/gateway/mainnet/bgt_${"x".repeat(43)}`, { query: "{ __typename }" });

    await t.gateway.app.authFailures.flush(true);
    // The account's records and those of no account (refused before a token was known).
    const columns = ["id", "backend", "method", "outcome", "error_code", "upstream_code"] as const;
    const rows = [
      ...(await auditRecords(t.gateway.app.db, { accountId }, columns)),
      ...(await auditRecords(t.gateway.app.db, { accountId: null }, columns)),
    ].sort((a, b) => a.id - b.id);
    expect(rows.length).toBeGreaterThanOrEqual(17);
    for (const row of rows) {
      if (row.error_code !== null) expect(ERROR_CODES).toContain(row.error_code);
    }
    const seen = rows.map((r) => [r.backend, r.outcome, r.error_code, r.upstream_code]);
    expect(seen).toEqual(
      expect.arrayContaining([
        ["node", "rejected", "INVALID_JSON", "-32700"],
        ["node", "upstream_error", "UPSTREAM_ERROR", "-5"],
        ["node", "rejected", "METHOD_NOT_FOUND", "-32601"],
        // Refused before forwarding, with Core's own -8 (txid of the wrong length).
        ["node", "rejected", "INVALID_PARAMS", "-8"],
        ["node", "rejected", "BAD_REQUEST", "-32600"],
        ["electrum", "upstream_error", "UPSTREAM_ERROR", "2"],
        ["electrum", "rejected", "METHOD_NOT_FOUND", "-32601"],
        ["electrum", "rejected", "INVALID_PARAMS", "1"],
        ["graph", "rejected", "INVALID_JSON", "invalid-json"],
        ["graph", "rejected", "GRAPHQL_VALIDATION_FAILED", "validation-failed"],
        ["graph", "rejected", "LIMIT_EXCEEDED", "page-size-exceeded"],
        ["gateway", "rejected", "INVALID_JSON", null],
        ["gateway", "rejected", "GRAPHQL_PARSE_FAILED", null],
        ["gateway", "rejected", "INVALID_PARAMS", null],
        ["gateway", "rejected", "LIMIT_EXCEEDED", null],
        ["gateway", "dry_run", null, null],
        ["gateway", "unauthenticated", "UNAUTHENTICATED", null],
      ]),
    );
  });
});

describe("the unified API answers in the user's terms", () => {
  let t: TestGateway;
  let url: string;
  beforeAll(async () => {
    t = await startTestGateway("pglite", { graphql: { depthMax: 4 } });
    url = `${t.url}/gateway/mainnet/${(await t.account("terms", 100_000)).token}`;
  });
  afterAll(() => t.close());

  it("a body that is not JSON: 400 INVALID_JSON, without the parser's text", async () => {
    const res = await post(url, "{");
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      errors: [
        { message: "the request body is not valid JSON", extensions: { code: "INVALID_JSON" } },
      ],
    });
    expectNoInternals(res.text);
  });

  it("a query nested too deep: LIMIT_EXCEEDED, not a syntax error", async () => {
    const res = await gql(
      url,
      `{ transaction(txid: "${HAL_TXID}") { inputs { prevout { scriptPubKey { type } } } } }`,
    );
    const error = res.body.errors![0]!;
    expect(error.extensions!.code).toBe("LIMIT_EXCEEDED");
    expect(error.message).not.toMatch(/syntax/i);
    expect(error.message).toMatch(/depth limit of 4 exceeded/i);
    expectNoInternals(JSON.stringify(res.body));
  });

  it("every code a refusal carries is in the list", async () => {
    const answers = await Promise.all([
      gql(url, "{ transaction("),
      gql(url, "{ nosuch }"),
      gql(url, '{ transaction(txid: "xyz") { txid } }'),
      fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "3" }),
      fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }),
    ]);
    for (const answer of answers) {
      const body = (
        "body" in answer && !(answer instanceof Response) ? answer.body : await answer.json()
      ) as { errors?: { extensions?: { code?: string } }[] };
      expect(body.errors?.length).toBeGreaterThan(0);
      for (const e of body.errors!) expect(GRAPHQL_CODES).toContain(e.extensions?.code);
      expectNoInternals(JSON.stringify(body));
    }
  });
});
