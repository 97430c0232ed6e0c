import { readFileSync } from "node:fs";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/browser.ts";
import { gql } from "../support/graphql.ts";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { operatorCredential } from "../support/operator.ts";

const operator = operatorCredential();
let t: TestGateway;
let browser: Browser;
beforeAll(async () => {
  t = await startTestGateway("pglite", { operator: { tokenSha256: [operator.sha256] } });
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
    await db.query("UPDATE audit_records SET at = at - interval '20 days' WHERE account_id = $1", [
      id,
    ]);

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
    // The bad txid is a call too (rejected before forwarding, 0 CC); the miss was answered, so charged.
    expect(rows).toEqual([
      ["gateway", "mainnet", "graphql", "1", "200"],
      ["node", "mainnet", "getrawtransaction", "5", "800"],
      ["node", "regtest", "getrawtransaction", "2", "200"],
    ]);
    // Today's bar carries today's charges.
    const today = new Date().toISOString().slice(0, 10);
    expect(
      await page.getAttribute(`[data-testid=usage-chart] rect[data-day="${today}"]`, "data-cc"),
    ).toBe("1200");
    expect(await page.textContent("[data-testid=cycle-charged]")).toBe("1,200 CC · 8 calls");

    // The earlier cycle.
    await page.selectOption("[data-testid=cycle-select]", "0");
    await page.waitForFunction(() => document.body.dataset.loadedCycle === "0");
    expect(
      await page.$$eval("[data-testid=usage-table] tbody tr", (trs) =>
        trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent)),
      ),
    ).toEqual([["node", "mainnet", "getrawtransaction", "2", "400"]]);

    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.click("[data-testid=csv-audit]"),
    ]);
    const csv = parseCsv(readFileSync((await download.path())!, "utf8"));
    const { rows: audit } = await db.query<{ id: number; charged_cc: number; method: string }>(
      `SELECT id, charged_cc, method FROM audit_records WHERE account_id = $1 AND at < now() - interval '10 days' ORDER BY id`,
      [id],
    );
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
