// When a JSON-RPC batch that combined several requests fails as a whole, each request fails as it
// would have alone — same status, same error — and none is charged (src/upstreams/bitcoin-core/
// combine.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { type BurstReply, burst } from "../support/burst.ts";
import { rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { accountTotals } from "../support/ledger.ts";

const TXIDS = [...loadDevnetChain().txIndex.keys()].slice(0, 40);

let t: TestGateway;
let account: { id: number; token: string };
beforeAll(async () => {
  t = await startTestGateway(
    "pglite",
    {
      networks: ["mainnet"],
      cache: { bytesMax: 0 },
      // Each case must reach Core to see its failure: a breaker opened by the previous case would
      // answer every call at once with UPSTREAM_UNAVAILABLE (test/upstreams/ covers breakers).
      failover: { breaker: { failuresMax: 1_000, windowCalls: 10_000 } },
    },
    undefined,
    // The timeout case waits this long three times; a loaded machine answers well within it.
    { coreClient: { timeoutMs: 1_000 } },
  );
  account = await t.account("dave", 100_000);
});
afterAll(() => t?.close());

const core = () => t.devnet.cores.get("mainnet")!;
const path = () => `/node/mainnet/${account.token}`;

/** A reply with its JSON-RPC ids taken out: what must be the same alone and combined. */
function withoutIds(reply: BurstReply) {
  const strip = (item: unknown) => {
    const { id: _id, ...rest } = item as Record<string, unknown>;
    return rest;
  };
  return {
    status: reply.status,
    body: Array.isArray(reply.json) ? reply.json.map(strip) : strip(reply.json),
  };
}

/**
 * One single call and one batch of three sent alone, then 16 single calls and two batches of three
 * sent together: every combined reply must equal its alone counterpart but for the ids, and each
 * must carry its own ids. Returns how many HTTP requests Core read for the burst.
 */
async function aloneThenCombined(expected: { status: number; code: string }) {
  const single = (i: number) => rpc("getrawtransaction", [TXIDS[i]!], `s${i}`);
  const batch = (b: number) =>
    [0, 1, 2].map((k) => rpc("getrawtransaction", [TXIDS[30 + b * 3 + k]!], `b${b}-${k}`));
  const [aloneSingle] = await burst(t.url, [{ path: path(), body: single(0) }]);
  const [aloneBatch] = await burst(t.url, [{ path: path(), body: batch(0) }]);
  expect(aloneSingle!.status).toBe(expected.status);
  expect((aloneSingle!.json as { error: { data: { code: string } } }).error.data.code).toBe(
    expected.code,
  );
  expect(withoutIds(aloneBatch!)).toEqual({
    status: expected.status,
    body: [0, 1, 2].map(() => withoutIds(aloneSingle!).body),
  });

  const before = core().stats.httpRequests;
  const replies = await burst(t.url, [
    ...Array.from({ length: 16 }, (_, i) => ({ path: path(), body: single(i + 1) })),
    { path: path(), body: batch(1) },
    { path: path(), body: batch(2) },
  ]);
  const read = core().stats.httpRequests - before;
  replies.slice(0, 16).forEach((r, i) => {
    expect(withoutIds(r)).toEqual(withoutIds(aloneSingle!));
    expect((r.json as { id: string }).id).toBe(`s${i + 1}`);
  });
  for (const b of [1, 2]) {
    const r = replies[16 + b - 1]!;
    expect(withoutIds(r)).toEqual(withoutIds(aloneBatch!));
    expect((r.json as { id: string }[]).map((x) => x.id)).toEqual(
      [0, 1, 2].map((k) => `b${b}-${k}`),
    );
  }
  return { read, calls: 1 + 3 + 16 + 6 };
}

/** Nothing charged, nothing left held, and one audit record per call, each a failure. */
async function expectNothingCharged(calls: number) {
  const totals = await accountTotals(t.gateway.app.db, account.id);
  expect(totals.account).toEqual({ balance: 100_000, held: 0 });
  expect(totals.audit).toEqual([{ outcome: "upstream_failure", n: calls, charged: 0 }]);
}

describe("a combined batch that fails fails every request in it, as each would fail alone", () => {
  let failed = 0;

  it("Core answers HTTP 500: 503 UPSTREAM_UNAVAILABLE for each, not charged", async () => {
    const restore = core().failWith(500);
    try {
      const { read, calls } = await aloneThenCombined({
        status: 503,
        code: "UPSTREAM_UNAVAILABLE",
      });
      // 18 requests reached Core in a handful of round trips: the failures were of combined batches.
      expect(read).toBeLessThanOrEqual(6);
      failed += calls;
    } finally {
      restore();
    }
    await expectNothingCharged(failed);
  });

  it("Core does not answer in time: 504 UPSTREAM_TIMEOUT for each, not charged", async () => {
    const release = core().hold();
    try {
      const { read, calls } = await aloneThenCombined({ status: 504, code: "UPSTREAM_TIMEOUT" });
      expect(read).toBeLessThanOrEqual(6);
      failed += calls;
    } finally {
      release();
    }
    await expectNothingCharged(failed);
  });

  it("Core is down: 503 UPSTREAM_UNAVAILABLE for each, not charged", async () => {
    await core().close();
    const { calls } = await aloneThenCombined({ status: 503, code: "UPSTREAM_UNAVAILABLE" });
    failed += calls;
    await expectNothingCharged(failed);
  });
});
