import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditRecords, backdateAudit } from "../support/audit.ts";
import { keepScreenshot, launchChromium } from "../support/browser.ts";
import { someAddress } from "../support/devnet-core.ts";
import { gql } from "../support/graphql.ts";
import {
  askDevnetCore,
  HAL_TXID,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { operatorCredential } from "../support/operator.ts";

const operator = operatorCredential();
let t: TestGateway;
let browser: Browser;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    operator: { tokenSha256: [operator.sha256] },
    // The Webhooks view's receiver listens on 127.0.0.1; blocks are announced when asked.
    webhooks: { allowTargets: ["127.0.0.1/32"] },
    events: { pollMs: 60_000 },
  });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await t.close();
});

/** Parses RFC 4180 CSV as the export writes it (no embedded line breaks in our fields). */
function parseCsv(text: string): Record<string, string>[] {
  const [head, ...lines] = text.trim().split(/\r\n/);
  const names = head!.split(",");
  return lines.map((line) => Object.fromEntries(line.split(",").map((v, i) => [names[i]!, v])));
}

describe("the usage dashboard", () => {
  it("signs in, shows the cycle's chart and table, opens an earlier cycle and downloads its CSV", async () => {
    const { id, token } = await t.account("viewer", 100_000);
    const db = t.gateway.app.db;
    const node = (network: string) => `${t.url}/node/${network}/${token}`;
    // An account created 40 days ago: cycle 0 is [−40 d, −10 d), cycle 1 (current) [−10 d, +20 d).
    await db.query("UPDATE accounts SET created_at = now() - interval '40 days' WHERE id = $1", [
      id,
    ]);

    // Earlier cycle: two mainnet look-ups (400 CC), moved 20 days back.
    for (let i = 0; i < 2; i++) await post(node("mainnet"), rpc("getrawtransaction", [HAL_TXID]));
    await backdateAudit(db, id, 20);

    // This cycle: 3 mainnet (600), 2 regtest (200), one miss (-5, 200), one GraphQL look-up (200), one bad txid (free).
    for (let i = 0; i < 3; i++)
      await post(node("mainnet"), rpc("getrawtransaction", [HAL_TXID, true]));
    for (let i = 0; i < 2; i++) await post(node("regtest"), rpc("getrawtransaction", [HAL_TXID]));
    await post(node("mainnet"), rpc("getrawtransaction", ["00".repeat(32)]));
    await post(node("mainnet"), rpc("getrawtransaction", ["bad"]));
    await gql(`${t.url}/gateway/mainnet/${token}`, `{ transaction(txid: "${HAL_TXID}") { txid } }`);

    const context = await browser.newContext({ acceptDownloads: true });
    const page = await context.newPage();
    const urls: string[] = [];
    page.on("request", (r) => urls.push(r.url()));
    page.on("framenavigated", (f) => urls.push(f.url()));
    await page.goto(`${t.url}/dashboard`);
    await page.fill("#token", token);
    await page.click("button[type=submit]");
    await page.waitForSelector("[data-testid=usage-table]");
    expect(new URL(page.url()).pathname).toBe("/dashboard");

    expect(await page.textContent("[data-testid=available]")).toBe(
      `${(100_000 - 400 - 1200).toLocaleString("en-US")} CC`,
    );
    const rows = await page.$$eval("[data-testid=usage-table] tbody tr", (trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
    );
    // The bad txid is a call too, refused before forwarding (0 CC): counted apart from the
    // billed calls. The miss was answered, so charged.
    expect(rows).toEqual([
      ["gateway", "mainnet", "graphql", "1", "0", "200"],
      ["node", "mainnet", "getrawtransaction", "4", "1", "800"],
      ["node", "regtest", "getrawtransaction", "2", "0", "200"],
    ]);
    // Today's figures are drawn, and listed beside the chart.
    const today = new Date().toISOString().slice(0, 10);
    const todayRow = `[data-testid=usage-chart] ~ details tr[data-day="${today}"]`;
    expect(await page.getAttribute(todayRow, "data-cc")).toBe("1200");
    expect(await page.getAttribute(todayRow, "data-calls")).toBe("8");
    // Billed and refused apart, per day: the refused call is its own line and column.
    expect(await page.getAttribute(todayRow, "data-refused")).toBe("1");
    expect(await page.textContent("[data-testid=cycle-charged]")).toBe("1,200 CC · 7 calls");
    expect(await page.textContent("[data-testid=cycle-refused]")).toBe("1 refused, not billed");
    // The ones that ran and failed are a line of their own: Core's -5 for the mainnet miss and
    // for both regtest look-ups (Hal's transaction is not on regtest).
    expect(await page.getAttribute(todayRow, "data-failed")).toBe("3");
    // The charts' axes are labelled; latency has its own chart.
    expect(await page.textContent("[data-testid=usage-y-title]")).toBe("CC / day");
    expect(await page.textContent("[data-testid=usage-x-title]")).toBe("day (UTC)");
    await page.waitForSelector("[data-testid=latency-chart] canvas");
    // No plan: the panel says what limits the account.
    expect(await page.textContent("[data-testid=plan]")).toContain("limited only by your credits");

    // Per hour, of one network: this hour's regtest calls alone.
    await page.click("[data-testid=bucket-HOUR] + span");
    await page.waitForFunction(() =>
      document.querySelector<HTMLElement>(".chart-area")?.dataset.shown?.startsWith("HOUR:"),
    );
    await page.selectOption("[data-testid=timeline-network]", "regtest");
    await page.waitForFunction(
      () => document.querySelector<HTMLElement>(".chart-area")?.dataset.shown === "HOUR:regtest:",
    );
    const hour = `${new Date().toISOString().slice(0, 13).replace("T", " ")}:00`;
    const hourRow = `[data-testid=usage-chart] ~ details tr[data-hour="${hour}"]`;
    expect(await page.getAttribute(hourRow, "data-calls")).toBe("2");
    expect(await page.textContent("[data-testid=usage-x-title]")).toBe("hour (UTC)");

    // The earlier cycle.
    await page.selectOption("[data-testid=cycle-select]", "0");
    await page.waitForFunction(() => document.body.dataset.loadedCycle === "0");
    expect(
      await page.$$eval("[data-testid=usage-table] tbody tr", (trs) =>
        trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
      ),
    ).toEqual([["node", "mainnet", "getrawtransaction", "2", "0", "400"]]);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.click("[data-testid=csv-audit]"),
    ]);
    const csv = parseCsv(readFileSync((await download.path())!, "utf8"));
    const audit = await auditRecords(db, { accountId: id, olderThanDays: 10 }, [
      "id",
      "charged_cc",
      "method",
    ]);
    expect(csv.map((r) => [Number(r.id), Number(r.charged_cc), r.method])).toEqual(
      audit.map((r) => [r.id, r.charged_cc, r.method]),
    );
    expect(audit).toHaveLength(2);

    // The token is in no URL the browser saw, no log line and no metric.
    const secret = token.slice(4);
    expect(urls.filter((u) => u.includes(secret))).toEqual([]);
    expect(t.logs.join("\n")).not.toContain(secret);
    const metrics = await (await fetch(`${t.url}/metrics`, { headers: operator.headers })).text();
    expect(metrics).toContain("blockgate_http_requests_total");
    expect(metrics).not.toContain(secret);
    const cookies = await context.cookies();
    expect(cookies.find((c) => c.name === "bg_session")).toMatchObject({
      httpOnly: true,
      sameSite: "Strict",
    });
    await context.close();
  });
});

