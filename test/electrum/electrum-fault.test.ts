import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { auditTotals } from "../support/audit.ts";
import { post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";

const chain = loadDevnetChain();
/** Mempool transactions are never cached: every request reaches the Electrum server. */
const MEMPOOL_TXID = [...chain.mempool.keys()][1]!;
const TIMEOUT_MS = 3_000;
const WORKERS = 4;
/** Each worker's loop is bounded: a test that cannot finish fails instead of spinning. */
const REQUESTS_PER_WORKER_MAX = 3_000;

let t: TestGateway;
let token: string;
let accountId: number;
beforeAll(async () => {
  t = await startTestGateway("pglite", {}, undefined, {
    electrumClient: { timeoutMs: TIMEOUT_MS, reconnectMaxMs: 500 },
  });
  ({ token, id: accountId } = await t.account("steady", 10_000_000));
});
afterAll(() => t.close());

/** Resolves once `count` results satisfy `test`, counting from now. */
function waitFor(
  results: { status: number }[],
  listeners: (() => void)[],
  test: (status: number) => boolean,
  count: number,
): Promise<void> {
  const start = results.length;
  return new Promise((resolve) => {
    const check = () => {
      if (results.slice(start).filter((r) => test(r.status)).length >= count) resolve();
      else listeners.push(check);
    };
    check();
  });
}

describe("the Electrum server killed and restarted while requests flow", () => {
  it("requests resume without restarting the gateway, and none hangs past its timeout", async () => {
    const server = t.devnet.electrum.get("mainnet")!;
    const upstream = t.gateway.app.electrum.get("mainnet")!.upstreams[0]!;
    const url = `${t.url}/electrum/mainnet/${token}`;
    const results: { status: number; ms: number; phase: string }[] = [];
    const listeners: (() => void)[] = [];
    let phase = "before";
    let stopped = false;

    const worker = async () => {
      for (let i = 0; i < REQUESTS_PER_WORKER_MAX && !stopped; i++) {
        const started = performance.now();
        const res = await post(url, rpc("blockchain.transaction.get", [MEMPOOL_TXID, true], i));
        results.push({ status: res.status, ms: performance.now() - started, phase });
        for (const l of listeners.splice(0)) l();
      }
    };
    const workers = Array.from({ length: WORKERS }, worker);

    await waitFor(results, listeners, (s) => s === 200, 20);
    const connectionsBefore = server.stats.connections;
    phase = "down";
    await server.stop();
    // While it is down, requests fail fast (503) or at worst time out (504); none is stuck.
    await waitFor(results, listeners, (s) => s !== 200, 10);
    const reconnected = once(upstream, "connected");
    await server.restart();
    await reconnected;
    phase = "after";
    await waitFor(results, listeners, (s) => s === 200, 20);
    stopped = true;
    await Promise.all(workers);

    expect(server.stats.connections).toBeGreaterThan(connectionsBefore);
    expect(new Set(results.map((r) => r.status))).toSatisfy((s: Set<number>) =>
      [...s].every((status) => [200, 503, 504].includes(status)),
    );
    expect(Math.max(...results.map((r) => r.ms))).toBeLessThan(TIMEOUT_MS + 2_000);
    expect(results.filter((r) => r.phase === "after" && r.status === 200).length).toBeGreaterThan(
      0,
    );

    // Only answered calls were charged, each exactly once, and the books balance.
    const ok = results.filter((r) => r.status === 200).length;
    expect(await auditTotals(t.gateway.app.db, { accountId: accountId }, ["charged", "n"])).toEqual(
      { charged: ok * 100, n: results.length },
    );
    await expectLedgerOk(t.gateway.app.db, accountId, { held: 0, charged: ok * 100 });
  });
});
