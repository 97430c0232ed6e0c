// Browser origins (CORS) per token, in headless Chromium: a page on an origin the token lists can
// call the gateway and read the answer; a page on any other origin cannot — its preflight is
// refused, so the call is never sent. Two pages on two local servers are two origins.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "../../src/access/tokens.ts";
import { auditTotals } from "../support/audit.ts";
import { launchChromium } from "../support/browser.ts";
import { callsRead } from "../support/core-calls.ts";
import { HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";

let t: TestGateway;
let browser: Browser;
const pages: Server[] = [];

/** A server whose one page is blank: the test runs its script with page.evaluate. */
async function pageServer(): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end("<!doctype html><title>app</title>");
  });
  pages.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  t = await startTestGateway("pglite", { networks: ["mainnet"] });
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  for (const s of pages) s.close();
  await t?.close();
});

/** From a page on `origin`, POST a JSON-RPC call; what the page's script could see. */
async function callFrom(origin: string, url: string, headers: Record<string, string> = {}) {
  const page = await browser.newPage();
  try {
    await page.goto(origin);
    return await page.evaluate(
      async ({ url, headers, txid }) => {
        try {
          const res = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json", ...headers },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "getrawtransaction",
              params: [txid],
            }),
          });
          return {
            status: res.status,
            charged: res.headers.get("x-credits-charged"),
            body: await res.json(),
          };
        } catch (err) {
          return { failed: String(err) };
        }
      },
      { url, headers, txid: HAL_TXID },
    );
  } finally {
    await page.close();
  }
}

describe("a token's browser origins", () => {
  it("a page on a listed origin calls and reads the answer; a page on another origin cannot call", async () => {
    const allowed = await pageServer();
    const other = await pageServer();
    const acc = await t.account("frontend", 100_000);
    const { token } = await issueToken(t.gateway.app.db, acc.id, { scope: { origins: [allowed] } });
    const read = callsRead(t.devnet.cores.get("mainnet")!, "getrawtransaction");

    const ok = await callFrom(allowed, `${t.url}/node/mainnet/${token}`);
    expect(ok).toMatchObject({ status: 200, charged: "200", body: { result: expect.any(String) } });

    const refused = await callFrom(other, `${t.url}/node/mainnet/${token}`);
    expect(refused).toEqual({ failed: expect.stringContaining("Failed to fetch") });
    // With the token in a header the preflight cannot name it; the call is refused instead.
    const viaHeader = await callFrom(other, `${t.url}/node/mainnet`, {
      authorization: `Bearer ${token}`,
    });
    expect(viaHeader).toEqual({ failed: expect.stringContaining("Failed to fetch") });
    const allowedViaHeader = await callFrom(allowed, `${t.url}/node/mainnet`, {
      authorization: `Bearer ${token}`,
    });
    expect(allowedViaHeader).toMatchObject({ status: 200 });

    // Only the two allowed calls reached the node and were charged.
    read.stop();
    expect(read.count()).toBe(2);
    expect(await auditTotals(t.gateway.app.db, { accountId: acc.id }, ["charged"])).toEqual({
      charged: 400,
    });
  });

  it("preflights are answered per token; a token listing no origins gives browsers none", async () => {
    const allowed = await pageServer();
    const acc = await t.account("preflight", 100_000);
    const scoped = await issueToken(t.gateway.app.db, acc.id, { scope: { origins: [allowed] } });
    const open = await issueToken(t.gateway.app.db, acc.id);
    const preflight = (token: string, origin: string) =>
      fetch(`${t.url}/node/mainnet/${token}`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type",
        },
      });
    const yes = await preflight(scoped.token, allowed);
    expect(yes.status).toBe(204);
    expect(yes.headers.get("access-control-allow-origin")).toBe(allowed);
    expect(yes.headers.get("access-control-allow-methods")).toBe("POST, OPTIONS");
    const no = await preflight(scoped.token, "https://evil.example");
    expect(no.status).toBe(403);
    expect(no.headers.get("access-control-allow-origin")).toBeNull();
    const none = await preflight(open.token, allowed);
    expect(none.status).toBe(403);

    // A request that skips the preflight (a "simple" one) from an unlisted origin: refused, 403.
    const simple = await fetch(`${t.url}/node/mainnet/${scoped.token}`, {
      method: "POST",
      headers: { origin: "https://evil.example", "content-type": "text/plain" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "getrawtransaction",
        params: [HAL_TXID],
      }),
    });
    expect(simple.status).toBe(403);
    expect(await simple.json()).toMatchObject({ error: { code: -32033 } });
  });
});