describe("dashboard security", () => {
  it("a wrong token gets the form back with 401; no session, no GraphQL, no CSV", async () => {
    const res = await fetch(`${t.url}/dashboard/session`, {
      method: "POST",
      body: new URLSearchParams({ token: `bgt_${"z".repeat(43)}` }),
      redirect: "manual",
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("set-cookie")).toBeNull();
    expect((await fetch(`${t.url}/dashboard/graphql`, { method: "POST", body: "{}" })).status).toBe(
      401,
    );
    expect((await fetch(`${t.url}/dashboard/export.csv`)).status).toBe(401);
  });

  it("revoking the token ends its sessions; GraphQL needs JSON (no cross-site form posts)", async () => {
    const { token, tokenId } = await t.account("revoked-viewer", 1000);
    const signIn = await fetch(`${t.url}/dashboard/session`, {
      method: "POST",
      body: new URLSearchParams({ token }),
      redirect: "manual",
    });
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
    const ask = (type: string) =>
      fetch(`${t.url}/dashboard/graphql`, {
        method: "POST",
        headers: { cookie, "content-type": type },
        body: '{"query":"{ account { name } }"}',
      });
    expect((await ask("text/plain")).status).toBe(415);
    expect((await ask("application/json")).status).toBe(200);
    await t.gateway.app.db.query("UPDATE tokens SET revoked_at = now() WHERE id = $1", [tokenId]);
    expect((await ask("application/json")).status).toBe(401);
  });
});

describe("the Keys view, on a phone", () => {
  it("creates a key shown once, restricts, rotates and revokes keys, without horizontal overflow at 420 px", async () => {
    const { token } = await t.account("keyholder", 100_000);
    // Some usage, so the tables and the chart are drawn too.
    await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", [HAL_TXID]));
    await post(`${t.url}/node/mainnet/${token}`, rpc("getrawtransaction", ["bad"]));
    const context = await browser.newContext({ viewport: { width: 420, height: 900 } });
    const page = await context.newPage();
    page.on("dialog", (d) => void d.accept());
    await page.goto(`${t.url}/dashboard`);
    await page.fill("#token", token);
    await page.click("button[type=submit]");
    await page.waitForSelector("[data-testid=keys-table]");
    const overflow = () =>
      page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
    expect(await overflow()).toBe(0);

    // Create, with a scope: the token is shown once, and it works within its scope only.
    await page.click("details.new-key summary");
    await page.fill("[data-testid=key-label]", "phone app");
    await page.fill("[data-testid=create-key] [data-testid=scope-networks]", "mainnet");
    await page.click("[data-testid=create-key-submit]");
    const created = (await page.locator("[data-testid=new-token-value]").textContent())!;
    expect(created).toMatch(/^bgt_[A-Za-z0-9_-]{43}$/);
    expect(
      (await post(`${t.url}/node/mainnet/${created}`, rpc("getrawtransaction", [HAL_TXID]))).status,
    ).toBe(200);
    expect(
      (await post(`${t.url}/node/regtest/${created}`, rpc("getrawtransaction", [HAL_TXID]))).status,
    ).toBe(403);
    const row = page.locator("[data-testid=keys-table] tr", { hasText: "phone app" });
    await expect.poll(() => row.textContent()).toContain("networks: mainnet");
    expect(await overflow()).toBe(0);
    const { rows } = await t.gateway.app.db.query<{ id: number }>(
      "SELECT id FROM tokens WHERE label = 'phone app'",
    );
    const id = rows[0]!.id;

    // Restrict: the scope is replaced at once.
    await row.locator("details summary").click();
    await page.fill(`[data-testid=restrict-${id}] [data-testid=scope-networks]`, "regtest");
    await page.click(`[data-testid=restrict-${id}] button[type=submit]`);
    await expect.poll(() => page.textContent("[data-testid=keys-message]")).toContain("saved");
    expect(
      (await post(`${t.url}/node/mainnet/${created}`, rpc("getrawtransaction", [HAL_TXID]))).status,
    ).toBe(403);

    // Rotate: a new key is shown; the old one keeps working through its grace period.
    await page.click(`[data-testid=rotate-${id}]`);
    await expect
      .poll(() => page.locator("[data-testid=new-token-value]").textContent())
      .not.toBe(created);
    const successor = (await page.locator("[data-testid=new-token-value]").textContent())!;
    expect(
      (await post(`${t.url}/node/regtest/${successor}`, rpc("getrawtransaction", [HAL_TXID])))
        .status,
    ).toBe(200);
    expect(
      (await post(`${t.url}/node/regtest/${created}`, rpc("getrawtransaction", [HAL_TXID]))).status,
    ).toBe(200);

    // Revoke: its next call gets 401.
    await page.click(`[data-testid=revoke-${id}]`);
    await expect.poll(() => page.textContent("[data-testid=keys-message]")).toContain("revoked");
    expect(
      (await post(`${t.url}/node/regtest/${created}`, rpc("getrawtransaction", [HAL_TXID]))).status,
    ).toBe(401);
    expect(await overflow()).toBe(0);
    await keepScreenshot(page, { path: "test-results/dashboard-phone.png", fullPage: true });
    // The token is shown in the page, never put in a URL.
    await context.close();
  });
});

describe("the Webhooks view", () => {
  it("adds an endpoint (its secret shown once), shows each delivery attempt with its status and latency, deletes it", async () => {
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      received.push(String(req.headers["webhook-id"]));
      req.resume();
      req.on("end", () => res.writeHead(204).end());
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const { token } = await t.account("hookholder", 100_000);
    await t.gateway.app.events.pollNow(); // tips known: the next look announces the block below
    const context = await browser.newContext();
    const page = await context.newPage();
    page.on("dialog", (d) => void d.accept());
    await page.goto(`${t.url}/dashboard`);
    await page.fill("#token", token);
    await page.click("button[type=submit]");
    await page.waitForSelector("[data-testid=webhooks-table]");

    await page.click("details.new-webhook summary");
    await page.fill("[data-testid=webhook-url]", hookUrl);
    await page.selectOption("[data-testid=webhook-network]", "regtest");
    await page.click("[data-testid=create-webhook-submit]");
    const secret = (await page.locator("[data-testid=new-webhook-secret]").textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const row = page.locator("[data-testid=webhooks-table] tr", { hasText: hookUrl });
    await expect.poll(() => row.textContent()).toContain("live");

    // A block: one delivery, accepted; on the next load the attempt is listed with its status.
    await askDevnetCore(t.devnet, "generatetoaddress", [1, someAddress("regtest")], "regtest");
    await t.gateway.app.events.pollNow();
    await expect.poll(() => received.length, { timeout: 10_000 }).toBe(1);
    await expect
      .poll(async () => {
        const { rows } = await t.gateway.app.db.query<{ status: string }>(
          "SELECT status FROM webhook_messages",
        );
        return rows.map((r) => r.status);
      })
      .toEqual(["delivered"]);
    await page.reload();
    await page.waitForSelector("[data-testid=webhooks-table]");
    await row.locator("details summary").click();
    const attempt = row.locator("[data-testid^=attempts-] tbody tr");
    await expect.poll(() => attempt.textContent()).toContain(received[0]!);
    expect(await attempt.textContent()).toMatch(/delivered204\d+/);

    await row.locator("[data-testid^=delete-webhook-]").click();
    await expect
      .poll(() => page.textContent("[data-testid=webhooks-message]"))
      .toContain("deleted");
    await expect.poll(() => row.textContent()).toContain("ended (deleted)");
    await context.close();
    await new Promise((resolve) => receiver.close(resolve));
  });
});
