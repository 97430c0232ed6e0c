// Upstream resilience (src/upstreams/failover.ts): two devnet Cores, each in a
// process of its own, behind one gateway, under a load of concurrent calls. One killed, or one
// frozen (SIGSTOP: its port still accepts connections, nothing answers): clients see no error,
// each call is charged once. Both gone: 503 UPSTREAM_UNAVAILABLE, nothing charged.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkLedger } from "../../src/billing/ledger/ledger.ts";
import { auditByOutcome } from "../support/audit.ts";
import { type CoreProcess, nodeEntries, startCoreProcess } from "../support/core-process.ts";
import { blockTxids, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";

const PRICE = 200; // getrawtransaction on mainnet
const TXIDS = blockTxids();
const WORKERS = 8;
const HEDGE_MAX_MS = 200;
// Long, so that a call that waited for an attempt to time out stands out from one slowed by a
// busy machine.
const ATTEMPT_TIMEOUT_MS = 5_000;

interface Result {
  status: number;
  ms: number;
  code: string | undefined;
  /** Results before it: where it falls relative to a kill or a freeze. */
  at: number;
}

/**
 * Concurrent clients calling getrawtransaction (distinct txids, the cache off, so every call
 * reaches a Core) until stopped. `after(n)` resolves once n more calls have been answered: the
 * load itself is the clock, nothing sleeps.
 */
function load(url: string) {
  const results: Result[] = [];
  const waiting: { count: number; resolve: () => void }[] = [];
  let stopped = false;
  let next = 0;
  const worker = async () => {
    while (!stopped) {
      const i = next++;
      const started = performance.now();
      const res = await post(url, rpc("getrawtransaction", [TXIDS[i % TXIDS.length]!], i));
      const error = (res.json as { error?: { data?: { code?: string } } } | undefined)?.error;
      results.push({
        status: res.status,
        ms: performance.now() - started,
        code: error?.data?.code,
        at: results.length,
      });
      for (const w of waiting.filter((x) => results.length >= x.count)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve();
      }
    }
  };
  const workers = Array.from({ length: WORKERS }, worker);
  return {
    results,
    after(n: number): Promise<number> {
      const count = results.length + n;
      return new Promise((resolve) => waiting.push({ count, resolve: () => resolve(count) }));
    },
    async stop(): Promise<Result[]> {
      stopped = true;
      await Promise.all(workers);
      return results;
    },
  };
}

async function gatewayOn(cores: CoreProcess[]): Promise<TestGateway> {
  return startTestGateway("pglite", {
    networks: ["mainnet"],
    cache: { bytesMax: 0, blockBytesMax: 0 },
    upstreams: { node: { mainnet: nodeEntries(cores) } },
    failover: {
      attemptTimeoutMs: { node: ATTEMPT_TIMEOUT_MS },
      hedge: { maxMs: HEDGE_MAX_MS },
      healthCheckIntervalMs: 500,
    },
  });
}

/** The account's audit rows by outcome, and the ledger check. */
async function books(t: TestGateway, accountId: number) {
  const rows = await auditByOutcome(t.gateway.app.db, { accountId });
  const check = (await checkLedger(t.gateway.app.db)).find((c) => c.accountId === accountId)!;
  return { rows, check };
}

/** A counter or gauge's value for one upstream (by its host:port). */
async function metricOf(t: TestGateway, name: string, upstream: string): Promise<number> {
  const metric = t.gateway.app.metrics.registry.getSingleMetric(name);
  const values = (await metric!.get()).values;
  return values.find((v) => v.labels.upstream === upstream)?.value ?? 0;
}

const hostOf = (core: CoreProcess) => new URL(core.url).host;

// Two Core processes for the file (each a process start, Core's modules compiled by tsx): the
// freeze below thaws its Core again, and the kills come after it, each scenario with a gateway
// (and so breakers and pools) of its own.
let cores: CoreProcess[] = [];
beforeAll(async () => {
  cores = await Promise.all([startCoreProcess(), startCoreProcess()]);
});
afterAll(() => Promise.all(cores.map((c) => c.stop())));

describe("one of two Cores frozen (SIGSTOP) under load", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await gatewayOn(cores);
  });
  afterAll(async () => {
    // Thawed even when the test did not get to its own thaw (a timeout): the next scenario
    // needs both Cores answering.
    cores[0]?.thaw();
    await t?.close();
  });

  it("no client error, no call waits an attempt timeout, and the frozen one's breaker opens", async () => {
    const { id, token } = await t.account("frozen", 10_000_000);
    const run = load(`${t.url}/node/mainnet/${token}`);
    const [frozen, live] = cores as [CoreProcess, CoreProcess];
    await run.after(40);
    frozen.freeze();
    const frozenAt = run.results.length;
    try {
      await run.after(200);
    } finally {
      frozen.thaw();
    }
    const results = await run.stop();

    // Hedged around after at most the hedge delay; an attempt timeout was never what a client
    // waited for (the machine is shared: the margin is for its load, not for the mechanism).
    const afterFreeze = results.filter((r) => r.at >= frozenAt);
    const slowest = Math.max(...afterFreeze.map((r) => r.ms));
    expect({ failed: results.filter((r) => r.status !== 200), slowest }).toEqual({
      failed: [],
      slowest: expect.any(Number),
    });
    expect(slowest).toBeLessThan(ATTEMPT_TIMEOUT_MS / 2);
    expect(
      await metricOf(t, "blockgate_upstream_breaker_opens_total", hostOf(frozen)),
    ).toBeGreaterThanOrEqual(1);
    expect(await metricOf(t, "blockgate_upstream_hedges_total", hostOf(live))).toBeGreaterThan(0);
    // One charge per client call, however many attempts it took.
    const { rows, check } = await books(t, id);
    expect(rows).toEqual([{ outcome: "ok", n: results.length, charged: results.length * PRICE }]);
    expect(check).toMatchObject({ ok: true, held: 0, charged: results.length * PRICE });
  });
});

