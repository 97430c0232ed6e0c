import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "../../src/access/tokens.ts";
import { createAccount } from "../../src/billing/ledger/accounts.ts";
import type { AuditInput } from "../../src/billing/ledger/audit.ts";
import { registerProcess, takeLease } from "../../src/billing/ledger/leases.ts";
import { grantCredits, reserve, settle, voidStaleHolds } from "../../src/billing/ledger/ledger.ts";
import { writeBatch } from "../../src/billing/ledger/settle-queue.ts";
import type { Database } from "../../src/db/database.ts";
import { openDatabase } from "../../src/db/open.ts";
import {
  HAL_TXID,
  memoryStore,
  POSTGRES_URL,
  post,
  rpc,
  type StoreKind,
  startTestGateway,
} from "../support/harness.ts";
import { expectLedgerOk, expectWholeLedgerOk } from "../support/ledger.ts";
import { sized } from "../support/size.ts";

const record = (accountId: number, chargedCc: number): AuditInput => ({
  requestId: "r",
  accountId,
  tokenId: null,
  backend: "node",
  network: "mainnet",
  method: "getrawtransaction",
  outcome: "ok",
  httpStatus: 200,
  estimatedCc: chargedCc,
  chargedCc,
});

describe.each<StoreKind>(["pglite", "postgres"])("ledger rules (%s)", (store) => {
  let db: Database;
  const schema = `l_${Math.random().toString(16).slice(2, 10)}`;
  beforeAll(async () => {
    db =
      store === "pglite"
        ? await memoryStore()
        : await openDatabase({ databaseUrl: POSTGRES_URL, pgliteDir: "", poolSize: 4, schema });
  });
  afterAll(async () => {
    if (store === "postgres") await db.query(`DROP SCHEMA ${schema} CASCADE`);
    await db.close();
  });

  it("a hold orphaned by a crash is voided, never charged", async () => {
    const acc = await createAccount(db, "crash");
    await grantCredits(db, acc.id, 500);
    const r = await reserve(db, acc.id, 300);
    expect(r.ok).toBe(true);
    // The process "dies" here: no settle. Available is 200 until the sweeper runs.
    expect((await reserve(db, acc.id, 300)).ok).toBe(false);
    expect(await voidStaleHolds(db, 0)).toBe(1);
    expect(await voidStaleHolds(db, 0)).toBe(0);
    await expectLedgerOk(db, acc.id, { balance: 500, held: 0, charged: 0 });
  });

  it("a hold settles once; a second settle is refused and changes nothing", async () => {
    const acc = await createAccount(db, "twice");
    await grantCredits(db, acc.id, 1000);
    const r = await reserve(db, acc.id, 200);
    if (!r.ok || !r.hold) throw new Error("reserve failed");
    await settle(db, acc.id, r.hold, [record(acc.id, 200)]);
    await expect(settle(db, acc.id, r.hold, [record(acc.id, 200)])).rejects.toThrow();
    await expectLedgerOk(db, acc.id, { balance: 800, charged: 200, auditCharged: 200 });
  });

  it("a charge above its hold is refused", async () => {
    const acc = await createAccount(db, "over");
    await grantCredits(db, acc.id, 1000);
    const r = await reserve(db, acc.id, 100);
    if (!r.ok || !r.hold) throw new Error("reserve failed");
    await expect(settle(db, acc.id, r.hold, [record(acc.id, 101)])).rejects.toThrow(/exceeds hold/);
  });

  it("the database itself refuses a negative balance and edits to ledger entries", async () => {
    const acc = await createAccount(db, "guard");
    await grantCredits(db, acc.id, 10);
    await expect(
      db.query("UPDATE accounts SET balance = -1 WHERE id = $1", [acc.id]),
    ).rejects.toThrow();
    await expect(
      db.query("UPDATE ledger_entries SET amount = 1000 WHERE account_id = $1", [acc.id]),
    ).rejects.toThrow(/append-only/);
    await expect(
      db.query("DELETE FROM ledger_entries WHERE account_id = $1", [acc.id]),
    ).rejects.toThrow(/append-only/);
  });

  it("references are checked per statement: a batch naming a missing account writes nothing", async () => {
    const acc = await createAccount(db, "refs");
    await grantCredits(db, acc.id, 1_000);
    const r = await reserve(db, acc.id, 100);
    if (!r.ok || !r.hold) throw new Error("reserve failed");
    const count = async (table: string) =>
      Number((await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table}`)).rows[0]?.n);
    const charges = "ledger_entries WHERE kind = 'charge'";
    const before = [await count("audit_records"), await count(charges)];
    // A record of this settle names a token that does not exist: the statement fails whole (and
    // the hold is released on its own).
    await expect(
      settle(db, acc.id, r.hold, [record(acc.id, 60), { ...record(acc.id, 40), tokenId: 1e12 }]),
    ).rejects.toMatchObject({ cause: { code: "23503" } });
    expect([await count("audit_records"), await count(charges)]).toEqual(before);
    const missing = [
      "INSERT INTO audit_records(request_id, account_id, backend, network, method, outcome, http_status) VALUES ('r', 999999999, 'node', 'mainnet', 'm', 'ok', 200)",
      "INSERT INTO ledger_entries(account_id, kind, amount) VALUES (999999999, 'grant', 1)",
      `INSERT INTO ledger_entries(account_id, kind, amount, hold_id) VALUES (${acc.id}, 'release', 1, 999999999)`,
      `INSERT INTO ledger_entries(account_id, kind, amount, audit_id) VALUES (${acc.id}, 'charge', -1, 999999999)`,
    ];
    for (const sql of missing) {
      await expect(db.query(sql), sql).rejects.toMatchObject({ code: "23503" });
    }
    // A settle whose records name what exists goes through.
    const again = await reserve(db, acc.id, 100);
    if (!again.ok || !again.hold) throw new Error("reserve failed");
    await settle(db, acc.id, again.hold, [record(acc.id, 60), record(acc.id, 40)]);
    expect(await count("audit_records")).toBe((before[0] as number) + 2);
    await expectWholeLedgerOk(db);
  });

  it("a settle from a lease checks its own references: a missing account, token or lease fails it whole", async () => {
    const acc = await createAccount(db, "vouch");
    await grantCredits(db, acc.id, 10_000);
    const processId = `vouch-${schema}`;
    await registerProcess(db, processId, processId);
    const taken = await takeLease(db, acc.id, 1_000, 0, processId);
    if (!taken) throw new Error("lease");
    const token = await issueToken(db, acc.id);
    const count = async () =>
      Number(
        (
          await db.query<{ n: number }>(
            "SELECT (SELECT count(*) FROM audit_records) + (SELECT count(*) FROM ledger_entries) AS n",
          )
        ).rows[0]?.n,
      );
    const item = (over: { accountId?: number; leaseId?: number; tokenId?: number }) => ({
      accountId: over.accountId ?? acc.id,
      hold: null,
      leaseId: over.leaseId ?? taken.lease.id,
      records: [{ ...record(acc.id, 10), tokenId: over.tokenId ?? token.id }],
    });
    const before = await count();
    // The statement looks these up itself (migration 012), the triggers standing aside for it.
    for (const bad of [{ tokenId: 1e12 }, { leaseId: 1e12 }, { accountId: 1e12 }]) {
      await expect(writeBatch(db, [item({}), item(bad)]), JSON.stringify(bad)).rejects.toThrow();
      expect(await count()).toBe(before);
    }
    // Found missing by the statement's own look-ups (its words), not by the triggers' (theirs).
    await expect(writeBatch(db, [item({ tokenId: 1e12 })])).rejects.toMatchObject({
      code: "23503",
      message: expect.stringMatching(/^settle: /),
    });
    await expect(writeBatch(db, [item({ leaseId: 1e12 })])).rejects.toMatchObject({
      code: "23503",
      message: expect.stringMatching(/^settle: /),
    });
    const [ok] = await writeBatch(db, [item({}), item({})]);
    expect(ok?.auditIds).toHaveLength(1);
    expect(await count()).toBe(before + 4);
    // Its word ended with its transaction, on PGlite's one connection as on the settles' own.
    const { rows } = await db.settles.query<{ v: string | null }>(
      "SELECT current_setting('blockgate.references_vouched', true) AS v",
    );
    expect(rows[0]?.v ?? "").toBe("");
    await expectWholeLedgerOk(db);
  });

  it("a statement's word for its references covers that statement alone", async () => {
    const acc = await createAccount(db, "scoped");
    const bad = `INSERT INTO ledger_entries(account_id, kind, amount) VALUES (${acc.id + 1_000_000}, 'grant', 1)`;
    const vouch =
      "SELECT set_config('blockgate.references_vouched', statement_timestamp()::text, true)";
    // Vouched by the statement before it in the same transaction: checked all the same. (On
    // PostgreSQL: PGlite's clock counts milliseconds, so two statements in a row can share a
    // statement_timestamp() there; PGlite's settle vouches only as a transaction of its own.)
    if (store === "postgres") {
      await expect(
        db.transaction(async (tx) => {
          await tx.query(vouch);
          await tx.query(bad);
        }),
      ).rejects.toMatchObject({ code: "23503" });
    }
    // Vouched for another time: checked.
    await expect(
      db.transaction(async (tx) => {
        await tx.query(
          "SELECT set_config('blockgate.references_vouched', '2000-01-01 00:00:00+00', true)",
        );
        await tx.query(bad);
      }),
    ).rejects.toMatchObject({ code: "23503" });
    expect(
      (await db.query(`SELECT 1 FROM ledger_entries WHERE account_id = ${acc.id + 1_000_000}`))
        .rows,
    ).toEqual([]);
    // Where the settle statement runs, look-ups by id are planned as index look-ups; on PGlite's
    // one connection for that statement alone (its message's implicit transaction).
    const { rows } = await db.settles.query<{ enable_seqscan: string }>("SHOW enable_seqscan");
    expect([db.settles.planned, rows[0]?.enable_seqscan]).toEqual(["index", "off"]);
    const after = await db.query<{ enable_seqscan: string }>("SHOW enable_seqscan");
    expect(after.rows[0]?.enable_seqscan).toBe("on");
  });

  it("rows that are referenced are never deleted, renumbered or truncated", async () => {
    const acc = await createAccount(db, "stay");
    await grantCredits(db, acc.id, 100);
    await issueToken(db, acc.id);
    const refused = [
      `DELETE FROM accounts WHERE id = ${acc.id}`,
      `UPDATE accounts SET id = id + 1000000 WHERE id = ${acc.id}`,
      "DELETE FROM tokens",
      "DELETE FROM audit_records",
      "UPDATE audit_records SET account_id = NULL",
      "TRUNCATE accounts CASCADE",
      "TRUNCATE audit_records CASCADE",
      "TRUNCATE ledger_entries CASCADE",
    ];
    for (const sql of refused) {
      await expect(db.query(sql), sql).rejects.toThrow(/never deleted|append-only/);
    }
    // Without CASCADE, the top-ups' reference to their ledger entries refuses it first.
    await expect(db.query("TRUNCATE ledger_entries")).rejects.toThrow(
      /append-only|referenced in a foreign key constraint/,
    );
    await expectWholeLedgerOk(db);
  });

  it("a webhook delivery's rows are checked per statement, and what they name stays", async () => {
    const acc = await createAccount(db, "hooked");
    const { id: tokenId } = await issueToken(db, acc.id);
    const { rows } = await db.query<{ id: number }>(
      `INSERT INTO webhook_endpoints(account_id, token_id, network, url, event, secret)
       VALUES (${acc.id}, ${tokenId}, 'regtest', 'http://127.0.0.1:9/hook', 'newBlock', 's')
       RETURNING id`,
    );
    const endpoint = Number(rows[0]?.id);
    const messages = async () =>
      Number(
        (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_messages")).rows[0]
          ?.n,
      );
    const before = await messages();
    const missing = [
      // One of the two names no endpoint: neither is written.
      `INSERT INTO webhook_messages(id, endpoint_id, event_id, payload)
       VALUES ('msg_a', ${endpoint}, 'e1', '{}'), ('msg_b', 999999999, 'e1', '{}')`,
      "INSERT INTO webhook_attempts(message_id, attempt, latency_ms, result) VALUES ('msg_none', 1, 0, 'retry')",
      "INSERT INTO idempotency_keys(account_id, key, request_hash) VALUES (999999999, 'k', '\\x00')",
    ];
    for (const sql of missing) {
      await expect(db.query(sql), sql).rejects.toMatchObject({ code: "23503" });
    }
    expect(await messages()).toBe(before);
    await db.query(
      `INSERT INTO webhook_messages(id, endpoint_id, event_id, payload)
       VALUES ('msg_c', ${endpoint}, 'e1', '{}')`,
    );
    await db.query(
      "INSERT INTO webhook_attempts(message_id, attempt, latency_ms, result) VALUES ('msg_c', 1, 0, 'retry')",
    );
    // A delivery names its audit record: one that exists, or the statement fails.
    await expect(
      db.query("UPDATE webhook_messages SET audit_id = 999999999 WHERE id = 'msg_c'"),
    ).rejects.toMatchObject({ code: "23503" });
    const refused = [
      `DELETE FROM webhook_endpoints WHERE id = ${endpoint}`,
      "DELETE FROM webhook_messages WHERE id = 'msg_c'",
      `UPDATE webhook_messages SET endpoint_id = ${endpoint} WHERE id = 'msg_c'`,
      "UPDATE webhook_attempts SET message_id = 'msg_c'",
      `UPDATE idempotency_keys SET account_id = ${acc.id}`,
      "TRUNCATE webhook_endpoints CASCADE",
      "TRUNCATE webhook_messages CASCADE",
    ];
    await db.query(
      `INSERT INTO idempotency_keys(account_id, key, request_hash) VALUES (${acc.id}, 'k', '\\x00')`,
    );
    for (const sql of refused) {
      await expect(db.query(sql), sql).rejects.toThrow(/never deleted/);
    }
    expect(await messages()).toBe(before + 1);
  });

  it("bad amounts are refused", async () => {
    const acc = await createAccount(db, "bad");
    await expect(grantCredits(db, acc.id, -5)).rejects.toThrow();
    await expect(grantCredits(db, acc.id, 1.5)).rejects.toThrow();
    await expect(reserve(db, acc.id, -1)).rejects.toThrow();
  });
});

describe("two gateway processes on one PostgreSQL ledger", () => {
  /** Calls each gateway sends at once; the credits pay for a quarter of all (200 a call). */
  const EACH = sized(40, 100);
  const PAID = EACH / 2;
  it(`cannot spend the same credits: 2 × ${EACH} calls, credits for ${PAID}`, async () => {
    const a = await startTestGateway("postgres");
    const b = await startTestGateway("postgres", {}, a.schema!);
    try {
      const { id, token } = await a.account("shared", PAID * 200);
      const calls = [a, b].flatMap((g) =>
        Array.from({ length: EACH }, (_, i) =>
          post(`${g.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID], i)),
        ),
      );
      const statuses = (await Promise.all(calls)).map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(PAID);
      expect(statuses.filter((s) => s === 429)).toHaveLength(2 * EACH - PAID);
      await expectLedgerOk(a.gateway.app.db, id, { balance: 0, held: 0, charged: PAID * 200 });
    } finally {
      await b.close();
      await a.close();
    }
  });
});
