import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { priceOf } from "../../src/billing/pricing/prices.ts";
import { sha256d } from "../../src/bitcoin/index.ts";
import { acceptsJson } from "../../src/protocol/esplora/mempool-v1.ts";
import { v1Heights } from "../../src/routes/esplora/mempool-v1.ts";
import { auditOf } from "../support/audit.ts";
import { BLOCK_170, startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";

/**
 * mempool.space's `/api/v1/block/:hash` and `/api/v1/blocks[/:height]` on the Esplora route,
 * against real mainnet blocks: the answers' text (mempool.space's field order), the refusals in
 * mempool's words, and what each is charged.
 */
const GENESIS = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f";
const UNKNOWN_BLOCK = `${"00".repeat(31)}01`;

/** mempool's extras that do not depend on the block, with the features the gateway lacks off. */
const TAIL = `"utxoSetSize":null,"totalInputAmt":null`;
const LAST = `"firstSeen":null,"orphans":[],"matchRate":null,"expectedFees":null,"expectedWeight":null`;
const POOL = `"pool":{"id":0,"name":"Unknown","slug":"unknown","minerNames":null}`;

/** Block 170: a coinbase paying 50 BTC to a P2PK key, and Satoshi → Hal (275 bytes, no fee). */
const BLOCK_170_V1 =
  `{"id":"${BLOCK_170}","height":170,"version":1,"timestamp":1231731025,"bits":486604799,` +
  `"nonce":1889418792,"difficulty":1,` +
  `"merkle_root":"7dac2c5666815c17a3b36427de37bb9d2e2c5ccec3f8633eb91a4205cb4c10ff",` +
  `"tx_count":2,"size":490,"weight":1960,` +
  `"previousblockhash":"000000002a22cfee1f2c846adbd12b3e183d4f97683f85dad08a79780a84bd55",` +
  `"mediantime":1231716245,"indexVersion":1,"stale":0,"extras":{"totalFees":0,"medianFee":0,` +
  `"feeRange":[0,0,0,0,0,0,0],"reward":5000000000,${POOL},"avgFee":0,"avgFeeRate":0,` +
  `"coinbaseRaw":"04ffff001d0102","coinbaseAddress":null,"coinbaseAddresses":[],` +
  `"coinbaseSignature":"OP_PUSHBYTES_65 04d46c4968bde02899d2aa0963367c7a6ce34eec332b32e42e5f3407e052d64ac625da6f0718e7b302140434bd725706957c092db53805b821a85b23a7ac61725b OP_CHECKSIG",` +
  `"coinbaseSignatureAscii":"\\u0004ÿÿ\\u0000\\u001d\\u0001\\u0002","avgTxSize":137.5,` +
  `"totalInputs":1,"totalOutputs":3,"totalOutputAmt":5000000000,"medianFeeAmt":null,` +
  `"feePercentiles":null,"segwitTotalTxs":0,"segwitTotalSize":0,"segwitTotalWeight":0,` +
  `"header":"0100000055bd840a78798ad0da853f68974f3d183e2bd1db6a842c1feecf222a00000000ff104ccb05421ab93e63f8c3ce5c2c2e9dbb37de2764b3a3175c8166562cac7d51b96a49ffff001d283e9e70",` +
  `"utxoSetChange":2,${TAIL},"virtualSize":490,${LAST}}}`;

/** The genesis block: mempool's fixed statistics for height 0, no previous block. */
const GENESIS_V1 =
  `{"id":"${GENESIS}","height":0,"version":1,"timestamp":1231006505,"bits":486604799,` +
  `"nonce":2083236893,"difficulty":1,` +
  `"merkle_root":"4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b",` +
  `"tx_count":1,"size":285,"weight":1140,"previousblockhash":null,"mediantime":1231006505,` +
  `"indexVersion":1,"stale":0,"extras":{"totalFees":0,"medianFee":0,"feeRange":[0,0,0,0,0,0,0],` +
  `"reward":5000000000,${POOL},"avgFee":0,"avgFeeRate":0,` +
  `"coinbaseRaw":"04ffff001d0104455468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f6e64206261696c6f757420666f722062616e6b73",` +
  `"coinbaseAddress":null,"coinbaseAddresses":[],` +
  `"coinbaseSignature":"OP_PUSHBYTES_65 04678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5f OP_CHECKSIG",` +
  `"coinbaseSignatureAscii":"\\u0004ÿÿ\\u0000\\u001d\\u0001\\u0004EThe Times 03/Jan/2009 Chancellor on brink of second bailout for banks",` +
  `"avgTxSize":0,"totalInputs":0,"totalOutputs":1,"totalOutputAmt":0,"medianFeeAmt":null,` +
  `"feePercentiles":null,"segwitTotalTxs":0,"segwitTotalSize":0,"segwitTotalWeight":0,` +
  `"header":"0100000000000000000000000000000000000000000000000000000000000000000000003ba3edfd7a7b12b27ac72c3e67768f617fc81bc3888a51323a9fb8aa4b1e5e4a29ab5f49ffff001d1dac2b7c",` +
  `"utxoSetChange":0,${TAIL},"virtualSize":285,${LAST}}}`;

let t: TestGateway;
let token: string;
let account: number;
let base: string;
beforeAll(async () => {
  t = await startTestGateway("pglite", { networks: ["mainnet"] });
  ({ token, id: account } = await t.account("mempool-v1", 1_000_000));
  base = `${t.url}/esplora/mainnet/${token}/api`;
});
afterAll(() => t.close());

const price = (method: string) => priceOf(t.gateway.app.config, method, "mainnet")!;

async function get(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, { headers });
  const text = await res.text();
  const audit = await auditOf(t.gateway.app.db, res.headers.get("x-request-id"), [
    "method",
    "outcome",
    "http_status",
    "estimated_cc",
    "charged_cc",
  ]);
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    expires: res.headers.get("expires"),
    charged: Number(res.headers.get("x-credits-charged")),
    text,
    audit,
  };
}

