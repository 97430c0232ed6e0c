// The blockgate gateway in a process of its own for bench/subscribers.ts: regtest only, its node the
// devnet Core named in argv[2] (JSON `{url, user, password}`), on PostgreSQL when DATABASE_URL is
// set (a schema of its own, dropped on exit), else PGlite in memory. events.pollMs is argv[3]
// (default 60000: the bench announces each block with `poll`); server.connectionsPerAddressMax is
// 0 (no cap), every subscriber sharing the one loopback address. Prints `{url, store}` as one JSON
// line, then answers each line on stdin with one JSON line:
//   accounts N  N accounts, each granted plenty of credits and one token: `{tokens}`
//   poll        app.events.pollNow(), answered once the events are published
//   subs        app.events.subscribers(): the subscriptions the gateway has open
//   mem         process.memoryUsage() after a full GC (run with --expose-gc)
//   cpu         process.cpuUsage()
//   profile start, then profile stop <path>: a CPU profile of what ran meanwhile, written there
//   ledger E    waits (≤ 20 s) for E audit records of method newBlock, then `{count, charged,
//               accountsOk, accounts, perAccount}` (checkLedger over every account; newBlock
//               records per account, in the order the accounts were made)
// Runs until its stdin closes.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { createInterface } from "node:readline";
import { issueToken } from "../src/access/tokens.ts";
import { startGateway } from "../src/app/app.ts";
import { createAccount } from "../src/billing/ledger/accounts.ts";
import { checkLedger, grantCredits } from "../src/billing/ledger/ledger.ts";
import { parseConfig } from "../src/config/load.ts";
import type { BitcoinCoreUpstreamConfig } from "../src/config/schema.ts";

const core = JSON.parse(process.argv[2] ?? "{}") as { url: string; user: string; password: string };
const pollMs = Number(process.argv[3] ?? 60_000);
const config = parseConfig({
  // Every subscriber comes from 127.0.0.1: the per-address cap (1,024 by default) would refuse
  // the rest with 429, so it is lifted here.
  server: { port: 0, connectionsPerAddressMax: 0 },
  database: { pgliteDir: "memory://" },
  demo: { enabled: false },
  log: { level: "silent" },
  networks: ["regtest"],
  events: { pollMs },
  upstreams: { node: { regtest: [{ ...core }] } },
});
const databaseUrl = process.env.DATABASE_URL || undefined;
const schema = databaseUrl ? `bench_${randomBytes(4).toString("hex")}` : undefined;
const gateway = await startGateway(config, {
  databaseUrl,
  ...(schema ? { databaseSchema: schema } : {}),
  nodeUpstreams: {
    regtest: (config.upstreams.node?.regtest ?? []).filter(
      (u): u is BitcoinCoreUpstreamConfig => u !== "devnet",
    ),
  },
  graphUpstreams: {},
  noAdminFile: true,
});
const { app } = gateway;
await app.events.untilLeading();
await app.events.pollNow(); // the first look: the tip known, nothing announced
process.stdout.write(
  `${JSON.stringify({ url: gateway.url, store: schema ? "PostgreSQL" : "PGlite" })}\n`,
);

const gc = (globalThis as { gc?: () => void }).gc;
const reply = (value: unknown) => process.stdout.write(`${JSON.stringify(value)}\n`);

// The CPU profile of the blocks alone, not of the accounts' creation and the subscriptions' opening.
const profiler = new Session();
async function profileStart(): Promise<unknown> {
  profiler.connect();
  await profiler.post("Profiler.enable");
  await profiler.post("Profiler.setSamplingInterval", { interval: 250 });
  await profiler.post("Profiler.start");
  return { ok: true };
}
async function profileStop(path: string): Promise<unknown> {
  const { profile } = await profiler.post("Profiler.stop");
  writeFileSync(path, JSON.stringify(profile));
  profiler.disconnect();
  return { ok: true };
}

async function answer(line: string): Promise<unknown> {
  const [command, arg] = line.trim().split(/\s+/);
  switch (command) {
    case "accounts": {
      const tokens: string[] = [];
      for (let i = 0; i < Number(arg); i++) {
        const account = await createAccount(app.db, `bench-${i}`);
        await grantCredits(app.db, account.id, 1_000_000);
        tokens.push((await issueToken(app.db, account.id)).token);
      }
      return { tokens };
    }
    case "poll":
      await app.events.pollNow();
      return { ok: true };
    case "cpu":
      return process.cpuUsage();
    case "profile":
      return arg === "start" ? profileStart() : profileStop(line.trim().slice(13));
    case "subs":
      return { subscribers: app.events.subscribers() };
    case "mem":
      gc?.();
      gc?.();
      return { ...process.memoryUsage(), gc: gc !== undefined };
    case "ledger": {
      const expected = Number(arg);
      const deadline = Date.now() + 20_000;
      let row = { count: 0, charged: 0 };
      while (Date.now() < deadline) {
        const { rows } = await app.db.query<{ count: number; charged: number }>(
          `SELECT count(*)::int4 AS count, COALESCE(sum(charged_cc), 0)::int8 AS charged
           FROM audit_records WHERE method = 'newBlock'`,
        );
        row = { count: Number(rows[0]?.count ?? 0), charged: Number(rows[0]?.charged ?? 0) };
        if (row.count >= expected) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      await new Promise((r) => setTimeout(r, 500)); // any late settle lands before the check
      const checks = await checkLedger(app.db);
      const perAccount = await app.db.query<{ account: number; events: number }>(
        `SELECT a.id::int4 AS account, count(r.id)::int4 AS events FROM accounts a
         LEFT JOIN audit_records r ON r.account_id = a.id AND r.method = 'newBlock'
         GROUP BY a.id ORDER BY a.id`,
      );
      return {
        ...row,
        perAccount: perAccount.rows,
        accountsOk: checks.filter((c) => c.ok).length,
        accounts: checks.length,
      };
    }
    default:
      return { error: `unknown command ${command}` };
  }
}

// One command at a time, in order: each answer is the next line the bench reads.
let chain: Promise<void> = Promise.resolve();
const lines = createInterface({ input: process.stdin });
lines.on("line", (line) => {
  chain = chain.then(async () => {
    reply(await answer(line).catch((err: unknown) => ({ error: String(err) })));
  });
});
lines.on("close", () => {
  void chain.then(async () => {
    if (schema) {
      await app.db.query(`DROP SCHEMA ${schema} CASCADE`);
      await app.db.query(`DROP SCHEMA IF EXISTS ${schema}_jobs CASCADE`);
    }
    await gateway.close();
    process.exit(0);
  });
});
