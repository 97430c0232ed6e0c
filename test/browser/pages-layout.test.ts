// The public pages a new user opens first — the front door, the catalogue (and its signed-in
// form) — at desktop and phone widths: nothing wider than the screen, no text too small to read.
// Screenshots are left in the temporary folder for a person to look at.
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keepScreenshot, launchChromium } from "../support/browser.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";

const SHOTS = join(tmpdir(), "blockgate-pages");

let t: TestGateway;
let browser: Browser;
let token: string;
beforeAll(async () => {
  t = await startTestGateway("pglite");
  browser = await launchChromium();
  ({ token } = await t.account("reader", 1_000));
});
afterAll(async () => {
  await browser?.close();
  await t.close();
});

/** A browser context signed in to the dashboard, so /dashboard/methods shows the session. */
async function signedIn(width: number): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${t.url}/dashboard`);
  await page.fill("#token", token);
  await page.click("button[type=submit]");
  await page.waitForSelector("[data-testid=keys-table]");
  await page.close();
  return context;
}

const PAGES = [
  ["home", "/"],
  ["methods", "/methods"],
  ["signed-in-methods", "/dashboard/methods"],
] as const;

describe("the public pages' layout", () => {
  for (const width of [1280, 420]) {
    it(`/, /methods and /dashboard/methods fit ${width} px with readable text`, async () => {
      const context = await signedIn(width);
      mkdirSync(SHOTS, { recursive: true });
      for (const [name, path] of PAGES) {
        const page = await context.newPage();
        const res = await page.goto(`${t.url}${path}`);
        expect(res?.status(), path).toBe(200);
        const overflow = await page.evaluate(
          () => document.scrollingElement!.scrollWidth - innerWidth,
        );
        expect(overflow, `${path} at ${width} px`).toBeLessThanOrEqual(0);
        // The smallest text shown: under 12 px is too small to read on a phone.
        const smallest = await page.evaluate(() => {
          let min = Number.POSITIVE_INFINITY;
          const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const parent = n.parentElement;
            if (!parent || !n.textContent?.trim() || parent.getClientRects().length === 0) continue;
            min = Math.min(min, Number.parseFloat(getComputedStyle(parent).fontSize));
          }
          return min;
        });
        expect(smallest, `${path} at ${width} px`).toBeGreaterThanOrEqual(12);
        if (name === "signed-in-methods") {
          expect(await page.textContent("[data-testid=signed-in]")).toContain("reader");
        }
        await keepScreenshot(page, { path: join(SHOTS, `${name}-${width}.png`) });
        await page.close();
      }
      await context.close();
    });
  }
});