/** The block hash a header in hex hashes to, in display order. */
function headerHash(hex: string): string {
  return Buffer.from(sha256d(Buffer.from(hex, "hex")))
    .reverse()
    .toString("hex");
}

describe("mempool.space's /api/v1/block/:hash", () => {
  it("answers block 170 as mempool.space does, field for field in its order, at its price", async () => {
    const out = await get(`/v1/block/${BLOCK_170}`);
    expect(out.status).toBe(200);
    expect(out.type).toBe("application/json; charset=utf-8");
    expect(out.text).toBe(BLOCK_170_V1);
    const extras = (JSON.parse(out.text) as { extras: { header: string } }).extras;
    expect(headerHash(extras.header)).toBe(BLOCK_170);
    // mempool keeps a block over a year old for 30 days.
    const kept = Date.parse(out.expires!) - Date.now();
    expect(kept).toBeGreaterThan(29 * 24 * 3600_000);
    expect(kept).toBeLessThanOrEqual(30 * 24 * 3600_000);
    expect(out.charged).toBe(price("esplora.v1.block"));
    expect(out.audit).toEqual([
      {
        method: "esplora.v1.block",
        outcome: "ok",
        http_status: 200,
        estimated_cc: price("esplora.v1.block"),
        charged_cc: price("esplora.v1.block"),
      },
    ]);
  });

  it("answers the genesis block with mempool's fixed statistics for height 0", async () => {
    const out = await get(`/v1/block/${GENESIS.toUpperCase()}`);
    expect(out.status).toBe(200);
    expect(out.text).toBe(GENESIS_V1);
    expect(headerHash(JSON.parse(out.text).extras.header)).toBe(GENESIS);
  });

  it("refuses a hash that is not one with 400 Invalid block hash, audited and not charged", async () => {
    const out = await get("/v1/block/not-a-hash");
    expect([out.status, out.type, out.text]).toEqual([
      400,
      "application/json; charset=utf-8",
      '{"error":"Invalid block hash"}',
    ]);
    expect(out.charged).toBe(0);
    expect(out.audit).toEqual([
      {
        method: "(invalid)",
        outcome: "rejected",
        http_status: 400,
        estimated_cc: 0,
        charged_cc: 0,
      },
    ]);
    // Express's handleError sends the bare message when the client does not take JSON.
    const text = await get(`/v1/block/${"g".repeat(64)}`, { accept: "text/plain" });
    expect([text.status, text.type, text.text]).toEqual([
      400,
      "text/html; charset=utf-8",
      "Invalid block hash",
    ]);
  });

  it("answers an unknown block 404 Failed to get block, charged: Esplora looked it up", async () => {
    const out = await get(`/v1/block/${UNKNOWN_BLOCK}`);
    expect([out.status, out.text]).toEqual([404, '{"error":"Failed to get block"}']);
    expect(out.charged).toBe(price("esplora.v1.block"));
    expect(out.audit).toMatchObject([
      { method: "esplora.v1.block", outcome: "upstream_error", http_status: 404 },
    ]);
  });
});

