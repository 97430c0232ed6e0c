import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditTotals } from "../support/audit.ts";
import { keepScreenshot, launchChromium } from "../support/browser.ts";
import { someAddress } from "../support/devnet-core.ts";
import { askDevnetCore, HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";

let t: TestGateway;
let browser: Browser;
beforeAll(async () => {
  // The chain follower on (a poll a minute: the test's own look announces the block).
  t = await startTestGateway("pglite", { events: { pollMs: 60_000 } });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t.close();
});

describe("GraphiQL", () => {
  it("loads offline in headless Chromium with the token applied, and runs a query and a subscription", async () => {
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
    await keepScreenshot(page, { path: "test-results/graphiql.png" });
    // A tab per typed chain field beside it, ready to run.
    expect(await page.locator(".graphiql-tab-button").allTextContents()).toEqual([
      "FirstPayment",
      "Block170",
      "Chain",
      "BusyAddress",
      "Proof",
      "NewBlock",
    ]);
    expect(external).toEqual([]);
    // The run was charged to the token's account, like any other request.
    expect(await auditTotals(t.gateway.app.db, { accountName: "explorer" }, ["charged"])).toEqual({
      charged: 200,
    });

    // A subscription runs too (GraphiQL reads it as Server-Sent Events): the NewBlock tab shows
    // the block mined once it is open.
    await t.gateway.app.events.pollNow(); // the first look: tips known
    await page.locator(".graphiql-tab-button", { hasText: "NewBlock" }).click();
    // Run once GraphiQL has taken the tab's operation in (it then writes it to the page's URL):
    // run before, it sends the previous tab's operation name ("Cannot infer operation ...").
    await expect.poll(() => page.url(), { timeout: 20_000 }).toContain("subscription+NewBlock");
    await run.click();
    await expect.poll(() => t.gateway.app.events.subscribers(), { timeout: 20_000 }).toBe(1);
    const mined = JSON.parse(
      await askDevnetCore(t.devnet, "generatetoaddress", [1, someAddress("mainnet")], "mainnet"),
    ) as { result: string[] };
    await t.gateway.app.events.pollNow();
    await expect.poll(text, { timeout: 20_000 }).toContain(`"hash":"${mined.result[0]}"`);
    expect(await text()).toContain('"kind":"CONNECTED"');
  });

  it("at phone width the editor and the answer are stacked, each the full width", async () => {
    const { token } = await t.account("pocket", 10_000);
    const page = await browser.newPage({ viewport: { width: 420, height: 860 } });
    await page.goto(`${t.url}/gateway/mainnet/${token}`);
    const run = page.locator(".graphiql-execute-button");
    await run.waitFor({ timeout: 20_000 });
    await run.click();
    const response = page.locator(".graphiql-response");
    await expect
      .poll(async () => ((await response.textContent()) ?? "").replace(/\s+/g, ""), {
        timeout: 20_000,
      })
      .toContain(HAL_TXID);
    const editors = await page.locator(".graphiql-editors").boundingBox();
    const answer = await response.boundingBox();
    await keepScreenshot(page, { path: "test-results/graphiql-420.png" });
    // Each pane takes most of the width, and the answer sits below the editor.
    expect(editors!.width).toBeGreaterThan(300);
    expect(answer!.width).toBeGreaterThan(300);
    expect(answer!.y).toBeGreaterThan(editors!.y);
    await page.close();
  });
});
