import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditRecords, refuseAuditOf } from "../support/audit.ts";
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
])("hostile strings and failed settles (%s)", (store) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway(store);
  });
  afterAll(() => t.close());

  it("a method name holding U+0000 in a batch is refused before any upstream call; the batch's other calls are paid and audited", async () => {
    const { id, token } = await t.account("mallory", 1000);
    const core = t.devnet.cores.get("mainnet")!.stats;
    const callsBefore = core.calls;
    const res = await post(`${t.url}/node/mainnet/${token}`, [
      rpc("getrawtransaction", [HAL_TXID], 1),
      rpc("getraw\u0000transaction\u001b[31m", [HAL_TXID], 2),
    ]);
    expect(res.status).toBe(200);
    const [ok, refused] = res.json as [{ result: string }, { error: { code: number } }];
    expect(ok.result.startsWith("0100000001c997")).toBe(true);
    expect(refused.error.code).toBe(-32601);
    // One round trip for the valid call; the hostile one never left the gateway.
    expect(core.calls - callsBefore).toBe(1);

    const db = t.gateway.app.db;
    const rows = await auditRecords(db, { accountId: id }, ["method", "outcome", "charged_cc"]);
    expect(rows).toEqual([
      { method: "getrawtransaction", outcome: "ok", charged_cc: 200 },
      { method: "getraw\\u0000transaction\\u001b[31m", outcome: "rejected", charged_cc: 0 },
    ]);
    expect((await accountTotals(db, id)).account).toEqual({ balance: 800, held: 0 });
    await expectLedgerOk(db, id);
  });

  it("when a settle fails, the call is answered 500 and its hold is released at once, not by the sweeper", async () => {
    const { id, token } = await t.account("trent", 1000);
    const db = t.gateway.app.db;
    // A real database fault, injected in the database: this account's audit rows are refused.
    const lift = await refuseAuditOf(db, id);
    try {
      const res = await post(
        `${t.url}/node/mainnet/${token}`,
        rpc("getrawtransaction", [HAL_TXID]),
      );
      expect(res.status).toBe(500);
      expect(res.text).not.toContain("audit refused"); // internal detail stays in the log
      // Right after the answer: nothing charged, nothing held, the ledger consistent.
      expect((await accountTotals(db, id)).account).toEqual({ balance: 1000, held: 0 });
      await expectLedgerOk(db, id, { charged: 0, openHolds: 0 });
    } finally {
      await lift();
    }
  });
});
