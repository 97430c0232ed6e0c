import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { meter } from "../../src/billing/metering/pipeline.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf, expectLedgerOk } from "../support/ledger.ts";

/** A plan whose execute throws (a bug, not an upstream's failure) gives back what it reserved. */
describe.each([
  ["per-call holds", 0],
  ["credit leases", 1],
] as const)("a call whose work throws, with %s", (_name, leaseMinCalls) => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway("pglite", { ledger: { leaseMinCalls } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("charges nothing, holds nothing, and the account can still spend all it has", async () => {
    const { app } = t.gateway;
    const account = await t.account(`throws-${leaseMinCalls}`, 1_000);
    const ctx = {
      services: app,
      requestId: "req-throws",
      owner: { tokenId: account.tokenId, accountId: account.id, hint: "test" },
      backend: "node" as const,
      backendSegment: "node",
      network: "regtest" as const,
      startedAt: Date.now(),
    };
    const priced = { kind: "priced" as const, method: "getblockcount", price: 1_000 };
    await expect(
      meter(ctx, {
        calls: [priced],
        execute: async () => {
          throw new Error("a bug in the route");
        },
      }),
    ).rejects.toThrow("a bug in the route");
    expect(await balanceOf(app.db, account.id)).toMatchObject({ balance: 1_000, held: 0 });
    // Every credit is free again: a call priced at the whole balance is reserved and charged.
    const spent = await meter(ctx, {
      calls: [priced],
      execute: async () => ({
        value: null,
        outcomes: [{ kind: "answered", outcome: "ok", httpStatus: 200 }],
      }),
    });
    expect(spent.ok && spent.charged).toBe(1_000);
    await expectLedgerOk(app.db, account.id);
  });
});