describe("one of two Cores killed under load, then the other", () => {
  let t: TestGateway;
  let accountId: number;
  let token: string;
  beforeAll(async () => {
    t = await gatewayOn(cores);
    ({ id: accountId, token } = await t.account("killed", 10_000_000));
  });
  afterAll(() => t?.close());

  it("one killed: no client error, each call charged once, its breaker opens", async () => {
    const run = load(`${t.url}/node/mainnet/${token}`);
    await run.after(40);
    await cores[1]!.kill();
    await run.after(200);
    const results = await run.stop();

    expect(results.filter((r) => r.status !== 200)).toEqual([]);
    expect(
      await metricOf(t, "blockgate_upstream_breaker_opens_total", hostOf(cores[1]!)),
    ).toBeGreaterThanOrEqual(1);
    const { rows, check } = await books(t, accountId);
    expect(rows).toEqual([{ outcome: "ok", n: results.length, charged: results.length * PRICE }]);
    expect(check).toMatchObject({ ok: true, held: 0 });
  });

  it("both killed: 503 UPSTREAM_UNAVAILABLE, nothing charged", async () => {
    await cores[0]!.kill();
    const before = await books(t, accountId);
    const url = `${t.url}/node/mainnet/${token}`;
    // The first calls find both refusing; once their breakers are open, calls fail at once.
    const replies = [];
    for (let i = 0; i < 10; i++)
      replies.push(await post(url, rpc("getrawtransaction", [TXIDS[i]!], i)));
    for (const r of replies) {
      expect(r.status).toBe(503);
      expect(r.json).toMatchObject({
        jsonrpc: "2.0",
        error: { code: -32020, data: { code: "UPSTREAM_UNAVAILABLE" } },
      });
    }
    const after = await books(t, accountId);
    expect(after.check.balance).toBe(before.check.balance);
    expect(after.rows).toContainEqual({ outcome: "upstream_failure", n: 10, charged: 0 });
    expect(after.check).toMatchObject({ ok: true, held: 0 });
  });
});
