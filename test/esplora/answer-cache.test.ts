import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditOf } from "../support/audit.ts";
import { BLOCK_170_JSON } from "../support/esplora-answers.ts";
import { BLOCK_170, startTestGateway, type TestGateway } from "../support/harness.ts";

/**
 * Esplora answers a block's hash fixes for good are served again without asking Esplora, charged
 * as the call they answer; what the tip moves is asked every time.
 */
let t: TestGateway;
let base: string;
beforeAll(async () => {
  t = await startTestGateway("pglite", { networks: ["mainnet"] });
  const { token } = await t.account("esplora-cache", 1_000_000);
  base = `${t.url}/esplora/mainnet/${token}/api`;
});
afterAll(() => t.close());

const forwarded = () => t.devnet.esplora.get("mainnet")!.stats.requests;

async function get(path: string) {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, text: await res.text(), res };
}

describe("the Esplora route's kept answers", () => {
  it.each([
    ["the block", `/block/${BLOCK_170}`],
    ["its header", `/block/${BLOCK_170}/header`],
    ["its txids", `/block/${BLOCK_170}/txids`],
    ["one txid", `/block/${BLOCK_170}/txid/1`],
    ["its raw bytes", `/block/${BLOCK_170}/raw`],
  ])("%s: asked once, then the same bytes and price from the cache", async (_what, path) => {
    const before = forwarded();
    const first = await get(path);
    expect(first.status).toBe(200);
    expect(forwarded()).toBe(before + 1);
    const again = await get(path);
    expect(forwarded()).toBe(before + 1);
    expect(again.text).toBe(first.text);
    expect(again.res.headers.get("content-type")).toBe(first.res.headers.get("content-type"));
    const charged = (r: typeof first) => r.res.headers.get("x-credits-charged");
    expect(charged(again)).toBe(charged(first));
    const [record] = await auditOf(t.gateway.app.db, again.res.headers.get("x-request-id"), [
      "upstream",
      "cache_hits",
      "outcome",
    ]);
    expect(record).toEqual({ upstream: "cache", cache_hits: 1, outcome: "ok" });
  });

  it("keeps Esplora's own bytes: block 170 as blockstream.info answers it", async () => {
    expect((await get(`/block/${BLOCK_170}`)).text).toBe(BLOCK_170_JSON);
  });

  it.each([
    ["a block's status (the tip moves it)", `/block/${BLOCK_170}/status`],
    ["a height", "/block-height/170"],
    ["the tip", "/blocks/tip/height"],
    ["an unknown block (404)", `/block/${"00".repeat(32)}`],
  ])("%s: asked every time", async (_what, path) => {
    await get(path);
    const before = forwarded();
    await get(path);
    expect(forwarded()).toBe(before + 1);
  });
});
