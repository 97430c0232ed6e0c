// Two gateway processes on one PostgreSQL ledger hand out invoice addresses: never the same one.
import { afterAll, beforeAll, expect, it } from "vitest";
import { createAccount } from "../../src/billing/ledger/accounts.ts";
import { checkLedger } from "../../src/billing/ledger/ledger.ts";
import { addressDeriver } from "../../src/billing/topups/addresses.ts";
import { applyJudgement } from "../../src/billing/topups/credit.ts";
import { createTopup } from "../../src/billing/topups/topups.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";
import { TOPUP_DESCRIPTOR } from "./support.ts";

const config = {
  networks: ["regtest" as const],
  billing: {
    topups: {
      network: "regtest" as const,
      descriptor: TOPUP_DESCRIPTOR,
      satsPer1000Credits: 100,
      minimumSats: 1000,
      openPerAccountMax: 1_000,
    },
  },
};
let a: TestGateway;
let b: TestGateway;

beforeAll(async () => {
  a = await startTestGateway("postgres", config);
  b = await startTestGateway("postgres", config, a.schema!, { devnet: a.devnet });
}, 60_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
});

it("invoices created at once through both take distinct indexes and addresses", async () => {
  const account = await createAccount(a.gateway.app.db, "two-gateways");
  const per = 40;
  const made = await Promise.all(
    [a, b].flatMap((g) =>
      Array.from({ length: per }, () =>
        createTopup(g.gateway.app.db, g.gateway.app.config.billing.topups!, account.id, 20_000),
      ),
    ),
  );
  const invoices = made.map((m) => {
    if (!m.ok) throw new Error(m.reason);
    return m.invoice;
  });
  const indexes = invoices.map((i) => i.derivationIndex).sort((x, y) => x - y);
  expect(indexes).toEqual(Array.from({ length: 2 * per }, (_, i) => i));
  expect(new Set(invoices.map((i) => i.address)).size).toBe(2 * per);
  // Each address is the descriptor's at the invoice's index, whichever process derived it.
  const deriver = addressDeriver(a.gateway.app.config.billing.topups!);
  for (const i of invoices) expect(i.address).toBe(deriver.at(i.derivationIndex).address);
  const { rows } = await b.gateway.app.db.query<{ n: number | string }>(
    "SELECT count(DISTINCT address) AS n FROM topup_invoices",
  );
  expect(Number(rows[0]!.n)).toBe(2 * per);
});

it("a paid invoice judged at once by both processes, many times, is credited once", async () => {
  const account = await createAccount(a.gateway.app.db, "raced");
  const made = await createTopup(
    a.gateway.app.db,
    a.gateway.app.config.billing.topups!,
    account.id,
    30_000,
  );
  if (!made.ok) throw new Error(made.reason);
  const invoice = made.invoice;
  const payments = [{ txid: "ab".repeat(32), sats: invoice.sats, height: 10, inTime: true }];
  const paid = {
    status: "paid" as const,
    seenSats: invoice.sats,
    confirmedSats: invoice.sats,
    creditTxid: payments[0]!.txid,
  };
  const outcomes = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      applyJudgement((i % 2 ? a : b).gateway.app.db, invoice, payments, paid),
    ),
  );
  expect(outcomes.filter((o) => o.credited)).toHaveLength(1);
  expect(outcomes.every((o) => o.status === "paid")).toBe(true);
  expect((await balanceOf(a.gateway.app.db, account.id)).balance).toBe(30_000);
  // The database refuses a second credit even to a writer that skips the status guard.
  await expect(
    b.gateway.app.db.query(
      "INSERT INTO topup_credits(invoice_id, entry_id, credits) SELECT $1, id, 1 FROM ledger_entries LIMIT 1",
      [invoice.id],
    ),
  ).rejects.toThrow(/duplicate key/);
  expect((await checkLedger(a.gateway.app.db)).every((r) => r.ok)).toBe(true);
});
