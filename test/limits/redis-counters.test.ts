// Credit caps and calls in flight counted in Redis by two gateway processes: a call's admission
// takes its token's last estimate from the caps in the script that counts its rates and slot, the
// cap phase claims it (taking more when the estimate is larger), and what the call did not cost
// goes back with its slot. Redis is the real server at REDIS_URL; the ledger is PostgreSQL.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setAccountPlan } from "../../src/billing/ledger/accounts.ts";
import { priceOf } from "../../src/billing/pricing/prices.ts";
import { capCounter, dayWindow } from "../../src/limits/spending-caps.ts";
import { callsRead } from "../support/core-calls.ts";
import { blockTxids, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { accountTotals, expectLedgerOk } from "../support/ledger.ts";
import { type RedisPair, redisPair } from "../support/redis-pair.ts";

const TXIDS = blockTxids();
/** Calls of getrawtransaction a cap holds. */
const FIT = 4;

describe("credit caps and calls in flight in Redis, two processes", () => {
  let pair: RedisPair;
  let a: TestGateway;
  let b: TestGateway;
  let price: number;
  const node = (t: TestGateway, token: string) => `${t.url}/node/mainnet/${token}`;
  /** What the day's cap counter in Redis says the account has spent or holds. */
  const counted = async (accountId: number) => {
    const { key } = capCounter(accountId, dayWindow(new Date(), price * FIT));
    return Number(await pair.redis.get(`${pair.redisKeyPrefix}${key}`));
  };
  const slots = (accountId: number) => pair.redis.zcard(`${pair.redisKeyPrefix}slots:${accountId}`);

  beforeAll(async () => {
    const probe = await startTestGateway("pglite", { networks: ["mainnet"] });
    price = priceOf(probe.gateway.app.config, "getrawtransaction", "mainnet")!;
    await probe.close();
    pair = await redisPair({
      networks: ["mainnet"],
      plans: {
        capped: { creditsPerDay: price * FIT, creditsPerCycle: price * 1_000 },
        single: { concurrentCalls: 1, creditsPerDay: price * FIT },
        three: { concurrentCalls: 3 },
      },
    });
    ({ a, b } = pair);
  });
  afterAll(() => pair?.close());

  it("a cap reached in one process is reached in the other, batches and guesses alike", async () => {
    const acc = await a.account("shared-cap", 10_000_000);
    await setAccountPlan(a.gateway.app.db, acc.id, "capped");
    const call = (t: TestGateway, i: number) =>
      post(node(t, acc.token), rpc("getrawtransaction", [TXIDS[i]!], i));
    // One call on each (each process learns the token's estimate), then a batch of two whose
    // estimate is above the guess its admission took: the cap is then spent.
    expect((await call(a, 0)).status).toBe(200);
    expect((await call(b, 1)).status).toBe(200);
    const batch = await post(node(a, acc.token), [
      rpc("getrawtransaction", [TXIDS[2]!], 2),
      rpc("getrawtransaction", [TXIDS[3]!], 3),
    ]);
    expect(batch.status).toBe(200);
    expect(Number(batch.headers.get("x-credits-charged"))).toBe(2 * price);
    for (const t of [b, a, b]) {
      const r = await call(t, 10);
      expect(r.status).toBe(429);
      expect(r.json).toMatchObject({
        error: {
          code: -32014,
          message: `Credit cap reached: ${price * FIT} CC per day (UTC), ${price * FIT} CC spent, ${price} CC required`,
        },
      });
    }
    // Every guess a refused call's admission took went back with its release.
    await vi.waitFor(async () => expect(await counted(acc.id)).toBe(price * FIT), {
      interval: 10,
    });
    const totals = await accountTotals(a.gateway.app.db, acc.id);
    expect(totals.audit.find((r) => r.outcome === "ok")).toMatchObject({ charged: price * FIT });
    await expectLedgerOk(a.gateway.app.db, acc.id);
  });

  it("what admission took goes back when the call is refused later or costs less", async () => {
    const acc = await a.account("cap-given-back", 10_000_000);
    await setAccountPlan(a.gateway.app.db, acc.id, "capped");
    expect((await post(node(a, acc.token), rpc("getrawtransaction", [TXIDS[20]!]))).status).toBe(
      200,
    );
    // Admitted with a guess of one call's price, then refused before any pricing (not JSON) or
    // priced at nothing (a method that costs nothing is refused as Core would): nothing is kept.
    const bad = await fetch(node(a, acc.token), { method: "POST", body: "{not json" });
    expect(bad.status).toBe(200);
    await bad.text();
    const unknown = await post(node(a, acc.token), rpc("nosuchmethod", []));
    expect(unknown.json).toMatchObject({ error: { code: -32601 } });
    await vi.waitFor(async () => expect(await counted(acc.id)).toBe(price), { interval: 10 });
    // The other process still finds three calls' room, and no more.
    const statuses: number[] = [];
    for (let i = 0; i < FIT; i++) {
      statuses.push(
        (await post(node(b, acc.token), rpc("getrawtransaction", [TXIDS[21 + i]!]))).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    await expectLedgerOk(a.gateway.app.db, acc.id);
  });

  it("a call whose upstream failed gives back its slot and its estimate", async () => {
    const acc = await a.account("failed-call", 10_000_000);
    await setAccountPlan(a.gateway.app.db, acc.id, "single");
    const ok = await post(node(a, acc.token), rpc("getrawtransaction", [TXIDS[40]!]));
    expect(ok.headers.get("ratelimit")).toBe("concurrency;r=0;t=0");
    const restore = a.devnet.cores.get("mainnet")!.failWith(500);
    try {
      const failed = await post(node(a, acc.token), rpc("getrawtransaction", [TXIDS[41]!]));
      expect(failed.status).not.toBe(200);
      expect(failed.headers.get("x-credits-charged")).toBe("0");
    } finally {
      restore();
    }
    await vi.waitFor(async () => expect(await slots(acc.id)).toBe(0), { interval: 10 });
    expect(await counted(acc.id)).toBe(price);
    // The one slot is free for the other process, and the cap has room for three more calls.
    for (let i = 0; i < FIT - 1; i++) {
      const r = await post(node(b, acc.token), rpc("getrawtransaction", [TXIDS[42 + i]!]));
      expect(r.status).toBe(200);
    }
    const past = await post(node(b, acc.token), rpc("getrawtransaction", [TXIDS[50]!]));
    expect(past.json).toMatchObject({ error: { code: -32014 } });
    await expectLedgerOk(a.gateway.app.db, acc.id);
  });

  it("one slot across both processes: a call held in one refuses the other's", async () => {
    const acc = await a.account("one-slot", 10_000_000);
    await setAccountPlan(a.gateway.app.db, acc.id, "single");
    const core = a.devnet.cores.get("mainnet")!;
    const read = callsRead(core, "getrawtransaction");
    const release = core.hold();
    let held: ReturnType<typeof post>;
    try {
      held = post(node(a, acc.token), rpc("getrawtransaction", [TXIDS[60]!]));
      await vi.waitFor(() => expect(read.count()).toBe(1), { interval: 10 });
      const other = await post(node(b, acc.token), rpc("getrawtransaction", [TXIDS[61]!]));
      expect(other.status).toBe(429);
      expect(other.json).toMatchObject({ error: { code: -32013 } });
    } finally {
      release();
      read.stop();
    }
    expect((await held).status).toBe(200);
    await vi.waitFor(async () => expect(await slots(acc.id)).toBe(0), { interval: 10 });
    expect((await post(node(b, acc.token), rpc("getrawtransaction", [TXIDS[62]!]))).status).toBe(
      200,
    );
  });

  it("calls admitted together each get their own verdict, and their slots all come back", async () => {
    const acc = await a.account("three-slots", 10_000_000);
    await setAccountPlan(a.gateway.app.db, acc.id, "three");
    const core = a.devnet.cores.get("mainnet")!;
    // Twice: the second round finds every slot of the first given back.
    for (const round of [0, 1]) {
      const read = callsRead(core, "getrawtransaction");
      const release = core.hold();
      let calls: ReturnType<typeof post>[] = [];
      let answered = 0;
      try {
        // Sent at once: their admissions share turns of the event loop, and so their scripts.
        calls = [0, 1, 2, 3, 4, 5].map((i) =>
          post(node(a, acc.token), rpc("getrawtransaction", [TXIDS[70 + round * 6 + i]!], i)).then(
            (r) => {
              answered += 1;
              return r;
            },
          ),
        );
        // Three held at the node, three refused, before the node lets the three go.
        await vi.waitFor(() => expect([read.count(), answered]).toEqual([3, 3]), {
          interval: 10,
          timeout: 10_000,
        });
      } finally {
        release();
        read.stop();
      }
      const answers = await Promise.all(calls);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429, 429]);
      for (const r of answers.filter((r) => r.status === 429)) {
        expect(r.json).toMatchObject({ error: { code: -32013 } });
      }
      await vi.waitFor(async () => expect(await slots(acc.id)).toBe(0), {
        interval: 10,
        timeout: 5_000,
      });
    }
  });
});
