import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { setAccountPlan } from "../../src/billing/ledger/accounts.ts";
import { runDbCommand } from "../../src/cli/commands.ts";
import { parseConfig } from "../../src/config/load.ts";
import { auditRecords } from "../support/audit.ts";
import { mineBlock } from "../support/devnet-core.ts";
import { HAL_TXID, rpc } from "../support/harness.ts";
import { expectLedgerOk, fundedAccount } from "../support/ledger.ts";
import { REDIS_URL } from "../support/redis-pair.ts";
import { gatewayProcesses, type SchemaStore } from "../support/spawn.ts";

/**
 * A fleet as operators run one: three gateway processes on one PostgreSQL and one Redis, under
 * load, one of them killed and restarted. The ledger, the plans (their counters in Redis), the
 * idempotent retries and the chain events must hold across all three as they do in one.
 */
const PRICE = 200; // getrawtransaction on mainnet
const CAP_CALLS = 30;

const processes = gatewayProcesses("f");
const deliveries: { id: string; hash: string }[] = [];
let receiver: Server;
let hookUrl = "";

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      const hash = (JSON.parse(body) as { data: { hash: string } }).data.hash;
      deliveries.push({ id: String(req.headers["webhook-id"]), hash });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/blocks`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

const SETTINGS = {
  plans: { capped: { creditsPerDay: CAP_CALLS * PRICE } },
  webhooks: { allowTargets: ["127.0.0.1/32"], pollMs: 500 },
  events: { pollMs: 100, leaderRetryMs: 100 },
};

function gateway(s: SchemaStore, instance: string) {
  return processes.spawn(`${s.schema}-${instance}`, s, {
    connections: 32,
    settings: {
      ...SETTINGS,
      // The plan's counters live in Redis: keyed per schema, as one deployment's are.
      limits: { redisKeyPrefix: `blockgate:${s.schema}:` },
      ledger: { instance },
      log: { level: "warn" },
    },
    env: { REDIS_URL, BLOCKGATE_LOG_LEVEL: "warn" },
  });
}

interface Answer {
  key: string;
  status: number;
  requestId: string | null;
}

async function call(url: string, token: string, key: string): Promise<Answer> {
  try {
    const res = await fetch(`${url}/node/mainnet/${token}`, {
      method: "POST",
      headers: { "idempotency-key": key },
      body: JSON.stringify(rpc("getrawtransaction", [HAL_TXID], key)),
    });
    await res.text();
    return { key, status: res.status, requestId: res.headers.get("x-request-id") };
  } catch {
    return { key, status: 0, requestId: null }; // its process was killed
  }
}

const mine = () => mineBlock(processes.devnet);

describe("three gateway processes on one PostgreSQL and Redis", { timeout: 120_000 }, () => {
  it("one killed under load and restarted: every 200 audited, no key charged twice, each block told once", async () => {
    const s = await processes.store();
    const { id, token } = await fundedAccount(s.db, "fleet", 1_000_000);
    await setAccountPlan(s.db, id, "capped");
    // Deliveries are charged: the endpoint is another account's, one the cap does not stop.
    const watcher = await fundedAccount(s.db, "watcher", 1_000_000);
    const config = parseConfig({ ...SETTINGS, networks: ["mainnet"] });
    const added = await runDbCommand(
      s.db,
      ["webhook", "add", String(watcher.tokenId), hookUrl, "--network", "mainnet"],
      config,
    );
    expect(added.code).toBe(0);
    const fleet = await Promise.all([gateway(s, "a"), gateway(s, "b"), gateway(s, "c")]);
    const urls = fleet.map((g) => g.url);

    // 90 keyed calls, 12 at a time, round the three; the third process is killed a third of
    // the way in and started again under the same instance name.
    const answers: Answer[] = [];
    let next = 0;
    let restarted: Promise<unknown> | undefined;
    await Promise.all(
      Array.from({ length: 12 }, async () => {
        while (next < 90) {
          const i = next++;
          if (i === 30) {
            fleet[2]!.child.kill("SIGKILL");
            restarted = gateway(s, "c").then((g) => {
              urls[2] = g.url;
            });
          }
          answers.push(await call(urls[i % 3]!, token, `k-${i}`));
        }
      }),
    );
    await restarted;
    // What the kill cut off is retried with its key, as a client does, on another process.
    const cut = answers.filter((a) => a.status === 0);
    for (const a of cut) Object.assign(a, await call(urls[0]!, token, a.key));

    const statuses: Record<number, number> = {};
    for (const a of answers) statuses[a.status] = (statuses[a.status] ?? 0) + 1;
    // The plan refuses with 429 once its cap is spent, across the three.
    expect(Object.keys(statuses).every((k) => k === "200" || k === "429")).toBe(true);
    expect(statuses[200]!).toBeGreaterThan(0);
    expect(statuses[429]!).toBeGreaterThan(0);

    // Every 200 has its audit record; every charge is one key's, once.
    const audit = await auditRecords(s.db, { accountId: id }, [
      "request_id",
      "outcome",
      "charged_cc",
    ]);
    const byRequest = new Map(audit.map((r) => [r.request_id, r]));
    for (const a of answers.filter((x) => x.status === 200)) {
      expect(["ok", "replayed"]).toContain(byRequest.get(a.requestId!)?.outcome);
    }
    const { rows } = await s.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM idempotency_keys WHERE account_id = $1 AND settled_at IS NOT NULL",
      [id],
    );
    const charged = audit.reduce((sum, r) => sum + r.charged_cc, 0);
    expect(charged).toBe(rows[0]!.n * PRICE);
    // The cap holds for the fleet, not per process. Its counters are in Redis; where Redis is
    // too slow to answer, the ledger decides (limits/spending-caps.ts), which cannot see the
    // calls in flight on the other processes: at most the 12 callers' worth over the cap.
    expect(charged).toBeLessThanOrEqual((CAP_CALLS + 12) * PRICE);

    // Two blocks: each told to the endpoint once, whichever process leads now.
    const hashes = [await mine(), await mine()];
    await vi.waitFor(
      async () => {
        const { rows: done } = await s.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_messages WHERE status = 'delivered'",
        );
        expect(done[0]!.n).toBeGreaterThanOrEqual(2);
      },
      { timeout: 30_000, interval: 100 },
    );
    for (const hash of hashes) {
      expect(deliveries.filter((d) => d.hash === hash)).toHaveLength(1);
    }
    await expectLedgerOk(s.db, id);
    await s.db.close();
  });
});
