// Credits paid in bitcoin, end to end on devnet: `topup create` asks for an invoice, `devnet pay`
// pays it from devnet's own coins, blocks are mined, and the watcher credits it once.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { issueOperatorToken } from "../../src/access/operator-token.ts";
import type { RunningGateway } from "../../src/app/app.ts";
import { createAccount } from "../../src/billing/ledger/accounts.ts";
import { checkLedger } from "../../src/billing/ledger/ledger.ts";
import { invoiceById } from "../../src/billing/topups/invoices.ts";
import { addressToScript } from "../../src/bitcoin/address.ts";
import { runDevnetCommand } from "../../src/cli/devnet.ts";
import type { BlockProducer } from "../../src/devnet/block-producer.ts";
import { attachDevnet } from "../../src/routes/admin/devnet-control.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";
import { creditsOf, TOPUP_DESCRIPTOR } from "./support.ts";

const operator = issueOperatorToken();
let t: TestGateway;

/**
 * `blockgate devnet pay` as the CLI runs it: it finds the gateway at the config's address with
 * BLOCKGATE_OPERATOR_TOKEN and prints what the gateway's devnet answers (the real process and its
 * hand-off file are test/cli/devnet-mine.test.ts's).
 */
const cliPay = async (address: string, sats: number) => {
  const { config } = gateway.app;
  const port = Number(new URL(t.url).port);
  const out = await runDevnetCommand(
    "pay",
    {},
    { ...config, server: { ...config.server, port } },
    { BLOCKGATE_OPERATOR_TOKEN: operator.token },
    [address, String(sats)],
  );
  expect(out.code).toBe(0);
  return out.text;
};

/** A store command as the gateway runs it when the CLI hands it over (PGlite). */
const run = async (...args: string[]) => {
  const out = await gateway.app.runCommand(args);
  return { code: out.code, text: out.text.trim() };
};
const ok = async (...args: string[]) => {
  const out = await run(...args);
  expect(out.code).toBe(0);
  return out.text;
};
/** devnet's coins to `address`, as `devnet pay` has the gateway's devnet pay them. */
const pay = (address: string, sats: number) => {
  const paid = producer.pay(addressToScript(address, "regtest")!, sats);
  if ("refused" in paid) throw new Error(paid.refused);
  return paid.txid;
};

let gateway: RunningGateway;
let producer: BlockProducer;
const db = () => gateway.app.db;
const status = async (id: string) => (await invoiceById(db(), id))!.status;
/** The watcher looks at the invoice now (what a new block or a mempool change also makes it do). */
const look = (id: string) => gateway.app.topupWatcher!.look(id);

beforeAll(async () => {
  t = await startTestGateway("pglite", {
    networks: ["regtest"],
    operator: { tokenSha256: [operator.sha256] },
    // Payments are proven against the gateway's own verified header chain of regtest.
    verification: { enabled: true },
    billing: {
      topups: {
        network: "regtest",
        descriptor: TOPUP_DESCRIPTOR,
        satsPer1000Credits: 100,
        minimumSats: 1000,
        confirmations: 2,
      },
    },
  });
  gateway = t.gateway;
  producer = t.devnet.producers.get("regtest")!;
  attachDevnet(gateway.app, t.devnet.producers);
  // Coinbases mature 100 blocks on: devnet's first coins to pay with.
  producer.mine(101);
  await createAccount(gateway.app.db, "acme");
}, 60_000);
afterAll(() => t?.close());

/** `topup create`: the invoice as scripts read it. */
async function invoice(credits: number, through = ok) {
  return JSON.parse(await through("topup", "create", "acme", String(credits))) as {
    id: string;
    address: string;
    sats: number;
    credits: number;
    bip21: string;
    expiresAt: string;
    status: string;
  };
}

