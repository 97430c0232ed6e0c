import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { latestAudit } from "../../src/billing/usage/usage.ts";
import { type StoreKind, startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectLedgerOk, expectSpentExactly } from "../support/ledger.ts";
import { available, type GraphAnswer, viaGateway } from "./support.ts";

// 300 + (1×2×1 + 2×1×10 + 2×1×10) = 342 CC on mainnet.
const QUERY = "{ block(limit: 10, order_by: {height: desc}) { height hash } }";
const PRICE = 342;

describe("graph route: not enough credits", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway();
  });
  afterAll(() => t.close());

  it("answers 429 naming balance and required, with no data, nothing forwarded, nothing taken", async () => {
    const { id, token } = await t.account("short", PRICE - 1);
    const indexer = t.devnet.indexers.get("mainnet")!;
    const before = indexer.stats.httpRequests;
    const res = await viaGateway(t, token, { query: QUERY });
    expect(res.status).toBe(429);
    const answer = res.json as GraphAnswer;
    expect(answer.data).toBeUndefined();
    expect(answer.errors).toEqual([
      {
        message: `Insufficient credits: ${PRICE - 1} CC available, ${PRICE} CC required`,
        extensions: { code: "INSUFFICIENT_CREDITS", balance: PRICE - 1, required: PRICE },
      },
    ]);
    expect(res.headers.get("x-credits-charged")).toBe("0");
    expect(res.headers.get("x-credits-balance")).toBe(String(PRICE - 1));
    expect(indexer.stats.httpRequests).toBe(before);
    expect(await available(t, id)).toBe(PRICE - 1);
    const [record] = await latestAudit(t.gateway.app.db, id, 1);
    expect(record).toMatchObject({
      outcome: "insufficient_credits",
      http_status: 429,
      estimated_cc: PRICE,
      charged_cc: 0,
      complexity: PRICE - 300,
    });
    // Introspection touches no table: free, so never blocked by the balance.
    const free = await viaGateway(t, token, { query: "{ __typename }" });
    expect(free.status).toBe(200);
  });

  it("charges exactly the balance when the price equals it", async () => {
    const { id, token } = await t.account("exact", PRICE);
    expect((await viaGateway(t, token, { query: QUERY })).status).toBe(200);
    expect(await available(t, id)).toBe(0);
    expect((await viaGateway(t, token, { query: QUERY })).status).toBe(429);
  });
});

describe.each<StoreKind>([
  "pglite",
  "postgres",
])("graph route: concurrent spending (%s)", (store) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(store);
  });
  afterAll(() => t.close());

  it("lets exactly as many queries through as the credits pay for, and the ledger checks out", async () => {
    const paid = 12;
    const { id, token } = await t.account("racer", paid * PRICE);
    const results = await Promise.all(
      Array.from({ length: 60 }, () => viaGateway(t, token, { query: QUERY })),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(paid);
    expect(statuses.filter((s) => s === 429)).toHaveLength(60 - paid);
    for (const r of results.filter((x) => x.status === 200)) {
      expect((r.json as GraphAnswer).data!.block).toHaveLength(10);
    }
    await expectSpentExactly(t.gateway.app.db, id, { paid, refused: 60 - paid, price: PRICE });
  });
});

describe("graph route: two gateways on one PostgreSQL ledger", () => {
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    a = await startTestGateway("postgres");
    b = await startTestGateway("postgres", {}, a.schema!);
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it("never spends more than the balance across processes", async () => {
    const paid = 8;
    const { id, token } = await a.account("shared", paid * PRICE);
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => viaGateway(i % 2 ? a : b, token, { query: QUERY })),
    );
    expect(results.filter((r) => r.status === 200)).toHaveLength(paid);
    expect(results.filter((r) => r.status === 429)).toHaveLength(40 - paid);
    expect(await available(a, id)).toBe(0);
    await expectLedgerOk(a.gateway.app.db, id, { balance: 0, held: 0 });
  });
});
