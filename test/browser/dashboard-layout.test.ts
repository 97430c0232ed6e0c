import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setAccountPlan } from "../../src/billing/ledger/accounts.ts";
import { keepScreenshot, launchChromium } from "../support/browser.ts";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";

/** Where the screenshots of the page at each width are left, to be looked at. */
const SHOTS = join(tmpdir(), "blockgate-dashboard");

let t: TestGateway;
let browser: Browser;
let token: string;
beforeAll(async () => {
  // A plan with every kind of limit, so its card shows caps against use and the rates.
  const plans = {
    pro: {
      token: { requestsPerSecond: 20, burst: 10 },
      concurrentCalls: 8,
      creditsPerDay: 1_000,
      creditsPerCycle: 20_000,
    },
  };
  t = await startTestGateway("pglite", { plans });
  browser = await launchChromium();
  let id: number;
  ({ id, token } = await t.account("layout", 100_000));
  await setAccountPlan(t.gateway.app.db, id, "pro");
  // Some usage, refused and billed, so the chart and every table have rows.
  await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
  await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", ["bad"]));
});
afterAll(async () => {
  await browser?.close();
  await t.close();
});

async function signedIn(width: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: t.url });
  const page = await context.newPage();
  await page.goto(`${t.url}/dashboard`);
  await page.fill("#token", token);
  await page.click("button[type=submit]");
  await page.waitForSelector("[data-testid=keys-table]");
  await page.waitForSelector("[data-testid=usage-chart] canvas");
  return page;
}

/** Opens every collapsed part (new key, new webhook, restrict, figures), the widest the page gets. */
const openAll = (page: Page) =>
  page.evaluate(() => {
    for (const d of document.querySelectorAll("details")) d.open = true;
  });

const overflow = (page: Page) =>
  page.evaluate(() => document.scrollingElement!.scrollWidth - innerWidth);

/** The inputs, selects and buttons that have no accessible name: no label, aria-label or text. */
const unlabelled = (page: Page) =>
  page.$$eval("input, select, textarea, button", (controls) =>
    controls
      .filter((c) => {
        const own = c.getAttribute("aria-label") ?? c.getAttribute("aria-labelledby") ?? "";
        const labels = (c as HTMLInputElement).labels ?? [];
        const text = c.tagName === "BUTTON" ? (c.textContent ?? "").trim() : "";
        return own.trim() === "" && labels.length === 0 && text === "";
      })
      .map((c) => c.outerHTML.slice(0, 120)),
  );

describe("the dashboard's layout", () => {
  for (const width of [1280, 420]) {
    it(`fits ${width} px without horizontal overflow, every control labelled, the chart drawn`, async () => {
      const page = await signedIn(width);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      await openAll(page);
      expect(await overflow(page)).toBeLessThanOrEqual(0);
      expect(await unlabelled(page)).toEqual([]);
      // The plan's caps against use: the one billed call's 200 CC of the day's 1,000.
      expect(await page.textContent("[data-testid=cap-day] .sub")).toMatch(/^200 of 1,000 CC/);
      expect(await page.getAttribute("[data-testid=cap-day] meter", "value")).toBe("200");

      // The chart is a canvas of its box's width, not a fixed drawing scaled down.
      const canvas = await page.locator("[data-testid=usage-chart] canvas").first().boundingBox();
      const box = await page.locator("[data-testid=usage-plot]").boundingBox();
      expect(canvas!.width).toBeGreaterThan(0);
      expect(canvas!.height).toBeGreaterThan(100);
      expect(Math.abs(canvas!.width - box!.width)).toBeLessThanOrEqual(2);

      // A table wider than the screen scrolls in its own box, which says so.
      const wide = page.locator(".scroll.overflowing");
      if (width === 420) {
        expect(await wide.count()).toBeGreaterThan(0);
        expect(await page.locator(".scroll.overflowing + .scroll-cue").first().isVisible()).toBe(
          true,
        );
        // The keys, with their forms, are stacked as blocks instead: nothing to scroll there.
        const keys = page.locator(".scroll", { has: page.locator("[data-testid=keys-table]") });
        expect(await keys.evaluate((b) => b.scrollWidth - b.clientWidth)).toBeLessThanOrEqual(0);
      }
      mkdirSync(SHOTS, { recursive: true });
      await keepScreenshot(page, { path: join(SHOTS, `dashboard-${width}.png`), fullPage: true });
      // The first screen alone, as a person opening the page sees it.
      await page.evaluate(() => scrollTo(0, 0));
      await keepScreenshot(page, { path: join(SHOTS, `dashboard-${width}-first-screen.png`) });
      await page.context().close();
    });
  }

  it("redraws the chart to its box's new width when the window is resized", async () => {
    const page = await signedIn(1280);
    const canvas = page.locator("[data-testid=usage-chart] canvas").first();
    const wide = (await canvas.boundingBox())!.width;
    expect(wide).toBeGreaterThan(420);
    await page.setViewportSize({ width: 420, height: 900 });
    // Narrower than the phone's screen, and as wide as its box there.
    await expect.poll(async () => (await canvas.boundingBox())!.width).toBeLessThan(420);
    const box = (await page.locator("[data-testid=usage-plot]").boundingBox())!;
    expect(Math.abs((await canvas.boundingBox())!.width - box.width)).toBeLessThanOrEqual(2);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await page.context().close();
  });
});

