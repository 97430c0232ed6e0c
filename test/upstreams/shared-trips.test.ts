// Identical upstream requests in flight share one trip (src/upstreams/
// shared-trips.ts): N concurrent identical calls make one upstream call, and each client is still
// charged its own price, gets its own audit row and its own JSON-RPC id. The upstream is held
// (devnet's gates) until every client has joined the trip, so the trip is in flight for all of them.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Json, jsonNumber, stringifyJson } from "../../src/protocol/json/json.ts";
import { paramsKey } from "../../src/upstreams/bitcoin-core/pool.ts";
import { auditGrouped } from "../support/audit.ts";
import { burst } from "../support/burst.ts";
import { callsRead } from "../support/core-calls.ts";
import {
  blockTxids,
  HAL_TXID,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";

const N = 20;
const BLOCK_TXIDS = blockTxids();

interface Reply {
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

/** An account's audit records by outcome: how many, their charges, how many requests. */
const auditOf = (t: TestGateway, accountId: number) =>
  auditGrouped(t.gateway.app.db, { accountId }, "outcome", ["n", "charged", "requests"]);

describe("identical requests in flight share one upstream trip", () => {
  let t: TestGateway;
  beforeAll(async () => {
    // No response cache: only sharing can save a trip here.
    t = await startTestGateway("pglite", { networks: ["mainnet"], cache: { bytesMax: 0 } });
  });
  afterAll(() => t?.close());

  /** Sends the requests while the upstream holds, releasing it once `joined` callers joined. */
  async function whileHeld<T>(
    hold: () => () => void,
    joined: () => number,
    expected: number,
    send: () => Promise<T>,
  ): Promise<T> {
    const before = joined();
    const release = hold();
    const sent = send();
    try {
      await vi.waitFor(() => expect(joined() - before).toBe(expected), { timeout: 20_000 });
    } finally {
      release();
    }
    return sent;
  }

  it(`node: ${N} identical getrawtransaction calls → one call to Core, ${N} charges, ${N} audit rows, each its own id`, async () => {
    const who = await t.account("node-sharers", 1_000_000);
    const core = t.devnet.cores.get("mainnet")!;
    const pool = t.gateway.app.nodes.get("mainnet")!;
    const read = callsRead(core, "getrawtransaction");
    const replies = await whileHeld(
      () => core.hold(),
      () => pool.shared.stats.joined,
      N - 1,
      () =>
        burst(
          t.url,
          Array.from({ length: N }, (_, i) => ({
            path: `/node/mainnet/${who.token}`,
            body: rpc("getrawtransaction", [HAL_TXID, true], `client-${i}`),
          })),
        ),
    );
    read.stop();
    expect(read.count()).toBe(1);
    replies.forEach((r, i) => {
      expect(r.status).toBe(200);
      expect(r.headers["x-credits-charged"]).toBe("200");
      const reply = r.json as Reply;
      expect(reply.id).toBe(`client-${i}`);
      expect((reply.result as { txid: string }).txid).toBe(HAL_TXID);
    });
    expect(await auditOf(t, who.id)).toEqual([
      { outcome: "ok", n: N, charged: N * 200, requests: N },
    ]);
  });

  it("node: different calls are not merged, identical ones inside are", async () => {
    const who = await t.account("node-mixed", 1_000_000);
    const core = t.devnet.cores.get("mainnet")!;
    const pool = t.gateway.app.nodes.get("mainnet")!;
    const seen: string[] = [];
    const stop = core.watch((calls) => {
      for (const c of calls) seen.push((c.params as string[])[0]!);
    });
    // Four different txids, each asked by three clients.
    const txids = BLOCK_TXIDS.slice(0, 4);
    const replies = await whileHeld(
      () => core.hold(),
      () => pool.shared.stats.joined,
      8,
      () =>
        burst(
          t.url,
          Array.from({ length: 12 }, (_, i) => ({
            path: `/node/mainnet/${who.token}`,
            body: rpc("getrawtransaction", [txids[i % 4]!], i),
          })),
        ),
    );
    stop();
    expect(seen.sort()).toEqual([...txids].sort());
    replies.forEach((r, i) => {
      const reply = r.json as Reply;
      expect(reply.id).toBe(i);
      expect(typeof reply.result).toBe("string");
    });
    expect(await auditOf(t, who.id)).toEqual([
      { outcome: "ok", n: 12, charged: 12 * 200, requests: 12 },
    ]);
  });

  it("node: an RPC error (-5) is shared and charged to each; a failed trip is shared and charged to none", async () => {
    const who = await t.account("node-errors", 1_000_000);
    const core = t.devnet.cores.get("mainnet")!;
    const pool = t.gateway.app.nodes.get("mainnet")!;
    const missing = "f".repeat(64);
    const read = callsRead(core, "getrawtransaction");
    const misses = await whileHeld(
      () => core.hold(),
      () => pool.shared.stats.joined,
      N - 1,
      () =>
        burst(
          t.url,
          Array.from({ length: N }, (_, i) => ({
            path: `/node/mainnet/${who.token}`,
            body: rpc("getrawtransaction", [missing], i),
          })),
        ),
    );
    read.stop();
    expect(read.count()).toBe(1);
    for (const r of misses) expect((r.json as Reply).error?.code).toBe(-5);

    const failing = core.failWith(503);
    try {
      const failed = await whileHeld(
        () => core.hold(),
        () => pool.shared.stats.joined,
        N - 1,
        () =>
          burst(
            t.url,
            Array.from({ length: N }, (_, i) => ({
              path: `/node/mainnet/${who.token}`,
              body: rpc("getrawtransaction", [HAL_TXID], i),
            })),
          ),
      );
      for (const r of failed) {
        expect(r.status).toBe(503);
        expect((r.json as Reply).error?.message).toMatch(/unavailable/);
      }
    } finally {
      failing();
    }
    expect(await auditOf(t, who.id)).toEqual([
      { outcome: "upstream_error", n: N, charged: N * 200, requests: N },
      { outcome: "upstream_failure", n: N, charged: 0, requests: N },
    ]);
  });

  it(`electrum: ${N} identical blockchain.transaction.get calls → one trip to the server`, async () => {
    const who = await t.account("electrum-sharers", 1_000_000);
    const core = t.devnet.cores.get("mainnet")!;
    const pool = t.gateway.app.electrum.get("mainnet")!;
    const server = t.devnet.electrum.get("mainnet")!;
    const method = "blockchain.transaction.get";
    const before = server.stats.methods[method] ?? 0;
    // The devnet ElectrumX asks its daemon (devnet's Core) for the transaction: holding Core holds
    // the Electrum request in flight.
    const replies = await whileHeld(
      () => core.hold(),
      () => pool.shared.stats.joined,
      N - 1,
      () =>
        burst(
          t.url,
          Array.from({ length: N }, (_, i) => ({
            path: `/electrum/mainnet/${who.token}`,
            body: rpc(method, [HAL_TXID], i),
          })),
        ),
    );
    expect((server.stats.methods[method] ?? 0) - before).toBe(1);
    replies.forEach((r, i) => {
      expect((r.json as Reply).id).toBe(i);
      expect(typeof (r.json as Reply).result).toBe("string");
    });
    expect(await auditOf(t, who.id)).toEqual([
      { outcome: "ok", n: N, charged: N * 100, requests: N },
    ]);
  });

  it("graph: 50 concurrent identical block queries → one indexer request, 50 audit rows, 50 charges", async () => {
    const who = await t.account("graph-sharers", 10_000_000);
    const indexer = t.devnet.indexers.get("mainnet")!;
    const pool = t.gateway.app.indexers.get("mainnet")!;
    const query =
      "{ block(where: {height: {_gte: 100, _lte: 109}}, order_by: {height: asc}) { hash height timestamp size_bytes transaction_count } }";
    const before = indexer.stats.queries;
    const replies = await whileHeld(
      () => indexer.hold(),
      () => pool.shared.stats.joined,
      49,
      () =>
        burst(
          t.url,
          Array.from({ length: 50 }, () => ({
            path: `/graph/mainnet/${who.token}`,
            body: { query },
          })),
        ),
    );
    expect(indexer.stats.queries - before).toBe(1);
    const charged = new Set(replies.map((r) => r.headers["x-credits-charged"]));
    expect(charged.size).toBe(1);
    const price = Number([...charged][0]);
    expect(price).toBeGreaterThan(0);
    for (const r of replies) {
      const blocks = (r.json as { data: { block: { height: number }[] } }).data.block;
      expect(blocks.map((b) => b.height)).toEqual([
        100, 101, 102, 103, 104, 105, 106, 107, 108, 109,
      ]);
    }
    expect(await auditOf(t, who.id)).toEqual([
      { outcome: "ok", n: 50, charged: 50 * price, requests: 50 },
    ]);
  });

  it("graph: different variables are different queries", async () => {
    const who = await t.account("graph-vars", 10_000_000);
    const indexer = t.devnet.indexers.get("mainnet")!;
    const query = "query($h: Int!) { block(where: {height: {_eq: $h}}) { height } }";
    const before = indexer.stats.queries;
    const replies = await burst(
      t.url,
      [1, 2, 3].map((h) => ({
        path: `/graph/mainnet/${who.token}`,
        body: { query, variables: { h } },
      })),
    );
    expect(indexer.stats.queries - before).toBe(3);
    replies.forEach((r, i) => {
      expect((r.json as { data: { block: { height: number }[] } }).data.block).toEqual([
        { height: i + 1 },
      ]);
    });
  });
});

describe("a trip's key", () => {
  it("is the parameters' lossless JSON text, on the native writer's fast path too", () => {
    const param = fc.oneof(
      fc.string(),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.integer().map((n) => jsonNumber(n)),
      fc.dictionary(fc.string(), fc.string()),
    );
    fc.assert(
      fc.property(fc.array(param as fc.Arbitrary<Json>, { maxLength: 4 }), (params) => {
        const finite = params.every((p) => typeof p !== "number" || Number.isFinite(p));
        // Non-finite numbers have no JSON text; both writers' answers are not compared then.
        if (finite) expect(paramsKey(params)).toBe(stringifyJson(params));
      }),
      { numRuns: 5_000, seed: 14 },
    );
    expect(paramsKey(["ab", 1])).toBe('["ab",1]');
  });
});
