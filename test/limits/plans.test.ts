// Plans (src/limits/): request rates per token with a burst, calls in flight per account and
// credit caps, enforced before anything runs; a refused call is not executed and not charged,
// gets 429 with Retry-After and a code that tells a rate limit from credits, and every answer on
// a plan carries the IETF RateLimit-Policy / RateLimit fields.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setAccountPlan } from "../../src/billing/ledger/accounts.ts";
import { runDbCommand } from "../../src/cli/commands.ts";
import { auditRecords } from "../support/audit.ts";
import { callsRead } from "../support/core-calls.ts";
import { blockTxids, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { accountTotals, expectLedgerOk } from "../support/ledger.ts";

const TXIDS = blockTxids();
const PLANS = {
  plans: {
    // A one-second window of 5 calls per token, then 2 more per minute.
    starter: { token: { requestsPerSecond: 5, burst: 2 } },
    narrow: { concurrentCalls: 2 },
    // Three getrawtransaction calls on mainnet (200 CC each).
    capped: { creditsPerDay: 600 },
    // The same per monthly billing cycle: a window longer than a 32-bit setTimeout can hold.
    cycled: { creditsPerCycle: 600 },
  },
};

const node = (t: TestGateway, token: string) => `${t.url}/node/mainnet/${token}`;

describe("plans on one gateway (limits in memory)", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway("pglite", { networks: ["mainnet"], ...PLANS });
  });
  afterAll(() => t?.close());

  it("a token over its rate gets 429 RATE_LIMITED with Retry-After; refused calls never reach the node and cost nothing", async () => {
    const a = await t.account("rated", 1_000_000);
    await setAccountPlan(t.gateway.app.db, a.id, "starter");
    const core = t.devnet.cores.get("mainnet")!;
    const read = callsRead(core, "getrawtransaction");
    const started = performance.now();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(node(t, a.token), rpc("getrawtransaction", [TXIDS[i]!], i)),
      ),
    );
    const seconds = (performance.now() - started) / 1000;
    const ok = replies.filter((r) => r.status === 200);
    const limited = replies.filter((r) => r.status === 429);
    expect(ok.length + limited.length).toBe(20);
    // 5 in the first window and 2 of the burst; each window the race lasts into (one-second
    // windows from the first call: a busy machine stretches the race) lets 5 more through.
    expect(ok.length).toBeGreaterThanOrEqual(7);
    expect(ok.length).toBeLessThanOrEqual(5 * Math.ceil(seconds) + 2);
    for (const r of ok) {
      expect(r.headers.get("ratelimit-policy")).toBe("token;q=5;w=1, token-burst;q=2;w=60");
      expect(r.headers.get("ratelimit")).toMatch(/^token(-burst)?;r=\d+;t=\d+$/);
    }
    for (const r of limited) {
      expect(r.json).toMatchObject({
        jsonrpc: "2.0",
        error: { code: -32013, message: expect.stringContaining('plan "starter"') },
      });
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(r.headers.get("ratelimit")).toMatch(/;r=0;t=\d+$/);
      expect(r.headers.get("x-credits-charged")).toBeNull();
    }
    // Only the admitted calls were forwarded, and only they were charged.
    read.stop();
    expect(read.count()).toBe(ok.length);
    await t.gateway.app.authFailures.flush(true);
    const totals = await accountTotals(t.gateway.app.db, a.id);
    const charged = ok.reduce((s, r) => s + Number(r.headers.get("x-credits-charged")), 0);
    expect(totals.audit).toEqual([
      { outcome: "ok", n: ok.length, charged },
      // Refusals are one aggregated record standing for all of them.
      { outcome: "rate_limited", n: 1, charged: 0 },
    ]);
    const rows = await auditRecords(
      t.gateway.app.db,
      { accountId: a.id, outcome: "rate_limited" },
      ["calls", "error_code"],
    );
    expect(rows).toEqual([{ calls: limited.length, error_code: "RATE_LIMITED" }]);
  });

  it("each route refuses in its own protocol", async () => {
    const a = await t.account("rated-graphql", 1_000_000);
    await setAccountPlan(t.gateway.app.db, a.id, "starter");
    const query = { query: "{ account { balance } }" };
    const replies = await Promise.all(
      Array.from({ length: 12 }, () => post(`${t.url}/gateway/mainnet/${a.token}`, query)),
    );
    const limited = replies.filter((r) => r.status === 429);
    expect(limited.length).toBeGreaterThan(0);
    for (const r of limited) {
      expect(r.json).toMatchObject({ errors: [{ extensions: { code: "RATE_LIMITED" } }] });
    }
  });

  it("an account on no plan has credits only: no RateLimit fields", async () => {
    const a = await t.account("unplanned", 1_000);
    const r = await post(node(t, a.token), rpc("getrawtransaction", [TXIDS[0]!]));
    expect(r.status).toBe(200);
    expect(r.headers.get("ratelimit-policy")).toBeNull();
  });

  it("calls in flight past the plan's bound are refused at once; a finished call gives its slot back", async () => {
    const a = await t.account("narrow", 1_000_000);
    await setAccountPlan(t.gateway.app.db, a.id, "narrow");
    const core = t.devnet.cores.get("mainnet")!;
    const release = core.hold();
    const read = callsRead(core, "getrawtransaction");
    let held: Promise<Awaited<ReturnType<typeof post>>[]>;
    try {
      held = Promise.all(
        [0, 1].map((i) => post(node(t, a.token), rpc("getrawtransaction", [TXIDS[30 + i]!], i))),
      );
      await vi.waitFor(() => expect(read.count()).toBe(2), { interval: 10 });
      const third = await post(node(t, a.token), rpc("getrawtransaction", [TXIDS[32]!], 2));
      expect(third.status).toBe(429);
      expect(third.json).toMatchObject({ error: { code: -32013 } });
      expect(third.headers.get("ratelimit-policy")).toBe(
        'concurrency;q=2;qu="concurrent-requests"',
      );
      expect(third.headers.get("ratelimit")).toBe("concurrency;r=0;t=0");
    } finally {
      release();
      read.stop();
    }
    const answered = await held;
    expect(answered.map((r) => r.status)).toEqual([200, 200]);
    const after = await post(node(t, a.token), rpc("getrawtransaction", [TXIDS[33]!]));
    expect(after.status).toBe(200);
    expect(after.headers.get("ratelimit")).toBe("concurrency;r=1;t=0");
  });

  it("a month-long cycle cap holds in memory: three calls of 200 CC, then 429 CREDIT_CAP_REACHED", async () => {
    const a = await t.account("cycled", 1_000_000);
    await setAccountPlan(t.gateway.app.db, a.id, "cycled");
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push(
        (await post(node(t, a.token), rpc("getrawtransaction", [TXIDS[70 + i]!]))).status,
      );
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await post(node(t, a.token), rpc("getrawtransaction", [TXIDS[80]!]));
    expect(refused.json).toMatchObject({
      error: { code: -32014, message: expect.stringContaining("600 CC per billing cycle") },
    });
    // Until the cycle ends, which is weeks away: more than the 24.8 days a timer can count.
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(86_400);
  });

  it("the CLI puts an account on a plan; an unknown plan is refused", async () => {
    const a = await t.account("cli-plan", 10);
    const db = t.gateway.app.db;
    const config = t.gateway.app.config;
    const bad = await runDbCommand(db, ["account", "plan", String(a.id), "gold"], config);
    expect(bad.code).not.toBe(0);
    expect(bad.text).toContain('no plan "gold"');
    const set = await runDbCommand(db, ["account", "plan", String(a.id), "starter"], config);
    expect(set).toEqual({ code: 0, text: `account cli-plan (id ${a.id}) is on plan starter` });
    const list = await runDbCommand(db, ["account", "list"], config);
    expect(list.text).toMatch(new RegExp(`^${a.id}\\tcli-plan\\t.*\\tplan starter$`, "m"));
    // The running gateway was told: the next call already answers with the plan's fields.
    const r = await post(node(t, a.token), rpc("getrawtransaction", [TXIDS[40]!]));
    expect(r.headers.get("ratelimit-policy")).toContain("token;q=5;w=1");
    await runDbCommand(db, ["account", "plan", String(a.id), "default"], config);
    const back = await post(node(t, a.token), rpc("getrawtransaction", [TXIDS[41]!]));
    expect(back.headers.get("ratelimit-policy")).toBeNull();
  });
});