describe("the dashboard's forms", () => {
  it("the webhook form shows only the chosen event's own fields", async () => {
    const page = await signedIn(1280);
    await page.click("details.new-webhook summary");
    const form = "[data-testid=create-webhook]";
    const visible = async () =>
      page.$$eval(`${form} label.field`, (labels) =>
        labels
          .filter((l) => !(l as HTMLElement).hidden)
          .map((l) => l.querySelector("input, select")!.getAttribute("name")),
      );
    const common = ["url", "event", "network", "description"];
    expect(await visible()).toEqual(common);
    await page.selectOption(`${form} [data-testid=webhook-event]`, "transactionConfirmations");
    expect(await visible()).toEqual([...common.slice(0, 3), "txid", "until", "description"]);
    await page.selectOption(`${form} [data-testid=webhook-event]`, "addressActivity");
    expect(await visible()).toEqual([...common.slice(0, 3), "address", "description"]);
    await page.selectOption(`${form} [data-testid=webhook-event]`, "mempoolFees");
    expect(await visible()).toEqual([...common.slice(0, 3), "targets", "description"]);
    // The labels are words, with a hint the field is described by.
    const label = page.locator(`${form} label.field`, { has: page.locator("[name=targets]") });
    expect(await label.locator(".label").textContent()).toBe(
      "Confirmation targets (blocks, comma-separated)",
    );
    const hint = await page.getAttribute(`${form} [name=targets]`, "aria-describedby");
    expect(await page.locator(`#${hint}`).textContent()).toContain("1008 blocks");
    await page.context().close();
  });

  it("a new key is shown with a Copy button beside it that copies it and says so", async () => {
    const page = await signedIn(420);
    await page.click("details.new-key summary");
    const ips = page.locator("[data-testid=create-key] label.field", {
      has: page.locator("[name=ips]"),
    });
    expect(await ips.locator(".label").textContent()).toBe(
      "Allowed IP ranges (CIDR, comma-separated)",
    );
    await page.fill("[data-testid=key-label]", "copied key");
    await page.click("[data-testid=create-key-submit]");
    const value = page.locator("[data-testid=new-token-value]");
    const created = (await value.textContent())!;
    expect(created).toMatch(/^bgt_[A-Za-z0-9_-]{43}$/);
    const copy = page.locator("[data-testid=copy-new-token-value]");
    // Beside the key: in the same box, right after it.
    expect(await copy.evaluate((b) => b.previousElementSibling?.textContent)).toBe(created);
    expect(await copy.getAttribute("aria-label")).toBe("Copy the new key");
    await copy.click();
    await expect.poll(() => copy.getAttribute("data-state")).toBe("copied");
    expect(await copy.textContent()).toContain("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(created);
    expect(await overflow(page)).toBeLessThanOrEqual(0);
    await page.context().close();
  });
});
