// Leases taken and returned in batches (src/billing/ledger/lease-batches.ts): what many accounts
// ask in one moment is one statement, each account's guard as when taken alone.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../../src/billing/ledger/accounts.ts";
import { LeaseBatches } from "../../src/billing/ledger/lease-batches.ts";
import { registerProcess, takeLeases } from "../../src/billing/ledger/leases.ts";
import { grantCredits } from "../../src/billing/ledger/ledger.ts";
import type { Database, Queryable } from "../../src/db/database.ts";
import { openDatabase } from "../../src/db/open.ts";
import { memoryStore, POSTGRES_URL, type StoreKind } from "../support/harness.ts";
import { balanceOf, expectWholeLedgerOk } from "../support/ledger.ts";

describe.each<StoreKind>(["pglite", "postgres"])("lease batches (%s)", (store) => {
  let db: Database;
  const schema = `lb_${Math.random().toString(16).slice(2, 10)}`;
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

  it("takes each account's lease under its own guard, in the order asked", async () => {
    const rich = await funded("rich", 1_000);
    const tight = await funded("tight", 1_000);
    const empty = await funded("empty", 0);
    const out = await takeLeases(db, processId, [
      { accountId: rich, amount: 100, keep: 400 },
      { accountId: tight, amount: 600, keep: 600 },
      { accountId: empty, amount: 1, keep: 0 },
    ]);
    expect(out[0]).toMatchObject({ lease: { accountId: rich, amount: 100 }, available: 1_000 });
    expect(out[1]).toBeNull();
    expect(out[2]).toBeNull();
    expect(await balanceOf(db, rich)).toMatchObject({ balance: 1_000, held: 0 });
    const { rows } = await db.query<{ leased: number }>(
      "SELECT leased FROM accounts WHERE id = $1",
      [rich],
    );
    expect(Number(rows[0]?.leased)).toBe(100);
    await expectWholeLedgerOk(db);
  });

  it("a moment's asks of many accounts are one statement; each is given back exactly", async () => {
    const statements: string[] = [];
    const counted: Queryable = {
      query: (sql, params) => {
        statements.push(sql.trim().slice(0, 12));
        return db.query(sql, params);
      },
    };
    const desk = new LeaseBatches(counted, processId);
    const ids = await Promise.all(Array.from({ length: 40 }, (_, i) => funded(`many${i}`, 500)));
    // Two asks of one account in the same moment: the second waits for the next statement.
    const taken = await Promise.all([
      ...ids.map((id) => desk.take(id, 50, 0)),
      desk.take(ids[0]!, 25, 0),
    ]);
    expect(taken.every((t) => t !== null)).toBe(true);
    expect(statements).toHaveLength(2);
    const back = await Promise.all(
      taken.map((t) => desk.giveBack(t!.lease.id, t!.lease.accountId)),
    );
    expect(statements).toHaveLength(3);
    // Nothing was charged: every account has its 500 available again.
    expect(back.every((available) => available === 500)).toBe(true);
    await expectWholeLedgerOk(db);
  });
});