describe("top-ups on devnet", () => {
  it("create, pay, mine: the balance rises by the invoice's credits once", async () => {
    const before = (await balanceOf(db(), "acme")).balance;
    const inv = await invoice(100_000);
    expect(Object.keys(inv)).toEqual([
      "id",
      "address",
      "sats",
      "credits",
      "bip21",
      "expiresAt",
      "status",
    ]);
    expect(inv).toMatchObject({ sats: 10_000, credits: 100_000, status: "open" });
    expect(inv.address).toMatch(/^bcrt1q/);
    expect(inv.bip21).toBe(`bitcoin:${inv.address}?amount=0.0001&label=blockgate%20credits`);

    const txid = await cliPay(inv.address, 10_000);
    expect(txid).toMatch(/^[0-9a-f]{64}$/);
    // Seen in the mempool through the address's Electrum subscription: pending.
    await vi.waitFor(async () => expect(await status(inv.id)).toBe("pending"), { timeout: 10_000 });

    producer.mine(1);
    await look(inv.id);
    expect(await status(inv.id)).toBe("pending");
    expect((await balanceOf(db(), "acme")).balance).toBe(before);

    producer.mine(1);
    await vi.waitFor(async () => expect(await status(inv.id)).toBe("paid"), { timeout: 10_000 });
    // Credited on the verified chain: its tip is where the payment is 2 deep.
    const verified = gateway.app.verifiedChains.get("regtest")!;
    expect(verified.tip()!.height).toBeGreaterThanOrEqual(producer.chain.tip.height);
    expect((await balanceOf(db(), "acme")).balance).toBe(before + 100_000);
    const credited = await creditsOf(db(), inv.id);
    expect(credited.grants).toBe(1);
    expect(credited.credits).toEqual([
      { memo: `top-up ${inv.id}: ${txid} on regtest`, amount: 100_000, txid },
    ]);
    // More blocks and more looks change nothing.
    producer.mine(1);
    await look(inv.id);
    expect((await balanceOf(db(), "acme")).balance).toBe(before + 100_000);
    expect((await checkLedger(db())).every((r) => r.ok)).toBe(true);

    const listed = (await ok("topup", "list", "acme")).split("\n").map((l) => JSON.parse(l));
    expect(listed[0]).toEqual({ ...inv, status: "paid" });
  });

  it("paid twice, and again after it was credited: credited once, the rest recorded", async () => {
    const before = (await balanceOf(db(), "acme")).balance;
    const inv = await invoice(50_000);
    pay(inv.address, inv.sats);
    pay(inv.address, inv.sats);
    producer.mine(2);
    await vi.waitFor(async () => expect(await status(inv.id)).toBe("paid"), { timeout: 10_000 });
    await look(inv.id);
    const after = await invoiceById(db(), inv.id);
    expect(after!.seenSats).toBe(2 * inv.sats);
    // Paid once more after it was credited: recorded (the address is still watched), not credited.
    pay(inv.address, inv.sats);
    await vi.waitFor(
      async () => expect((await invoiceById(db(), inv.id))!.seenSats).toBe(3 * inv.sats),
      {
        timeout: 10_000,
      },
    );
    producer.mine(2);
    await look(inv.id);
    expect(await status(inv.id)).toBe("paid");
    expect((await balanceOf(db(), "acme")).balance).toBe(before + 50_000);
    expect((await creditsOf(db(), inv.id)).grants).toBe(1);
  });

  it("paid after expiry: late, not credited, until an operator settles it (audited)", async () => {
    const before = (await balanceOf(db(), "acme")).balance;
    const inv = await invoice(20_000);
    // The invoice's lifetime is over (as if the payer waited past it); the look its creation set
    // off is over first, so that every later look reads the new expiry.
    await look(inv.id);
    await db().query(
      "UPDATE topup_invoices SET expires_at = now() - interval '1 second' WHERE id = $1",
      [inv.id],
    );
    pay(inv.address, inv.sats);
    producer.mine(2);
    await vi.waitFor(async () => expect(await status(inv.id)).toBe("late"), { timeout: 10_000 });
    expect((await balanceOf(db(), "acme")).balance).toBe(before);

    const settled = JSON.parse(
      await ok("topup", "settle", inv.id, "--note", "paid late, price honoured", "--by", "ops"),
    ) as { status: string; credited: number };
    expect(settled).toMatchObject({ status: "settled", credited: 20_000 });
    expect((await balanceOf(db(), "acme")).balance).toBe(before + 20_000);
    const { rows } = await db().query<{ method: string; backend: string }>(
      "SELECT method, backend FROM audit_records WHERE method = 'topup settle'",
    );
    expect(rows).toEqual([{ method: "topup settle", backend: "admin" }]);
    // Settled once: a second settle is refused, and the watcher leaves it alone.
    const again = await run("topup", "settle", inv.id, "--note", "again");
    expect(again.code).not.toBe(0);
    expect(again.text).toContain("already credited");
    await look(inv.id);
    expect((await creditsOf(db(), inv.id)).grants).toBe(1);
    expect((await checkLedger(db())).every((r) => r.ok)).toBe(true);
  });

  it("a reorganisation takes the payment's block off before it is deep enough: not credited then", async () => {
    const before = (await balanceOf(db(), "acme")).balance;
    const inv = await invoice(30_000);
    const txid = pay(inv.address, inv.sats);
    producer.mine(1);
    await look(inv.id);
    const firstHeight = producer.chain.tip.height;
    expect(await status(inv.id)).toBe("pending");
    // The block leaves the best chain; the transaction goes back to the mempool, and the new
    // branch's first block takes it again: it is counted from there.
    const change = producer.reorg(1);
    expect("refused" in change).toBe(false);
    await vi.waitFor(async () => expect(await status(inv.id)).toBe("paid"), { timeout: 10_000 });
    const { rows } = await db().query<{ height: number }>(
      "SELECT height FROM topup_payments WHERE invoice_id = $1 AND txid = $2",
      [inv.id, txid],
    );
    expect(rows[0]!.height).toBe(firstHeight);
    expect((await balanceOf(db(), "acme")).balance).toBe(before + 30_000);
    expect((await creditsOf(db(), inv.id)).grants).toBe(1);
    expect((await checkLedger(db())).every((r) => r.ok)).toBe(true);
  });
});
