import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";

/**
 * A lease a process stops using goes back within about ledger.leaseIdleMs, whatever the
 * heartbeat's period (a quarter of holdTimeoutMs: 30 s by default), so the credits it held are
 * the account's again — for its other processes and its last, per-call, holds.
 */
const IDLE_MS = 1_000;

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway("pglite", { ledger: { leaseIdleMs: IDLE_MS } });
});
afterAll(() => t.close());

async function leased(accountId: number): Promise<number> {
  return Number((await balanceOf(t.gateway.app.db, accountId)).leased);
}

describe("idle credit leases", () => {
  it("go back within twice leaseIdleMs of the last call, long before the heartbeat", async () => {
    expect(t.gateway.app.config.ledger.holdTimeoutMs / 4).toBeGreaterThan(10 * IDLE_MS);
    const { id, token } = await t.account("idle", 1_000_000);
    const url = `${t.url}/node/mainnet/${token}`;
    for (let i = 0; i < 3; i++) {
      expect((await post(url, rpc("getblockcount", []))).status).toBe(200);
    }
    const lastCall = Date.now();
    expect((await post(url, rpc("getblockcount", []))).status).toBe(200);
    expect(await leased(id)).toBeGreaterThan(0);
    await vi.waitFor(async () => expect(await leased(id)).toBe(0), {
      timeout: 4 * IDLE_MS,
      interval: 20,
    });
    expect(Date.now() - lastCall).toBeLessThanOrEqual(2 * IDLE_MS);
    // What the lease did not spend is the account's again.
    expect(await balanceOf(t.gateway.app.db, id)).toMatchObject({
      balance: 1_000_000 - 4 * 20,
      held: 0,
    });
  });
});
