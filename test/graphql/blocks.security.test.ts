import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { gql } from "../support/graphql.ts";
import {
  BLOCK_170,
  type StoreKind,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { expectSpentExactly } from "../support/ledger.ts";

/**
 * What a client cannot make the gateway do through the delegated fields: look up more
 * transactions than it paid for, point a join at another column, nest past the depth limit,
 * spend credits twice under concurrency, or see a secret.
 */
const BLOCK_277647 = loadDevnetChain().byHeight.get(277647)!.block;

describe("blocks: what the price bounds", () => {
  let t: TestGateway;
  let url: string;
  let token: string;
  beforeAll(async () => {
    // No response cache: these tests count the round trips to Core, and filling the cache from
    // answers adds its own (getblockhash checks); the cache is tested in test/cache/.
    t = await startTestGateway("pglite", { cache: { bytesMax: 0 } });
    ({ token } = await t.account("probe", 1_000_000));
    url = `${t.url}/gateway/mainnet/${token}`;
  });
  afterAll(() => t.close());
  const core = () => t.devnet.cores.get("mainnet")!.stats;

  it("a join under a list without a limit runs for the rows it was priced for, and no more", async () => {
    expect(BLOCK_277647.transactions.length).toBe(213);
    const calls = core().calls;
    const res = await gql<{ block_by_pk: { transactions: { transaction: unknown }[] } }>(
      url,
      `{ block_by_pk(hash: "${BLOCK_277647.hash}") { transactions { hash transaction { txid } } } }`,
    );
    // Unbounded: the list is priced at graph.listSizeDefault (100) rows, so 100 lookups.
    const rows = res.body.data!.block_by_pk.transactions;
    expect(rows).toHaveLength(213);
    expect(rows.filter((r) => r.transaction !== null)).toHaveLength(100);
    expect(core().calls - calls).toBe(100);
    const errors = res.body.errors!;
    expect(errors).toHaveLength(113);
    expect(errors[0]).toMatchObject({
      path: ["block_by_pk", "transactions", 100, "transaction"],
      extensions: { code: "LIMIT_EXCEEDED" },
    });
    // block_by_pk 1 + transactions 2×2×1 + hash 3×1×100 = 305; 100 lookups at 200 CC.
    const price = 300 + 305 + 100 * 200;
    expect(res.body.extensions?.cost).toMatchObject({
      estimated: price,
      actual: price,
      charged: price,
    });
  });

  it("a client cannot alias a column to a join key's name and redirect the join", async () => {
    const calls = core().calls;
    const res = await gql(
      url,
      `{ block_by_pk(hash: "${BLOCK_170}") { transactions { _join_hash: size_bytes transaction { txid } } } }`,
    );
    expect(res.body.data ?? null).toBeNull();
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message:
          "block_by_pk.transactions._join_hash: aliases beginning with _join_ are kept for the gateway's join keys",
        extensions: { code: "BAD_USER_INPUT" },
      }),
    ]);
    expect(core().calls).toBe(calls);
  });

  it("nesting through the joins stops at the unified API's depth limit, before anything runs", async () => {
    const indexer = t.devnet.indexers.get("mainnet")!.stats.httpRequests;
    const res = await gql(
      url,
      `{ block(limit: 1) { transactions(limit: 1) { transaction { block { transactions(limit: 1) {
        transaction { block { transactions(limit: 1) { transaction { block { transactions(limit: 1) {
        transaction { block { height } } } } } } } } } } } } } }`,
    );
    expect(res.body.errors![0]!.extensions!.code).toBe("LIMIT_EXCEEDED");
    expect(t.devnet.indexers.get("mainnet")!.stats.httpRequests).toBe(indexer);
  });

  it("no token, no query: 401 before the indexer hears of it", async () => {
    const indexer = t.devnet.indexers.get("mainnet")!.stats.httpRequests;
    const res = await gql(`${t.url}/gateway/mainnet/bgt_nope`, "{ block(limit: 1) { height } }");
    expect(res.status).toBe(401);
    expect(t.devnet.indexers.get("mainnet")!.stats.httpRequests).toBe(indexer);
  });

  it("neither the indexer's admin secret nor the token appears in answers or logs", async () => {
    // A gateway of its own, so that its indexer can be held past a short timeout.
    const slow = await startTestGateway("pglite", { graph: { queryTimeoutMs: 200 } });
    const indexer = slow.devnet.indexers.get("mainnet")!;
    const release = indexer.hold();
    try {
      const { token: tk } = await slow.account("s", 10_000);
      const timedOut = await gql(
        `${slow.url}/gateway/mainnet/${tk}`,
        "{ block(limit: 1) { height } }",
      );
      expect(timedOut.body.errors![0]!.extensions!.code).toBe("UPSTREAM_TIMEOUT");
      const refused = await gql(
        `${slow.url}/gateway/mainnet/${tk}`,
        "{ block(where: {height: {_eq: null}}) { height } }",
      );
      expect(refused.body.errors![0]!.extensions!.code).toBe("BAD_USER_INPUT");
      for (const text of [JSON.stringify([timedOut.body, refused.body]), ...slow.logs]) {
        expect(text).not.toContain(indexer.secret);
        expect(text).not.toContain(tk);
      }
    } finally {
      release();
      await slow.close();
    }
  });
});

describe.each<StoreKind>(["pglite", "postgres"])("blocks: concurrent spending (%s)", (store) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(store);
  });
  afterAll(() => t.close());

  it("lets exactly as many block queries through as the credits pay for", async () => {
    // block 1×2×1 + height, hash 2 × (2×1×2) + transactions 2×2×2 + hash 3×1×(2×2) = 30 → 330 CC,
    // and 4 joined transactions at 200 CC: 1130 CC each.
    const query =
      "{ block(limit: 2, order_by: {height: desc}) { height hash transactions(limit: 2) { hash transaction { txid } } } }";
    const price = 330 + 4 * 200;
    const paid = 5;
    const { id, token } = await t.account("racer", paid * price);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => gql(`${t.url}/gateway/mainnet/${token}`, query)),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(paid);
    expect(results.filter((r) => r.status === 429)).toHaveLength(20 - paid);
    for (const r of results.filter((x) => x.status === 200)) {
      expect(r.body.errors).toBeUndefined();
      expect(r.body.extensions?.cost).toMatchObject({ charged: price });
    }
    await expectSpentExactly(t.gateway.app.db, id, { paid, refused: 20 - paid, price });
  });
});
