// Direct charges (src/billing/ledger/direct-charges.ts): deliveries already made, charged in one
// statement per moment, each account for all of its items or for none, under a reservation's guard.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../src/billing/ledger/accounts.ts";
import type { AuditInput } from "../../src/billing/ledger/audit.ts";
import { chargeDirect, DirectCharges } from "../../src/billing/ledger/direct-charges.ts";
import { registerProcess, takeLeases } from "../../src/billing/ledger/leases.ts";
import { grantCredits } from "../../src/billing/ledger/ledger.ts";
import type { Database, Queryable } from "../../src/db/database.ts";
import { openDatabase } from "../../src/db/open.ts";
import { memoryStore, POSTGRES_URL, type StoreKind } from "../support/harness.ts";
import { balanceOf, expectWholeLedgerOk } from "../support/ledger.ts";

describe.each<StoreKind>(["pglite", "postgres"])("direct charges (%s)", (store) => {
  let db: Database;
  const schema = `dc_${Math.random().toString(16).slice(2, 10)}`;
  const processId = randomUUID();
  beforeAll(async () => {
    db =
      store === "pglite"
        ? await memoryStore()
        : await openDatabase({ databaseUrl: POSTGRES_URL, pgliteDir: "", poolSize: 4, schema });
    await registerProcess(db, processId, processId);
  });
  afterAll(async () => {
    if (store === "postgres") await db.query(`DROP SCHEMA ${schema} CASCADE`);
    await db.close();
  });

  const funded = async (name: string, credits: number) => {
    const acc = await createAccount(db, `${name}-${store}`);
    if (credits > 0) await grantCredits(db, acc.id, credits);
    return acc.id;
  };
  const record = (accountId: number, requestId: string, cc: number): AuditInput => ({
    requestId,
    accountId,
    tokenId: null,
    backend: "gateway",
    network: "regtest",
    method: "newBlock",
    outcome: "ok",
    httpStatus: 200,
    estimatedCc: cc,
    chargedCc: cc,
  });
  const auditOf = async (ids: number[]) =>
    (
      await db.query<{ id: number; request_id: string; account_id: number }>(
        "SELECT id, request_id, account_id FROM audit_records WHERE id = ANY($1::int8[]) ORDER BY id",
        [ids],
      )
    ).rows.map((r) => [Number(r.id), r.request_id, Number(r.account_id)]);

  it("charges each account for all its items or none, under balance − held − leased", async () => {
    const rich = await funded("rich", 100);
    const short = await funded("short", 10);
    const leased = await funded("leased", 20);
    // 15 of its 20 leased to a process: 5 left, short of one 10 CC delivery.
    const [lease] = await takeLeases(db, processId, [{ accountId: leased, amount: 15, keep: 0 }]);
    expect(lease).not.toBeNull();
    const out = await chargeDirect(db, [
      { accountId: rich, records: [record(rich, "r.1", 10)] },
      // Two deliveries of one account: 20 together, which it has not.
      { accountId: short, records: [record(short, "s.1", 10)] },
      { accountId: rich, records: [record(rich, "r.2", 10)] },
      { accountId: short, records: [record(short, "s.2", 10)] },
      { accountId: leased, records: [record(leased, "l.1", 10)] },
    ]);
    expect(out.map((o) => o?.charged ?? null)).toEqual([10, null, 10, null, null]);
    expect(out[0]?.available).toBe(80);
    expect(out[2]?.available).toBe(80);
    const ids = [...(out[0]?.auditIds ?? []), ...(out[2]?.auditIds ?? [])];
    expect(await auditOf(ids)).toEqual([
      [ids[0], "r.1", rich],
      [ids[1], "r.2", rich],
    ]);
    expect(await balanceOf(db, rich)).toMatchObject({ balance: 80, held: 0 });
    expect(await balanceOf(db, short)).toMatchObject({ balance: 10, held: 0 });
    expect(await balanceOf(db, leased)).toMatchObject({ balance: 20, held: 0 });
    const { rows } = await db.query<{ n: number }>(
      "SELECT count(*)::int4 AS n FROM audit_records WHERE account_id = ANY($1::int8[])",
      [[short, leased]],
    );
    expect(rows[0]?.n).toBe(0);
    await expectWholeLedgerOk(db);
  });

  it("a moment's deliveries of many accounts are one statement", async () => {
    const statements: string[] = [];
    const counted: Queryable = {
      query: (sql, params) => {
        statements.push(sql.trim().slice(0, 12));
        return db.query(sql, params);
      },
    };
    const desk = new DirectCharges(counted, 2_000);
    const ids = await Promise.all(Array.from({ length: 30 }, (_, i) => funded(`many${i}`, 12)));
    const out = await Promise.all([
      ...ids.map((id, i) => desk.charge({ accountId: id, records: [record(id, `m.${i}`, 5)] })),
      desk.charge({ accountId: ids[0]!, records: [record(ids[0]!, "m.again", 5)] }),
    ]);
    expect(statements).toHaveLength(1);
    expect(out.every((o) => o?.charged === 5)).toBe(true);
    expect(out[0]?.available).toBe(2);
    expect(out[1]?.available).toBe(7);
    await desk.flushed();
    await expectWholeLedgerOk(db);
  });

  it("in parts of at most rowsMax records, each part's callers answered as it commits", async () => {
    const statements: string[] = [];
    const counted: Queryable = {
      query: (sql, params) => {
        statements.push(sql.trim().slice(0, 12));
        return db.query(sql, params);
      },
    };
    const desk = new DirectCharges(counted, 10);
    const ids = await Promise.all(Array.from({ length: 25 }, (_, i) => funded(`part${i}`, 7)));
    const answered: number[] = [];
    const out = await Promise.all(
      ids.map((id, i) =>
        desk.charge({ accountId: id, records: [record(id, `p.${i}`, 5)] }).then((o) => {
          // When each caller is answered: the statements sent by then.
          answered.push(statements.length);
          return o;
        }),
      ),
    );
    expect(statements).toHaveLength(3);
    expect(out.every((o) => o?.charged === 5 && o.available === 2)).toBe(true);
    // The first part's callers were answered once the second part had been sent, not later.
    expect(answered.slice(0, 10)).toEqual(Array(10).fill(2));
    expect(answered.slice(20)).toEqual(Array(5).fill(3));
    await expectWholeLedgerOk(db);
  });
});
