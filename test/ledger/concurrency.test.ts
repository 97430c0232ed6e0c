import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  HAL_TXID,
  post,
  rpc,
  type StoreKind,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { accountTotals, expectLedgerOk } from "../support/ledger.ts";

describe.each<StoreKind>([
  "pglite",
  "postgres",
])("200 concurrent calls, credits for 50 (%s)", (store) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(store);
  });
  afterAll(() => t.close());

  it("exactly 50 succeed, 150 get 429, the balance ends at 0 and every call is audited", async () => {
    const { id, token } = await t.account("racer", 50 * 200);
    const url = `${t.url}/node/mainnet/${token}`;
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => post(url, rpc("getrawtransaction", [HAL_TXID], i))),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 429)).toHaveLength(150);
    for (const r of results.filter((x) => x.status === 429)) {
      expect(
        (r.json as { error: { data: { balance: number; required: number } } }).error.data.required,
      ).toBe(200);
    }

    const db = t.gateway.app.db;
    const totals = await accountTotals(db, id);
    expect(totals.account).toEqual({ balance: 0, held: 0 });
    expect(totals.audit).toEqual([
      { outcome: "insufficient_credits", n: 150, charged: 0 },
      { outcome: "ok", n: 50, charged: 10_000 },
    ]);
    // granted − Σ charges = balance, entries sum to the balance, audit and ledger agree.
    await expectLedgerOk(db, id, {
      granted: 10_000,
      charged: 10_000,
      auditCharged: 10_000,
      balance: 0,
    });
  });
});
