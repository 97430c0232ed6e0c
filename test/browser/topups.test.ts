// The dashboard's "Add credits" view at phone width: an invoice with its QR code and BIP21 link,
// paid from devnet's coins, followed to its receipt; the low-balance banner comes and goes.
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import decodeQR from "@paulmillr/qr/decode.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addressToScript } from "../../src/bitcoin/address.ts";
import { keepScreenshot, launchChromium } from "../support/browser.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { TOPUP_DESCRIPTOR } from "../topups/support.ts";

const SHOTS = join(tmpdir(), "blockgate-dashboard");

let t: TestGateway;
let browser: Browser;
let token: string;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    networks: ["regtest"],
    billing: {
      topups: {
        network: "regtest",
        descriptor: TOPUP_DESCRIPTOR,
        satsPer1000Credits: 100,
        minimumSats: 1000,
      },
    },
  });
  t.devnet.producers.get("regtest")!.mine(101);
  browser = await launchChromium();
  ({ token } = await t.account("buyer", 5_000));
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function signedIn(width: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${t.url}/dashboard`);
  await page.fill("#token", token);
  await page.click("button[type=submit]");
  await page.waitForSelector("[data-testid=topups-table]");
  return page;
}

const overflow = (page: Page) =>
  page.evaluate(() => document.scrollingElement!.scrollWidth - innerWidth);

it("at 420 px: threshold banner, invoice with QR and BIP21, paid, receipt, banner gone", async () => {
  const page = await signedIn(420);
  expect(await page.$("[data-testid=low-balance]")).toBeNull();
  await page.fill("[data-testid=low-balance-input]", "10000");
  await page.click("[data-testid=low-balance-save]");
  await page.waitForSelector("[data-testid=low-balance]");

  await page.fill("[data-testid=topup-credits]", "100000");
  await page.click("[data-testid=topup-create]");
  await page.waitForSelector("[data-testid=topup-qr]");
  const bip21 = await page.getAttribute("[data-testid=topup-bip21]", "href");
  const address = await page.textContent("[data-testid=topup-address]");
  expect(bip21).toBe(`bitcoin:${address}?amount=0.0001&label=blockgate%20credits`);
  // The QR code as the page draws it, read back by a QR decoder: the payment request itself. Its
  // pixels come back as base64, not a JSON array of 640,000 numbers the test would parse.
  const pixels = await page.$eval("[data-testid=topup-qr]", (node) => {
    const img = node as HTMLImageElement;
    const canvas = document.createElement("canvas");
    canvas.width = 400;
    canvas.height = 400;
    const g = canvas.getContext("2d")!;
    g.fillStyle = "#fff";
    g.fillRect(0, 0, 400, 400);
    g.drawImage(img, 20, 20, 360, 360);
    const data = g.getImageData(0, 0, 400, 400).data;
    let binary = "";
    for (let i = 0; i < data.length; i += 0x8000) {
      binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
    }
    return btoa(binary);
  });
  const data = new Uint8Array(Buffer.from(pixels, "base64"));
  expect(decodeQR({ width: 400, height: 400, data })).toBe(bip21);
  expect(await page.getAttribute("[data-testid=topup-status]", "data-status")).toBe("open");
  mkdirSync(SHOTS, { recursive: true });
  await keepScreenshot(page, { path: join(SHOTS, "topup-420.png"), fullPage: true });
  expect(await overflow(page)).toBeLessThanOrEqual(0);

  const producer = t.devnet.producers.get("regtest")!;
  const paid = producer.pay(addressToScript(address!, "regtest")!, 10_000);
  expect("txid" in paid).toBe(true);
  await page.waitForSelector("[data-testid=topup-status][data-status=pending]", {
    timeout: 15_000,
  });
  producer.mine(1);
  await page.waitForSelector("[data-testid=topup-receipt] h3", { timeout: 15_000 });
  expect(await page.textContent("[data-testid=topup-receipt]")).toContain("Balance now 105,000 CC");
  await page.waitForSelector("[data-testid=low-balance]", { state: "detached" });
  expect(await page.textContent("[data-testid=topups-table]")).toContain("paid");
  await keepScreenshot(page, { path: join(SHOTS, "topup-paid-420.png"), fullPage: true });
  expect(await overflow(page)).toBeLessThanOrEqual(0);

  const csv = await page.evaluate(async () => (await fetch("/dashboard/topups.csv")).text());
  expect(csv.split("\r\n")[0]).toBe(
    "invoice,created_at,network,address,sats,credits,status,paid_sats,confirmed_sats,expires_at,paid_at,txids",
  );
  expect(csv).toContain(`,${address},10000,100000,paid,10000,10000,`);
  expect(csv).toContain((paid as { txid: string }).txid);
});
