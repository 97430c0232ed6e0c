// Credit caps are money: when Redis cannot answer, two processes on one ledger do not each hold
// the cap on their own (which would let the account spend it twice); the ledger decides.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setAccountPlan } from "../../src/billing/ledger/accounts.ts";
import { priceOf } from "../../src/billing/pricing/prices.ts";
import { blockTxids, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { deadPort } from "../support/health.ts";
import { expectWholeLedgerOk } from "../support/ledger.ts";

const TXIDS = blockTxids();
const CALLS_IN_CAP = 6;

describe("a credit cap with Redis unreachable, two processes on one ledger", () => {
  let a: TestGateway;
  let b: TestGateway;
  let price: number;
  beforeAll(async () => {
    // Nothing listens there: every limits command fails at once (no offline queue).
    const redisUrl = `redis://127.0.0.1:${await deadPort()}`;
    const base = { networks: ["mainnet" as const] };
    a = await startTestGateway("postgres", base, undefined, { redisUrl });
    price = priceOf(a.gateway.app.config, "getrawtransaction", "mainnet")!;
    const config = { ...base, plans: { capped: { creditsPerDay: price * CALLS_IN_CAP } } };
    await a.close();
    a = await startTestGateway("postgres", config, undefined, { redisUrl });
    b = await startTestGateway("postgres", config, a.schema!, { redisUrl, devnet: a.devnet });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("holds across both: exactly the cap's calls answered, then 429 from either", async () => {
    const acc = await a.account("capped-no-redis", 10_000_000);
    await setAccountPlan(a.gateway.app.db, acc.id, "capped");
    const statuses: number[] = [];
    for (let i = 0; i < CALLS_IN_CAP * 2; i++) {
      const t = i % 2 === 0 ? a : b;
      const r = await post(
        `${t.url}/node/mainnet/${acc.token}`,
        rpc("getrawtransaction", [TXIDS[i % TXIDS.length]!], i),
      );
      statuses.push(r.status);
      if (r.status === 429) expect(r.json).toMatchObject({ error: { code: -32014 } });
    }
    expect(statuses).toEqual([
      ...Array<number>(CALLS_IN_CAP).fill(200),
      ...Array<number>(CALLS_IN_CAP).fill(429),
    ]);
    const metric = async (t: TestGateway) =>
      (await t.gateway.app.metrics.capsFromLedger.get()).values[0]?.value ?? 0;
    expect((await metric(a)) + (await metric(b))).toBeGreaterThanOrEqual(CALLS_IN_CAP * 2);
    await expectWholeLedgerOk(a.gateway.app.db);
  });
});