describe("credit caps", () => {
  let first: TestGateway;
  beforeAll(async () => {
    first = await startTestGateway("postgres", { networks: ["mainnet"], ...PLANS });
  });
  afterAll(() => first?.close());

  it("a call past the day's cap gets 429 CREDIT_CAP_REACHED, is not run or charged, and a restart does not reset the cap", async () => {
    const a = await first.account("capped", 1_000);
    await setAccountPlan(first.gateway.app.db, a.id, "capped");
    const answers = [];
    for (let i = 0; i < 4; i++) {
      answers.push(await post(node(first, a.token), rpc("getrawtransaction", [TXIDS[50 + i]!], i)));
    }
    const price = Number(answers[0]!.headers.get("x-credits-charged"));
    expect(price).toBeGreaterThan(0);
    // The cap allows as many calls as fit in it.
    const fit = Math.floor(600 / price);
    expect(fit).toBe(3);
    expect(answers.slice(0, fit).map((r) => r.status)).toEqual(Array(fit).fill(200));
    const refused = answers[fit]!;
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({
      error: {
        code: -32014,
        message: expect.stringContaining("Credit cap reached: 600 CC per day (UTC)"),
      },
    });
    const retryAfter = Number(refused.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(refused.headers.get("x-credits-charged")).toBe("0");

    // A second process on the same ledger starts its counter from what the ledger was charged.
    const second = await startTestGateway(
      "postgres",
      { networks: ["mainnet"], ...PLANS },
      first.schema!,
      { devnet: first.devnet },
    );
    try {
      const again = await post(node(second, a.token), rpc("getrawtransaction", [TXIDS[60]!]));
      expect(again.status).toBe(429);
      expect(again.json).toMatchObject({ error: { code: -32014 } });
    } finally {
      await second.close();
    }
    const totals = await accountTotals(first.gateway.app.db, a.id);
    const capped = totals.audit.find((r) => r.outcome === "credit_cap")!;
    expect(capped).toMatchObject({ charged: 0 });
    expect(totals.audit.find((r) => r.outcome === "ok")).toEqual({
      outcome: "ok",
      n: fit,
      charged: fit * price,
    });
    await expectLedgerOk(first.gateway.app.db, a.id);
  });
});
