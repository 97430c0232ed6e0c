import type { ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { Agent, request } from "node:http";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { sweepDeadProcesses } from "../../src/billing/ledger/leases.ts";
import { loadConfig } from "../../src/config/load.ts";
import type { Database } from "../../src/db/database.ts";
import { readAdminFile } from "../../src/routes/admin/admin-file.ts";
import { within } from "../../src/util/cached-check.ts";
import { auditRecords } from "../support/audit.ts";
import { askDevnetCore, blockTxids, HAL_TXID, post, rpc } from "../support/harness.ts";
import { expectLedgerOk, fundedAccount } from "../support/ledger.ts";
import { connectOutcome } from "../support/net.ts";
import { sized } from "../support/size.ts";
import { blockgate, gatewayProcesses, type SpawnedGateway, stopProcess } from "../support/spawn.ts";

/**
 * The gateway as an operator runs it — its own process, PostgreSQL in a schema of its own —
 * against a devnet started here, so the test can hold the node's answers: calls are provably in
 * flight (the node has them) when SIGTERM arrives, without sleeping anywhere.
 */
const GRANTED = 1_000_000;
const PRICE = 200; // getrawtransaction on mainnet
const TXIDS = blockTxids();
/** Calls in flight when SIGTERM comes. */
const IN_FLIGHT = sized(50, 200);
const txidOf = (hex: string) => {
  const once = createHash("sha256").update(Buffer.from(hex, "hex")).digest();
  return createHash("sha256").update(once).digest().reverse().toString("hex");
};

const processes = gatewayProcesses("d");

type Spawned = SpawnedGateway & { configFile: string };

interface Running extends Spawned {
  db: Database;
  accountId: number;
  token: string;
}

/**
 * A gateway process on this test's devnet (enough connections that all calls reach the node at
 * once), on `store`: a schema, or a PGlite folder.
 */
function spawnGateway(
  name: string,
  drainTimeoutMs: number,
  store: { databaseUrl: string } | { pgliteDir: string },
): Promise<Spawned> {
  return processes.spawn(name, store, {
    connections: 256,
    settings: { server: { port: 0, drainTimeoutMs } },
  });
}

/** A migrated schema with a funded account, and a gateway process on it. */
async function startGatewayProcess(drainTimeoutMs: number): Promise<Running> {
  const store = await processes.store(2);
  const account = await fundedAccount(store.db, "drained", GRANTED);
  const spawned = await spawnGateway(store.schema, drainTimeoutMs, store);
  return { ...spawned, db: store.db, accountId: account.id, token: account.token };
}

/** Resolves once the process has written a line matching `pattern`. */
function outputMatches(p: Spawned, pattern: RegExp): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (pattern.test(p.output())) {
        p.child.stdout?.off("data", check);
        resolve();
      }
    };
    p.child.stdout?.on("data", check);
    check();
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve({ code: child.exitCode, signal: null });
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}

/**
 * `promise`, or after `ms` a failure saying what was still awaited (`what`): a wait that would
 * otherwise end only at the test's timeout, saying nothing of where it stopped.
 */
async function orFail<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  const late = Symbol("late");
  const out = await within(promise, ms, late);
  if (out === late) throw new Error(`after ${ms} ms: ${what()}`);
  return out as T;
}

/** The end of what a process wrote, for a failure's message. */
const tail = (output: string) => output.slice(-3_000);

const auditOf = (db: Database, accountId: number) =>
  auditRecords(db, { accountId }, ["request_id", "outcome", "charged_cc"]);

/** What a client saw of one call: its answer (status, request id), or its connection's error. */
type Seen = { status: number; requestId: string } | { error: string };

/**
 * POSTs `body` on a connection of its own; `written` is called once the whole request has been
 * handed to the kernel, so its bytes have reached the gateway's socket — or once it failed before
 * (a connection refused or reset), which the test then counts among the failed calls.
 */
function postOnce(url: string, body: string, agent: Agent, written: () => void): Promise<Seen> {
  return new Promise((resolve) => {
    const req = request(url, { method: "POST", agent });
    let told = false;
    const tell = () => {
      if (told) return;
      told = true;
      written();
    };
    req.on("finish", tell);
    req.on("error", tell);
    req.on("response", (res) => {
      res.resume();
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, requestId: String(res.headers["x-request-id"]) }),
      );
      res.on("error", (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    });
    req.on("error", (err: NodeJS.ErrnoException) => resolve({ error: err.code ?? err.message }));
    req.end(body);
  });
}

