// Two gateway processes sharing Redis hold one plan limit together: 10 calls/s per token with a
// burst of 5, whichever process each call reaches. Redis is the real server at REDIS_URL (default
// 127.0.0.1:6379); the ledger is PostgreSQL, shared by both. Each run uses its own key prefix.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setAccountPlan } from "../../src/billing/ledger/accounts.ts";
import { blockTxids, post, rpc, type TestGateway } from "../support/harness.ts";
import { type RedisPair, redisPair } from "../support/redis-pair.ts";

const TXIDS = blockTxids();
const RATE = 10;
const BURST = 5;
/** How long both processes are driven as hard as their callers can. */
const LOAD_MS = 2_500;

describe("two gateway processes share one Redis for limits", () => {
  let pair: RedisPair;
  let a: TestGateway;
  let b: TestGateway;
  beforeAll(async () => {
    pair = await redisPair({
      networks: ["mainnet"],
      plans: { metered: { token: { requestsPerSecond: RATE, burst: BURST } } },
    });
    ({ a, b } = pair);
  });
  afterAll(() => pair?.close());

  it(`hold ${RATE} calls/s per token together (± one burst), with the RateLimit fields`, async () => {
    const acc = await a.account("shared-limit", 10_000_000);
    await setAccountPlan(a.gateway.app.db, acc.id, "metered");
    const started = Date.now();
    const statuses: number[] = [];
    // At least LOAD_MS, and on a slow machine until the limit has refused something (10 s at most).
    const going = () => {
      const ms = Date.now() - started;
      return ms < LOAD_MS || (statuses.every((s) => s === 200) && ms < 10_000);
    };
    const worker = async (t: TestGateway, n: number) => {
      for (let i = 0; going(); i++) {
        const r = await post(
          `${t.url}/node/mainnet/${acc.token}`,
          rpc("getrawtransaction", [TXIDS[(n * 50 + i) % TXIDS.length]!], i),
        );
        statuses.push(r.status);
        if (r.status === 200) {
          expect(r.headers.get("ratelimit-policy")).toBe(
            `token;q=${RATE};w=1, token-burst;q=${BURST};w=60`,
          );
        } else {
          expect(r.status).toBe(429);
          expect(r.json).toMatchObject({ error: { code: -32013 } });
          expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
        }
      }
    };
    await Promise.all([0, 1, 2, 3].map((n) => worker(n % 2 === 0 ? a : b, n)));
    const elapsed = (Date.now() - started) / 1000;
    const ok = statuses.filter((s) => s === 200).length;
    // A fixed window of one second opens at the first call: ceil(elapsed) windows at most, and
    // every whole second of load fills one. Limits held per process would let through twice the
    // upper bound (each process its own rate and burst).
    expect(ok).toBeLessThanOrEqual(RATE * Math.ceil(elapsed) + BURST);
    // The first window and the burst were spent before anything was refused (how many more
    // windows the callers filled depends on how fast this machine lets them call).
    expect(ok).toBeGreaterThanOrEqual(RATE + BURST);
    expect(statuses.length).toBeGreaterThan(ok);
  });
});
