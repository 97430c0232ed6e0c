// Concurrent requests to the node route share JSON-RPC batches to Core
// (src/upstreams/bitcoin-core/combine.ts); each client still gets its own answers, ids and charges.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromHex } from "../../src/bitcoin/hex.ts";
import { parseTransaction } from "../../src/bitcoin/index.ts";
import type { WatchedCall } from "../../src/devnet/bitcoin-core/http.ts";
import { auditGrouped } from "../support/audit.ts";
import { burst } from "../support/burst.ts";
import {
  blockTxids,
  HAL_TXID,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { accountTotals } from "../support/ledger.ts";

const PRICE = 200; // getrawtransaction on mainnet
const NOT_FOUND = {
  code: -5,
  message: "No such mempool or blockchain transaction. Use gettransaction for wallet transactions.",
};

/** Real txids devnet's Core knows (block 277647's), distinct, in a stable order. */
const KNOWN = blockTxids();
/** Well-formed txids no chain has: Core answers -5. */
const unknown = (i: number) => (i + 1).toString(16).padStart(64, "f");

/** The txid of a raw transaction answer. */
const txidOf = (hex: unknown) => parseTransaction(fromHex(hex as string)).txid;

interface Reply {
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/** Every upstream request devnet's Core reads while `run` runs: its calls, in order. */
async function watching<T>(t: TestGateway, run: () => Promise<T>) {
  const core = t.devnet.cores.get("mainnet")!;
  const requests: WatchedCall[][] = [];
  const before = { ...core.stats };
  const stop = core.watch((calls) => requests.push(calls));
  try {
    const value = await run();
    return {
      value,
      requests,
      httpRequests: core.stats.httpRequests - before.httpRequests,
      calls: core.stats.calls - before.calls,
    };
  } finally {
    stop();
  }
}

/** The txids an upstream request asked for, in order. */
const txidsIn = (calls: WatchedCall[]) => calls.map((c) => (c.params as string[])[0]);

describe("combining on (the default, at most 16 calls per batch)", () => {
  let t: TestGateway;
  let alice: { id: number; token: string };
  let bob: { id: number; token: string };
  beforeAll(async () => {
    // No transaction cache: every call goes to Core, so Core's counts are the gateway's calls.
    t = await startTestGateway("pglite", { networks: ["mainnet"], cache: { bytesMax: 0 } });
    alice = await t.account("alice", 1_000_000);
    bob = await t.account("bob", 1_000_000);
  });
  afterAll(() => t?.close());

  it("50 concurrent single calls: far fewer round trips, each client its own id, answer and charge", async () => {
    // Two accounts interleaved, 50 different txids (identical calls in flight share one trip:
    // test/node/shared-trips.test.ts).
    const asks = Array.from({ length: 50 }, (_, i) => ({
      who: i % 2 === 0 ? alice : bob,
      id: i % 3 === 0 ? `client-${i}` : 1000 + i,
      txid: KNOWN[i]!,
    }));
    const seen = await watching(t, () =>
      burst(
        t.url,
        asks.map((a) => ({
          path: `/node/mainnet/${a.who.token}`,
          body: rpc("getrawtransaction", [a.txid], a.id),
        })),
      ),
    );
    seen.value.forEach((res, i) => {
      expect(res.status).toBe(200);
      expect(res.headers["x-credits-charged"]).toBe(String(PRICE));
      const reply = res.json as Reply;
      expect(reply.id).toEqual(asks[i]!.id);
      expect(txidOf(reply.result)).toBe(asks[i]!.txid);
    });
    // Every call reached Core once, as its own item; the round trips were combined.
    expect(seen.calls).toBe(50);
    expect(seen.requests.flat().length).toBe(50);
    expect(seen.httpRequests).toBe(seen.requests.length);
    expect(seen.httpRequests).toBeLessThanOrEqual(10);
    expect(Math.max(...seen.requests.map((r) => r.length))).toBeLessThanOrEqual(16);
    expect(txidsIn(seen.requests.flat()).sort()).toEqual(asks.map((a) => a.txid).sort());

    for (const who of [alice, bob]) {
      const totals = await accountTotals(t.gateway.app.db, who.id);
      expect(totals.audit).toEqual([{ outcome: "ok", n: 25, charged: 25 * PRICE }]);
      expect(totals.account).toEqual({ balance: 1_000_000 - 25 * PRICE, held: 0 });
    }

    // The metrics count the batches that combined requests, and the requests they combined.
    const combined = seen.requests.filter((r) => r.length > 1);
    const { values } = await t.gateway.app.metrics.coalescedRequests.get();
    const sample = (suffix: string) => values.find((v) => v.metricName?.endsWith(suffix))?.value;
    expect(sample("_count")).toBe(combined.length);
    expect(sample("_sum")).toBe(combined.reduce((n, r) => n + r.length, 0));
  });

  it("mixed: only the unknown txids get Core's -5, and a client's batch stays whole and in order", async () => {
    const singles = Array.from({ length: 24 }, (_, i) => ({
      id: i,
      txid: i % 4 === 3 ? unknown(i) : KNOWN[30 + i]!,
    }));
    // Three clients' batches of five, each with unknown txids among known ones.
    const batches = [0, 1, 2].map((b) =>
      Array.from({ length: 5 }, (_, k) => ({
        id: `b${b}-${k}`,
        txid: k % 2 === 1 ? unknown(100 + b * 5 + k) : KNOWN[60 + b * 5 + k]!,
      })),
    );
    const seen = await watching(t, () =>
      burst(t.url, [
        ...singles.map((s) => ({
          path: `/node/mainnet/${alice.token}`,
          body: rpc("getrawtransaction", [s.txid], s.id),
        })),
        ...batches.map((batch) => ({
          path: `/node/mainnet/${bob.token}`,
          body: batch.map((c) => rpc("getrawtransaction", [c.txid], c.id)),
        })),
      ]),
    );
    const expectAnswer = (reply: Reply, ask: { id: unknown; txid: string }) => {
      expect(reply.id).toEqual(ask.id);
      if (KNOWN.includes(ask.txid)) {
        expect(reply.error).toBeUndefined();
        expect(txidOf(reply.result)).toBe(ask.txid);
      } else {
        expect(reply).toEqual({ jsonrpc: "2.0", error: NOT_FOUND, id: ask.id });
      }
    };
    singles.forEach((s, i) => {
      expect(seen.value[i]!.status).toBe(200);
      expectAnswer(seen.value[i]!.json as Reply, s);
    });
    batches.forEach((batch, b) => {
      const res = seen.value[singles.length + b]!;
      expect(res.status).toBe(200);
      const replies = res.json as Reply[];
      expect(replies).toHaveLength(batch.length);
      batch.forEach((c, k) => {
        expectAnswer(replies[k]!, c);
      });
      // Upstream, the batch's calls travelled together, in the client's order, in one request.
      const carrying = seen.requests.filter((r) =>
        txidsIn(r).some((txid) => batch.some((c) => c.txid === txid)),
      );
      expect(carrying).toHaveLength(1);
      const txids = txidsIn(carrying[0]!);
      const at = txids.indexOf(batch[0]!.txid);
      expect(txids.slice(at, at + batch.length)).toEqual(batch.map((c) => c.txid));
    });
    expect(seen.calls).toBe(singles.length + 15);
    expect(seen.httpRequests).toBeLessThanOrEqual(8);

    // A -5 is an answer: charged, audited as Core's error, to the account that asked only.
    const misses = singles.filter((s) => !KNOWN.includes(s.txid)).length;
    const rows = await auditGrouped(
      t.gateway.app.db,
      { outcome: "upstream_error", upstreamCode: "-5" },
      "account_id",
      ["n"],
    );
    expect(rows).toEqual([
      { account_id: alice.id, n: misses },
      { account_id: bob.id, n: 6 },
    ]);
  });

  it("calls one at a time each go out alone", async () => {
    const seen = await watching(t, async () => {
      for (let i = 0; i < 5; i++) {
        const res = await post(
          `${t.url}/node/mainnet/${alice.token}`,
          rpc("getrawtransaction", [HAL_TXID], i),
        );
        expect((res.json as Reply).id).toBe(i);
      }
    });
    expect(seen.requests.map((r) => r.length)).toEqual([1, 1, 1, 1, 1]);
  });
});

describe("combining off (coalesceCallsMax: 0)", () => {
  let t: TestGateway;
  let token: string;
  beforeAll(async () => {
    t = await startTestGateway(
      "pglite",
      { networks: ["mainnet"], cache: { bytesMax: 0 } },
      undefined,
      { coreClient: { coalesceCallsMax: 0 } },
    );
    ({ token } = await t.account("carol", 1_000_000));
  });
  afterAll(() => t?.close());

  it("one upstream request per client request, a batch as it came", async () => {
    const path = `/node/mainnet/${token}`;
    const seen = await watching(t, () =>
      burst(t.url, [
        ...Array.from({ length: 20 }, (_, i) => ({
          path,
          body: rpc("getrawtransaction", [KNOWN[i]!], i),
        })),
        { path, body: [0, 1, 2].map((k) => rpc("getrawtransaction", [KNOWN[40 + k]!], `b${k}`)) },
      ]),
    );
    seen.value.slice(0, 20).forEach((res, i) => {
      expect((res.json as Reply).id).toBe(i);
      expect(txidOf((res.json as Reply).result)).toBe(KNOWN[i]);
    });
    expect(seen.httpRequests).toBe(21);
    expect(seen.requests.map((r) => r.length).sort()).toEqual([...Array(20).fill(1), 3]);
    expect((await t.gateway.app.metrics.coalescedRequests.get()).values).toEqual([]);
  });
});