describe("mempool.space's /api/v1/blocks[/:height]", () => {
  it("answers the blocks from a height down to genesis, each as /v1/block answers it, charged per block", async () => {
    const out = await get("/v1/blocks/5");
    expect(out.status).toBe(200);
    const blocks = JSON.parse(out.text) as { id: string; height: number }[];
    expect(blocks.map((b) => b.height)).toEqual([5, 4, 3, 2, 1, 0]);
    expect(out.text.endsWith(`,${GENESIS_V1}]`)).toBe(true);
    const five = await get(`/v1/block/${blocks[0]!.id}`);
    expect(out.text.startsWith(`[${five.text},`)).toBe(true);
    expect(out.charged).toBe(6 * price("esplora.v1.blocks"));
    expect(out.audit).toEqual([
      {
        method: "esplora.v1.blocks",
        outcome: "ok",
        http_status: 200,
        estimated_cc: 15 * price("esplora.v1.blocks"),
        charged_cc: 6 * price("esplora.v1.blocks"),
      },
    ]);
  });

  it("answers fifteen blocks down from block 170, block 170 first", async () => {
    const out = await get("/v1/blocks/170");
    const blocks = JSON.parse(out.text) as { height: number }[];
    expect(blocks.map((b) => b.height)).toEqual(Array.from({ length: 15 }, (_, i) => 170 - i));
    expect(out.text.startsWith(`[${BLOCK_170_V1},`)).toBe(true);
    expect(out.charged).toBe(15 * price("esplora.v1.blocks"));
  });

  it("answers [] for a height parseInt cannot read or a negative one, charged nothing", async () => {
    for (const path of ["/v1/blocks/undefined", "/v1/blocks/-1"]) {
      const out = await get(path);
      expect([out.status, out.text, out.charged]).toEqual([200, "[]", 0]);
    }
    await expectLedgerOk(t.gateway.app.db, account);
  });

  it("reserves fifteen blocks: a balance short of that is refused before any upstream is asked", async () => {
    const poor = await t.account("mempool-v1-poor", 5 * price("esplora.v1.blocks"));
    const esplora = t.devnet.esplora.get("mainnet")!;
    const asked = esplora.stats.requests;
    const res = await fetch(`${t.url}/esplora/mainnet/${poor.token}/api/v1/blocks/3`);
    expect(res.status).toBe(429);
    expect(await res.text()).toMatch(/^INSUFFICIENT_CREDITS: /);
    expect(esplora.stats.requests).toBe(asked);
    await expectLedgerOk(t.gateway.app.db, poor.id);
  });

  it("charges nothing when Core cannot answer: the gateway's own failure, in its words", async () => {
    const restore = t.devnet.cores.get("mainnet")!.failWith(500);
    try {
      const one = await get(`/v1/block/${BLOCK_170}`);
      expect([one.status, one.charged]).toEqual([503, 0]);
      expect(one.text).toMatch(/^UPSTREAM_UNAVAILABLE: /);
      const list = await get("/v1/blocks/2");
      expect([list.status, list.charged]).toEqual([503, 0]);
      expect(list.audit).toMatchObject([
        { method: "esplora.v1.blocks", outcome: "upstream_failure", charged_cc: 0 },
      ]);
    } finally {
      restore();
    }
    await expectLedgerOk(t.gateway.app.db, account);
  });

  it("walks the heights mempool's $getBlocks walks", () => {
    expect(v1Heights(undefined, 20)).toEqual(Array.from({ length: 15 }, (_, i) => 20 - i));
    expect(v1Heights(3, 20)).toEqual([3, 2, 1, 0]);
    // Past the tip: from the tip, fifteen less what the height was past it.
    expect(v1Heights(25, 20)).toEqual([20, 19, 18, 17, 16, 15, 14, 13, 12, 11]);
    expect(v1Heights(40, 20)).toEqual([]);
    expect(v1Heights(Number.NaN, 20)).toEqual([]);
  });
});

describe("Express's req.accepts('json'), as handleError asks it", () => {
  it.each([
    [undefined, true],
    ["*/*", true],
    ["application/json, text/plain, */*", true],
    ["text/plain", false],
    ["text/html;q=1, application/json;q=0", false],
    ["application/*;q=0.1", true],
    ["application/json;q=0, */*", false],
  ])("Accept %s → %s", (accept, json) => {
    expect(acceptsJson(accept)).toBe(json);
  });
});
