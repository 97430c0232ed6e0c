import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { auditOf } from "../support/audit.ts";
import { BLOCK_170_JSON, HAL_TX_JSON } from "../support/esplora-answers.ts";
import { BLOCK_170, HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf, expectLedgerOk } from "../support/ledger.ts";

/** Block 277647's coinbase and the address it pays; Hal's P2PK script hash, as Esplora writes it. */
const MINER = "14cZMQk89mRYQkDEj8Rn25AnGoBi5H6uer";
const MINER_TXID = "0fc1f998e6fc1fa43a879cea4a54fe9947e02b925ebc46237a2406c50e0f07ea";
const HAL_SCRIPTHASH = "799c48c4482e6a9726b0ee7f1609fb83c52a0d63b9c1d0b3fd8770f26e1c4677";

let t: TestGateway;
let token: string;
let account: number;
let base: string;
beforeAll(async () => {
  t = await startTestGateway("pglite", { networks: ["mainnet"] });
  ({ token, id: account } = await t.account("esplora-reader", 1_000_000));
  base = `${t.url}/esplora/mainnet/${token}/api`;
});
afterAll(() => t.close());

async function get(path: string, init?: RequestInit) {
  const res = await fetch(`${base}${path}`, init);
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text(), res };
}

describe("the Esplora route on devnet's mainnet", () => {
  it("answers block 170 as Esplora does, and charges the endpoint's price with its audit record", async () => {
    const before = (await balanceOf(t.gateway.app.db, account)).available;
    const block = await get(`/block/${BLOCK_170}`);
    expect(block.status).toBe(200);
    expect(block.type).toBe("application/json");
    expect(block.text).toBe(BLOCK_170_JSON);
    expect(block.res.headers.get("x-credits-charged")).toBe("40");
    expect((await balanceOf(t.gateway.app.db, account)).available).toBe(before - 40);
    const records = await auditOf(t.gateway.app.db, block.res.headers.get("x-request-id"), [
      "backend",
      "method",
      "outcome",
      "charged_cc",
      "http_status",
    ]);
    expect(records).toEqual([
      {
        backend: "esplora",
        method: "esplora.block",
        outcome: "ok",
        charged_cc: 40,
        http_status: 200,
      },
    ]);
  });

  it("answers the Satoshi → Hal transaction as Esplora does", async () => {
    const tx = await get(`/tx/${HAL_TXID}`);
    expect(tx.status).toBe(200);
    expect(tx.text).toBe(HAL_TX_JSON);
    expect(tx.res.headers.get("x-credits-charged")).toBe("200");
  });

  it("answers the block's other endpoints", async () => {
    expect((await get("/block-height/170")).text).toBe(BLOCK_170);
    expect((await get(`/block/${BLOCK_170}/header`)).text).toBe(
      "0100000055bd840a78798ad0da853f68974f3d183e2bd1db6a842c1feecf222a00000000ff104ccb05421ab93e63f8c3ce5c2c2e9dbb37de2764b3a3175c8166562cac7d51b96a49ffff001d283e9e70",
    );
    const txids = JSON.parse((await get(`/block/${BLOCK_170}/txids`)).text) as string[];
    expect(txids).toEqual([
      "b1fea52486ce0c62bb442b530a3f0132b826c74e473d1f2c220bfa78111c5082",
      HAL_TXID,
    ]);
    expect((await get(`/block/${BLOCK_170}/txid/1`)).text).toBe(HAL_TXID);
    const txs = JSON.parse((await get(`/block/${BLOCK_170}/txs`)).text) as { txid: string }[];
    expect(txs.map((x) => x.txid)).toEqual(txids);
    const raw = await get(`/block/${BLOCK_170}/raw`);
    expect(raw.type).toBe("application/octet-stream");
    const status = await get(`/block/${BLOCK_170}/status`);
    expect(JSON.parse(status.text)).toEqual({
      in_best_chain: true,
      height: 170,
      next_best: loadDevnetChain().byHeight.get(171)!.block.hash,
    });
  });

  it("answers the transaction's other endpoints", async () => {
    expect((await get(`/tx/${HAL_TXID}/status`)).text).toBe(
      `{"confirmed":true,"block_height":170,"block_hash":"${BLOCK_170}","block_time":1231731025}`,
    );
    const hex = await get(`/tx/${HAL_TXID}/hex`);
    expect(hex.type).toBe("text/plain");
    expect(hex.text).toMatch(/^0100000001c997a5e5/);
    expect((await get(`/tx/${HAL_TXID}/merkle-proof`)).text).toBe(
      '{"block_height":170,"merkle":["b1fea52486ce0c62bb442b530a3f0132b826c74e473d1f2c220bfa78111c5082"],"pos":1}',
    );
    expect((await get(`/tx/${HAL_TXID}/outspend/0`)).text).toBe('{"spent":false}');
  });

  it("answers an address's and a script hash's totals, history and unspent outputs", async () => {
    const address = JSON.parse((await get(`/address/${MINER}`)).text) as Record<string, unknown>;
    expect(Object.keys(address)).toEqual(["address", "chain_stats", "mempool_stats"]);
    expect(address.chain_stats).toMatchObject({ funded_txo_count: 1, funded_txo_sum: 2504737355 });
    expect(Object.keys(address.chain_stats as object)).toEqual([
      "funded_txo_count",
      "funded_txo_sum",
      "spent_txo_count",
      "spent_txo_sum",
      "tx_count",
    ]);
    const txs = JSON.parse((await get(`/address/${MINER}/txs`)).text) as { txid: string }[];
    expect(txs[0]!.txid).toBe(MINER_TXID);
    const utxo = JSON.parse((await get(`/address/${MINER}/utxo`)).text) as unknown[];
    expect(utxo[0]).toEqual({
      txid: MINER_TXID,
      vout: 0,
      status: expect.objectContaining({ confirmed: true, block_height: 277647 }),
      value: 2504737355,
    });
    const hal = await get(`/scripthash/${HAL_SCRIPTHASH}`);
    expect(Object.keys(JSON.parse(hal.text))).toEqual([
      "chain_stats",
      "mempool_stats",
      "scripthash",
    ]);
    const chain = JSON.parse((await get(`/scripthash/${HAL_SCRIPTHASH}/txs/chain`)).text);
    expect(chain.map((x: { txid: string }) => x.txid)).toContain(HAL_TXID);
  });

  it("answers the mempool, its recent transactions and fee estimates", async () => {
    const mempool = JSON.parse((await get("/mempool")).text) as Record<string, unknown>;
    expect(Object.keys(mempool)).toEqual(["count", "vsize", "total_fee", "fee_histogram"]);
    const txids = JSON.parse((await get("/mempool/txids")).text) as string[];
    expect(mempool.count).toBe(txids.length);
    const recent = JSON.parse((await get("/mempool/recent")).text) as object[];
    expect(Object.keys(recent[0]!)).toEqual(["txid", "fee", "vsize", "value"]);
    const fees = JSON.parse((await get("/fee-estimates")).text) as Record<string, number>;
    expect(Object.keys(fees)).toContain("1008");
    const blocks = JSON.parse((await get("/blocks/170")).text) as { height: number }[];
    expect(blocks.map((b) => b.height)).toEqual([170, 169, 168, 167, 166, 165, 164, 163, 162, 161]);
    await expectLedgerOk(t.gateway.app.db, account);
  });

  it("answers the tip", async () => {
    const height = await get("/blocks/tip/height");
    expect(height.type).toBe("text/plain");
    expect(height.text).toBe("951658");
    expect((await get("/blocks/tip/hash")).text).toBe(
      "00000000000000000001cbe4b4add61d60d9a470e0958f1b4024f202db9ca628",
    );
  });
});
