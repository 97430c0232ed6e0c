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
import { sized } from "../support/size.ts";

/** Calls sent at once, four times as many as the credits pay for (200 credits a call). */
const CALLS = sized(80, 200);
const PAID = CALLS / 4;

describe.each<StoreKind>([
  "pglite",
  "postgres",
])(`${CALLS} concurrent calls, credits for ${PAID} (%s)`, (store) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(store);
  });
  afterAll(() => t.close());

  it(`exactly ${PAID} succeed, ${CALLS - PAID} get 429, the balance ends at 0 and every call is audited`, async () => {
    const { id, token } = await t.account("racer", PAID * 200);
    const url = `${t.url}/node/mainnet/${token}`;
    const results = await Promise.all(
      Array.from({ length: CALLS }, (_, i) => post(url, rpc("getrawtransaction", [HAL_TXID], i))),
    );
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(PAID);
    expect(statuses.filter((s) => s === 429)).toHaveLength(CALLS - PAID);
    for (const r of results.filter((x) => x.status === 429)) {
      expect(
        (r.json as { error: { data: { balance: number; required: number } } }).error.data.required,
      ).toBe(200);
    }

    const db = t.gateway.app.db;
    const totals = await accountTotals(db, id);
    expect(totals.account).toEqual({ balance: 0, held: 0 });
    expect(totals.audit).toEqual([
      { outcome: "insufficient_credits", n: CALLS - PAID, charged: 0 },
      { outcome: "ok", n: PAID, charged: PAID * 200 },
    ]);
    // granted − Σ charges = balance, entries sum to the balance, audit and ledger agree.
    await expectLedgerOk(db, id, {
      granted: PAID * 200,
      charged: PAID * 200,
      auditCharged: PAID * 200,
      balance: 0,
    });
  });
});
