// Failed authentications per client address (src/access/auth-throttle.ts): a free allowance, then
// each failure answered later than the one before (as Bitcoin Core delays a wrong RPC password,
// here doubling), then a lock-out for the rest of the window in which an unknown token is refused
// 429 without a database lookup. Other addresses, and tokens this process has just served, are
// not affected. Requests come from two loopback addresses, 127.0.0.1 and 127.0.0.2.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "../../src/access/tokens.ts";
import { type AuditRow, auditRecords } from "../support/audit.ts";
import { blockTxids, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { type AddressedAnswer, postFrom } from "../support/local-address.ts";

const BAD = `bgt_${"A".repeat(43)}`;
const TXID = blockTxids()[0]!;

type Answer = AddressedAnswer;

const call = (url: string, localAddress: string) =>
  postFrom(url, rpc("getrawtransaction", [TXID]), localAddress);

describe("failed authentications from one address", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway("pglite", {
      networks: ["mainnet"],
      // Three free failures, then 100, 200 and 400 ms, then locked out for the window.
      server: {
        port: 0,
        authFailuresFree: 3,
        authDelayBaseMs: 100,
        authDelayMaxMs: 400,
        authFailureWindowMs: 60_000,
      },
    });
  });
  afterAll(() => t?.close());

  it("are answered later and later, then locked out; good tokens and other addresses are not", async () => {
    const good = await t.account("throttled", 100_000);
    const bad = `${t.url}/node/mainnet/${BAD}`;
    // A token this process serves before the lock-out stays served during it.
    expect((await call(`${t.url}/node/mainnet/${good.token}`, "127.0.0.1")).status).toBe(200);

    const answers: Answer[] = [];
    for (let i = 0; i < 8; i++) answers.push(await call(bad, "127.0.0.1"));
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 401, 429, 429]);
    // The fourth, fifth and sixth failures waited 100, 200 and 400 ms before their 401.
    expect(answers[3]!.ms).toBeGreaterThanOrEqual(100);
    expect(answers[4]!.ms).toBeGreaterThanOrEqual(200);
    expect(answers[5]!.ms).toBeGreaterThanOrEqual(400);
    for (const a of answers.slice(6)) {
      expect(a.json.error).toMatchObject({
        code: -32013,
        message: "too many failed authentications from this address; try again later",
      });
      const retryAfter = Number(a.headers["retry-after"]);
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(60);
    }

    // Locked out: a token served before still works; one the process has not seen is refused
    // without being looked up (the lock-out's point: no database work for the address).
    expect((await call(`${t.url}/node/mainnet/${good.token}`, "127.0.0.1")).status).toBe(200);
    const fresh = await issueToken(t.gateway.app.db, good.id);
    expect((await call(`${t.url}/node/mainnet/${fresh.token}`, "127.0.0.1")).status).toBe(429);

    // Another address has its own allowance, and its good tokens are looked up as ever.
    expect((await call(bad, "127.0.0.2")).status).toBe(401);
    expect((await call(`${t.url}/node/mainnet/${fresh.token}`, "127.0.0.2")).status).toBe(200);

    // Audited aggregated: one record per kind of refusal, address and minute, standing for its
    // calls (a run that crosses a minute's end writes a kind's calls in two records).
    await t.gateway.app.authFailures.flush(true);
    const rows = await auditRecords(
      t.gateway.app.db,
      { outcome: "unauthenticated" },
      ["source", "http_status", "error_code", "calls"],
      { orderBy: ["source", "http_status"] },
    );
    expect(rows.length).toBeLessThanOrEqual(6);
    expect(perKind(rows)).toEqual([
      { source: "127.0.0.1", http_status: 401, error_code: "UNAUTHENTICATED", calls: 6 },
      { source: "127.0.0.1", http_status: 429, error_code: "RATE_LIMITED", calls: 3 },
      { source: "127.0.0.2", http_status: 401, error_code: "UNAUTHENTICATED", calls: 1 },
    ]);
  });
});

type Row = Pick<AuditRow, "source" | "http_status" | "error_code" | "calls">;

/** The records' calls summed per address, status and code, in the records' order. */
function perKind(rows: Row[]): Row[] {
  const kinds = new Map<string, Row>();
  for (const row of rows) {
    const key = `${row.source} ${row.http_status} ${row.error_code}`;
    const known = kinds.get(key);
    if (known) known.calls += row.calls;
    else kinds.set(key, { ...row });
  }
  return [...kinds.values()];
}