describe("SIGTERM drains the gateway", () => {
  it(`${IN_FLIGHT} calls in flight all get their answer, each charged with one audit record; exit 0`, async () => {
    const p = await startGatewayProcess(60_000);
    const core = processes.devnet.cores.get("mainnet")!;
    const release = core.hold();
    try {
      const before = core.stats.callsRead;
      const calls = Array.from({ length: IN_FLIGHT }, (_, i) =>
        // Each its own transaction: identical calls in flight would share one trip to the node.
        post(`${p.url}/node/mainnet/${p.token}`, rpc("getrawtransaction", [TXIDS[i]!], i)),
      );
      // Every call was accepted, authenticated, reserved and forwarded: the node holds them all
      // (in fewer HTTP requests than calls: concurrent calls share JSON-RPC batches).
      await vi.waitFor(
        () => expect(core.stats.callsRead).toBeGreaterThanOrEqual(before + IN_FLIGHT),
        {
          timeout: 30_000,
          interval: 20,
        },
      );

      const signalled = Date.now();
      p.child.kill("SIGTERM");
      await outputMatches(
        p,
        new RegExp(`"inFlight":${IN_FLIGHT},"timeoutMs":60000,"msg":"draining"`),
      );
      // The listening socket is closed before that line is written.
      expect(await connectOutcome(p.port)).toBe("ECONNREFUSED");

      release();
      const results = await Promise.all(calls);
      const exit = await exited(p.child);
      const drainMs = Date.now() - signalled;
      expect(exit).toEqual({ code: 0, signal: null });
      for (const [i, r] of results.entries()) {
        expect(r.status).toBe(200);
        expect(r.json).toMatchObject({ id: i, result: expect.stringMatching(/^[0-9a-f]+$/) });
        // Its own transaction (block 277647 predates segwit: the txid hashes the whole hex).
        expect(txidOf((r.json as { result: string }).result)).toBe(TXIDS[i]);
      }
      expect(p.output()).toMatch(/"cut":0,"msg":"drained"/);

      // The ledger as the process left it: one charge and one audit record per call.
      const audit = await auditOf(p.db, p.accountId);
      expect(audit).toHaveLength(IN_FLIGHT);
      expect(new Set(audit.map((a) => a.request_id))).toEqual(
        new Set(results.map((r) => r.headers.get("x-request-id"))),
      );
      expect(audit.every((a) => a.outcome === "ok" && a.charged_cc === PRICE)).toBe(true);
      await expectLedgerOk(p.db, p.accountId, {
        granted: GRANTED,
        charged: IN_FLIGHT * PRICE,
        auditCharged: IN_FLIGHT * PRICE,
        balance: GRANTED - IN_FLIGHT * PRICE,
        held: 0,
        openHolds: 0,
      });
      // SIGTERM to exit with every answer written in between; printed for the record.
      const drained = p.output().match(/"ms":(\d+),"cut":0,"msg":"drained"/)![1];
      process.stdout.write(
        `drain of ${IN_FLIGHT} calls: ${drained} ms draining, ${drainMs} ms SIGTERM to exit\n`,
      );
    } finally {
      release();
      await stopProcess(p.child);
      await p.db.close();
    }
  }, 120_000);

  it("past server.drainTimeoutMs the calls left are cut, never charged, their credits left to the sweep", async () => {
    const p = await startGatewayProcess(1_000);
    const core = processes.devnet.cores.get("mainnet")!;
    const release = core.hold();
    try {
      const before = core.stats.callsRead;
      const calls = Array.from({ length: 10 }, (_, i) =>
        post(`${p.url}/node/mainnet/${p.token}`, rpc("getrawtransaction", [TXIDS[i]!], i)).then(
          (r) => r.status,
          (err: Error) => err.message,
        ),
      );
      await vi.waitFor(() => expect(core.stats.callsRead).toBeGreaterThanOrEqual(before + 10), {
        timeout: 30_000,
        interval: 20,
      });
      p.child.kill("SIGTERM");
      await outputMatches(p, /"msg":"draining"/);
      expect(await connectOutcome(p.port)).toBe("ECONNREFUSED");
      // The node never answers: the drain times out, the process still exits 0.
      expect(await exited(p.child)).toEqual({ code: 0, signal: null });
      expect(p.output()).toMatch(/"cut":10,"msg":"drained"/);
      // No client got an answer (their connections were closed under them).
      expect(await Promise.all(calls)).toEqual(Array(10).fill("fetch failed"));

      expect(await auditOf(p.db, p.accountId)).toEqual([]);
      const check = await expectLedgerOk(p.db, p.accountId, { charged: 0, balance: GRANTED });
      // Their credits are still reserved: held per call, or in the process's lease.
      expect(check.held + check.leased).toBeGreaterThanOrEqual(10 * PRICE);
      // The sweep (of the next start, or of another gateway on this ledger once the process's
      // heartbeat is older than the TTL; here a TTL of 0) gives them back, charging nothing.
      expect(await sweepDeadProcesses(p.db, 0)).toBeGreaterThanOrEqual(1);
      await expectLedgerOk(p.db, p.accountId, { charged: 0, balance: GRANTED, held: 0, leased: 0 });
    } finally {
      release();
      await stopProcess(p.child);
      await p.db.close();
    }
  }, 120_000);

  it("with PGlite, the CLI does not open the store while the draining gateway still holds it", async () => {
    const p = await spawnGateway("pglite", 60_000, { pgliteDir: join(processes.dir, "pglite-db") });
    const env = { BLOCKGATE_CONFIG: p.configFile, DATABASE_URL: "" };
    const core = processes.devnet.cores.get("mainnet")!;
    const release = core.hold();
    try {
      // An account and a token through the hand-off, as the CLI would make them.
      const handoff = readAdminFile(loadConfig(p.configFile))!;
      const cli = async (argv: string[]) => {
        const res = await fetch(`${p.url}/admin/cli`, {
          method: "POST",
          headers: { authorization: `Bearer ${handoff.secret}` },
          body: JSON.stringify({ argv }),
        });
        return ((await res.json()) as { text: string }).text;
      };
      await cli(["account", "create", "drained", "--credits", "1000"]);
      const token = (await cli(["token", "issue", "drained"])).match(/bgt_\S{43}/)![0];

      const before = core.stats.httpRequests;
      const call = post(`${p.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
      await vi.waitFor(() => expect(core.stats.httpRequests).toBe(before + 1), { timeout: 30_000 });
      p.child.kill("SIGTERM");
      await outputMatches(p, /"inFlight":1,"timeoutMs":60000,"msg":"draining"/);
      const refused = await blockgate(["account", "list"], env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`the gateway (pid ${p.child.pid}) holds the PGlite store`);

      release();
      expect((await call).status).toBe(200);
      expect(await exited(p.child)).toEqual({ code: 0, signal: null });
      // Gone, and the hand-off file with it: the CLI now opens the store itself.
      const check = await blockgate(["ledger", "check"], env);
      expect(check.code).toBe(0);
      expect(check.stdout).toMatch(
        /^ok +account 1: granted 1000 − charged 200 = balance 800; held 0/,
      );
    } finally {
      release();
      await stopProcess(p.child);
    }
  }, 120_000);
  it(`SIGTERM right after start, ${IN_FLIGHT} calls sent: each is answered or counted cut, never reset unexplained`, async () => {
    const p = await startGatewayProcess(60_000);
    const hash = (
      JSON.parse(await askDevnetCore(processes.devnet, "getblockhash", [277647])) as {
        result: string;
      }
    ).result;
    // A connection per call, as that many clients would open.
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    try {
      // Fired the moment the process says it listens: busy still starting, it has accepted few of
      // the connections when SIGTERM comes; the rest wait in the listen backlog.
      const body = JSON.stringify(rpc("getblock", [hash, 1]));
      let written = 0;
      let ended = 0;
      let signalled!: () => void;
      const allWritten = new Promise<void>((resolve) => {
        signalled = resolve;
      });
      const calls = Array.from({ length: IN_FLIGHT }, () =>
        postOnce(`${p.url}/node/mainnet/${p.token}`, body, agent, () => {
          written += 1;
          if (written === IN_FLIGHT) signalled();
        }).finally(() => {
          ended += 1;
        }),
      );
      // Every request has reached the gateway's sockets; none is answered yet, or only a few.
      // Each wait is bounded well inside the drain's minute, so that a stall says where it was.
      await orFail(allWritten, 20_000, () => `${written} of ${IN_FLIGHT} requests written`);
      p.child.kill("SIGTERM");
      const seen = await orFail(
        Promise.all(calls),
        25_000,
        () =>
          `${ended} of ${IN_FLIGHT} calls ended; after SIGTERM the gateway wrote:\n${tail(p.output())}`,
      );
      expect(
        await orFail(
          exited(p.child),
          10_000,
          () => `the gateway did not exit after its calls ended; it wrote:\n${tail(p.output())}`,
        ),
      ).toEqual({ code: 0, signal: null });

      // Every step of the shutdown ended in its time (else a warning names the one that did not).
      expect(p.output()).not.toContain("did not end in time");

      const answered = seen.filter((s) => "status" in s);
      const failed = seen.filter((s) => "error" in s);
      const cut = Number(p.output().match(/"cut":(\d+),"msg":"drained"/)![1]);
      // Each connection closed under a call is one counted cut: here, with a minute to drain, none.
      expect(failed).toHaveLength(cut);
      expect(cut).toBe(0);
      expect(answered.every((a) => a.status === 200)).toBe(true);
      // One audit record per answer, none for a call cut: charged exactly what was answered.
      const audit = await auditOf(p.db, p.accountId);
      expect(new Set(audit.map((a) => a.request_id))).toEqual(
        new Set(answered.map((a) => a.requestId)),
      );
      expect(audit).toHaveLength(answered.length);
      const charged = audit.reduce((sum, a) => sum + a.charged_cc, 0);
      expect(audit.every((a) => a.outcome === "ok" && a.charged_cc > 0)).toBe(true);
      await expectLedgerOk(p.db, p.accountId, { charged, auditCharged: charged, held: 0 });
      const drained = p.output().match(/"inFlight":(\d+),"timeoutMs":60000,"msg":"draining"/);
      process.stdout.write(
        `SIGTERM after ${IN_FLIGHT} sent: ${answered.length} answered, ${failed.length} failed, cut ${cut}, in flight at the draining line ${drained?.[1]}\n`,
      );
    } finally {
      agent.destroy();
      await stopProcess(p.child);
      await p.db.close();
    }
  }, 90_000);
});
