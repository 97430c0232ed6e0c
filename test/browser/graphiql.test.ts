import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/browser.ts";
import { HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";

let t: TestGateway;
let browser: Browser;
beforeAll(async () => {
  t = await startTestGateway();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t.close();
});

describe("GraphiQL", () => {
  it("loads offline in headless Chromium with the token applied, and runs a query", async () => {
    const { token } = await t.account("explorer", 10_000);
    const page = await browser.newPage();
    const external: string[] = [];
    page.on("request", (req) => {
      if (
        !req.url().startsWith(t.url) &&
        !req.url().startsWith("blob:") &&
        !req.url().startsWith("data:")
      ) {
        external.push(req.url());
      }
    });
    await page.goto(`${t.url}/gateway/mainnet/${token}`);
    // The default query asks for the first Bitcoin payment; run it with the execute button.
    const run = page.locator(".graphiql-execute-button");
    await run.waitFor({ timeout: 20_000 });
    await run.click();
    const response = page.locator(".graphiql-response");
    // The editor wraps long lines, so compare without whitespace.
    const text = async () => ((await response.textContent()) ?? "").replace(/\s+/g, "");
    await expect.poll(text, { timeout: 20_000 }).toContain(`"txid":"${HAL_TXID}"`);
    expect(await text()).toContain('"btc":"40.00000000"');
    await page.screenshot({ path: "test-results/graphiql.png" }).catch(() => {});
    // A tab per typed chain field beside it, ready to run.
    expect(await page.locator(".graphiql-tab-button").allTextContents()).toEqual([
      "FirstPayment",
      "Block170",
      "Chain",
      "BusyAddress",
      "Proof",
    ]);
    expect(external).toEqual([]);
    // The run was charged to the token's account, like any other request.
    const { rows } = await t.gateway.app.db.query<{ charged: number }>(
      "SELECT sum(charged_cc)::int AS charged FROM audit_records a JOIN accounts c ON c.id = a.account_id WHERE c.name = 'explorer'",
    );
    expect(rows[0]!.charged).toBe(200);
  });
});
