import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { gql } from "../support/graphql.ts";
import { HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    server: { port: 0, bodyBytesMax: 16_384 },
    graphql: { depthMax: 4, aliasesMax: 3, listItemsMax: 10, tokensMax: 200 },
  });
});
afterAll(() => t.close());

const txids = () =>
  [...loadDevnetChain().byHash.values()]
    .find((b) => b.height === 277647)!
    .block.transactions.slice(0, 5)
    .map((x) => x.txid);

describe("credits", () => {
  it("an account that can pay for 3 lookups asking for 5 gets 429 and no data; balance untouched", async () => {
    const { id, token } = await t.account("three", 3 * 200);
    const calls = t.devnet.cores.get("mainnet")!.stats.calls;
    const res = await gql(
      `${t.url}/gateway/mainnet/${token}`,
      "query($t: [TxId!]!) { transactions(txids: $t) { txid } }",
      { t: txids() },
    );
    expect(res.status).toBe(429);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors![0]!.extensions).toMatchObject({
      code: "INSUFFICIENT_CREDITS",
      balance: 600,
      required: 1000,
    });
    expect(t.devnet.cores.get("mainnet")!.stats.calls).toBe(calls);
    expect(await balanceOf(t.gateway.app.db, id)).toMatchObject({ balance: 600, held: 0 });
  });

  it("{ __typename } costs 0 and is never blocked, even at a zero balance", async () => {
    const { token } = await t.account("broke", 0);
    const res = await gql(
      `${t.url}/gateway/mainnet/${token}`,
      "{ __typename account { available } }",
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ __typename: "Query", account: { available: 0 } });
    expect(res.body.extensions?.cost).toEqual({
      estimated: 0,
      actual: 0,
      charged: 0,
      balance: 0,
      calls: [],
    });
  });

  it("an upstream that is down is not charged", async () => {
    const { token } = await t.account("down", 1000);
    const core = t.devnet.cores.get("regtest")!;
    await core.close();
    const res = await gql(
      `${t.url}/gateway/regtest/${token}`,
      `{ transaction(txid: "${HAL_TXID}") { txid } }`,
    );
    expect(res.body.data).toEqual({ transaction: null });
    expect(res.body.errors![0]!.extensions!.code).toBe("UPSTREAM_UNAVAILABLE");
    expect(res.body.extensions?.cost).toMatchObject({
      estimated: 100,
      actual: 0,
      charged: 0,
      balance: 1000,
    });
  });
});

describe("bad input and limits get clear, coded errors", () => {
  let url: string;
  beforeAll(async () => {
    url = `${t.url}/gateway/mainnet/${(await t.account("limits", 100_000)).token}`;
  });

  it("a malformed TxId", async () => {
    const res = await gql(url, '{ transaction(txid: "xyz") { txid } }');
    expect(res.body.errors![0]!.extensions!.code).toBe("BAD_USER_INPUT");
    expect(res.body.errors![0]!.message).toContain("TxId must be 64 hexadecimal characters");
  });

  it("a syntax error", async () => {
    const res = await gql(url, "{ transaction(");
    expect(res.status).toBe(400);
    expect(res.body.errors![0]!.extensions!.code).toBe("GRAPHQL_PARSE_FAILED");
  });

  it("depth, aliases and list sizes", async () => {
    const fine = await gql(
      url,
      `{ transaction(txid: "${HAL_TXID}") { outputs { scriptPubKey { type } } } }`,
    );
    expect(fine.body.errors).toBeUndefined();
    const deep = await gql(
      url,
      `{ transaction(txid: "${HAL_TXID}") { inputs { prevout { scriptPubKey { type } } } } }`,
    );
    expect(deep.body.errors![0]!.extensions!.code).toBe("LIMIT_EXCEEDED");
    const aliases = await gql(
      url,
      "{ a: account { name } b: account { name } c: account { name } d: account { name } }",
    );
    expect(aliases.body.errors![0]!.extensions!.code).toBe("LIMIT_EXCEEDED");
    // As an invalid document: 400 to a client of application/graphql-response+json (gql sends
    // it), 200 to a legacy application/json one (the GraphQL over HTTP spec).
    expect(deep.status).toBe(400);
    expect(aliases.status).toBe(400);
    const legacy = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        query:
          "{ a: account { name } b: account { name } c: account { name } d: account { name } }",
      }),
    });
    expect(legacy.status).toBe(200);
    expect(JSON.stringify(await legacy.json())).toContain("LIMIT_EXCEEDED");
    const list = await gql(url, "query($t: [TxId!]!) { transactions(txids: $t) { txid } }", {
      t: Array.from({ length: 11 }, () => HAL_TXID),
    });
    expect(list.body.errors![0]).toMatchObject({
      extensions: { code: "LIMIT_EXCEEDED", limit: 10 },
    });
    // Every list argument, inside input objects too: a mutation's is refused before it runs.
    const tokens = async () => (await gql(url, "{ account { tokens { id } } }")).body.data;
    const before = await tokens();
    const scope = await gql(
      url,
      "mutation($s: TokenScopeInput) { createToken(scope: $s) { token } }",
      { s: { methods: Array.from({ length: 11 }, () => "getblockcount") } },
    );
    expect(scope.body.errors![0]).toMatchObject({
      message: "createToken: 11 items in the list scope.methods, at most 10 in one list",
      extensions: { code: "LIMIT_EXCEEDED", limit: 10, at: "createToken.scope.methods" },
    });
    expect(await tokens()).toEqual(before);
  });

  it("a document of too many tokens is refused before validation", async () => {
    const res = await gql(url, `{ ${"__typename ".repeat(300)}}`);
    expect(res.body.errors![0]!.extensions!.code).toBe("LIMIT_EXCEEDED");
    expect(res.body.errors![0]!.message).toMatch(/Token limit of 200 exceeded/);
  });

  it("a body over the limit: 413 in GraphQL's shape", async () => {
    const res = await gql(url, `{ __typename } # ${"x".repeat(20_000)}`);
    expect(res.status).toBe(413);
    expect(res.body.errors![0]!.extensions!.code).toBe("PAYLOAD_TOO_LARGE");
  });

  it("an unknown token: 401 in GraphQL's shape", async () => {
    const res = await gql(`${t.url}/gateway/mainnet/bgt_${"x".repeat(43)}`, "{ __typename }");
    expect(res.status).toBe(401);
    expect(res.body.errors![0]!.extensions!.code).toBe("UNAUTHENTICATED");
  });
});
