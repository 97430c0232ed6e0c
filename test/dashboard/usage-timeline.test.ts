// Usage over time and the plan beside it, as the unified API gives them to the dashboard: calls,
// refusals, failures, credits and latency per hour or day, of one network or method if asked;
// and each credit cap with what the account has spent against it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setAccountPlan } from "../../src/billing/ledger/accounts.ts";
import { auditRecords } from "../support/audit.ts";
import { gql } from "../support/graphql.ts";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { dashboardQuery, signIn } from "./support.ts";

interface Bucket {
  start: string;
  calls: number;
  refusedCalls: number;
  failedCalls: number;
  chargedCc: number;
  latencyP50Ms: number | null;
  latencyP99Ms: number | null;
}

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    plans: {
      capped: {
        creditsPerDay: 1_000,
        creditsPerCycle: 5_000,
        token: { requestsPerSecond: 50, burst: 5 },
      },
    },
  });
});
afterAll(() => t.close());

const BUCKET = "start calls refusedCalls failedCalls chargedCc latencyP50Ms latencyP99Ms";

/** Asked as the dashboard asks: its own reads are not usage, so they do not move the figures. */
async function timeline(cookie: string, args: string): Promise<Bucket[]> {
  const res = await dashboardQuery(
    t,
    cookie,
    `{ account { cycle { timeline(${args}) { ${BUCKET} } } } }`,
  );
  expect(res.json.errors).toBeUndefined();
  return (res.json.data as { account: { cycle: { timeline: Bucket[] } } }).account.cycle.timeline;
}

describe("usage over time", () => {
  it("buckets calls per hour and per day, billed, refused and failed apart, with latency of the calls that ran", async () => {
    const { id, token } = await t.account("timeline", 100_000);
    const node = (network: string) => `${t.url}/node/${network}/${token}`;
    await post(node("mainnet"), rpc("getrawtransaction", [HAL_TXID])); // ok, 200 CC
    await post(node("mainnet"), rpc("getrawtransaction", ["00".repeat(32)])); // Core's -5: failed
    await post(node("mainnet"), rpc("getrawtransaction", ["bad"])); // refused, free
    await post(node("regtest"), rpc("getblockcount", []));
    // The first call moves three hours back; the refused one gets a long time, which the
    // percentiles must not see.
    const db = t.gateway.app.db;
    // An account a day old: the cycle began before the call moved back below.
    await db.query("UPDATE accounts SET created_at = now() - interval '1 day' WHERE id = $1", [id]);
    const rows = await auditRecords(db, { accountId: id }, ["id", "outcome", "network"]);
    expect(rows.map((r) => r.outcome)).toEqual(["ok", "upstream_error", "rejected", "ok"]);
    await db.query("UPDATE audit_records SET at = at - interval '3 hours' WHERE id = $1", [
      rows[0]!.id,
    ]);
    await db.query("UPDATE audit_records SET duration_ms = 987654 WHERE id = $1", [rows[2]!.id]);

    const cookie = (await signIn(t, token))!;
    const hours = await timeline(cookie, "bucket: HOUR");
    expect(hours).toHaveLength(2);
    for (const h of hours) expect(new Date(h.start).getUTCMinutes()).toBe(0);
    expect(Date.parse(hours[1]!.start) - Date.parse(hours[0]!.start)).toBe(3 * 3_600_000);
    expect(hours[0]).toMatchObject({ calls: 1, refusedCalls: 0, failedCalls: 0, chargedCc: 200 });
    expect(hours[1]).toMatchObject({ calls: 3, refusedCalls: 1, failedCalls: 1 });
    expect(hours[1]!.latencyP50Ms).not.toBeNull();
    expect(hours[1]!.latencyP99Ms!).toBeLessThan(987_654);

    const days = await timeline(cookie, "bucket: DAY");
    const calls = days.reduce((n, d) => n + d.calls, 0);
    expect(calls).toBe(4);
    expect(days.every((d) => d.start.endsWith("T00:00:00.000Z"))).toBe(true);

    const regtest = await timeline(cookie, 'bucket: DAY, network: "regtest"');
    expect(regtest.reduce((n, d) => n + d.calls, 0)).toBe(1);
    const lookups = await timeline(cookie, 'bucket: HOUR, method: "getrawtransaction"');
    expect(lookups.map((h) => h.calls)).toEqual([1, 2]);
  });

  it("shows the plan's caps against what was spent in their windows, and null for no plan", async () => {
    const { id, token } = await t.account("planned", 100_000);
    const query = `{ account { plan { name tokenRate { requestsPerSecond burst } accountRate { requestsPerSecond }
      concurrentCalls creditsPerDay { capCc spentCc resetsAt } creditsPerCycle { capCc spentCc } } } }`;
    const plan = async () =>
      (await gql<{ account: { plan: unknown } }>(`${t.url}/gateway/mainnet/${token}`, query)).body
        .data!.account.plan;
    expect(await plan()).toBeNull();
    await setAccountPlan(t.gateway.app.db, id, "capped");
    for (let i = 0; i < 2; i++) {
      await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
    }
    const midnight = new Date();
    midnight.setUTCHours(24, 0, 0, 0);
    expect(await plan()).toEqual({
      name: "capped",
      tokenRate: { requestsPerSecond: 50, burst: 5 },
      accountRate: null,
      concurrentCalls: null,
      creditsPerDay: { capCc: 1_000, spentCc: 400, resetsAt: midnight.toISOString() },
      creditsPerCycle: { capCc: 5_000, spentCc: 400 },
    });
  });
});
