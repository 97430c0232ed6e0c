import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { Agent } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mempoolJS from "@mempool/mempool.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { priceOf } from "../../src/billing/pricing/prices.ts";
import { latestAudit } from "../../src/billing/usage/usage.ts";
import { HAL_TX_JSON } from "../support/esplora-answers.ts";
import { BLOCK_170, HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";
import { selfSignedCert } from "../support/self-signed.ts";

/**
 * mempool.space's own client library, unchanged, given `<host>/esplora/mainnet/<token>` as its
 * hostname: it builds `<protocol>://<hostname>/api/…` itself (http for a `localhost` host, https
 * otherwise), so the gateway's Esplora route must answer at exactly the paths it asks, over
 * plain HTTP and over the gateway's own HTTPS listener (server.tls).
 */
const HAL_ADDRESS = "1Q2TWHE3GMdB6BZKafqwxXtWAWgFt5Jvm3";
const UNKNOWN_TXID = `${"00".repeat(31)}01`;

let t: TestGateway;
let dir: string;
let ca: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "blockgate-https-"));
  const { cert, key } = selfSignedCert("localhost");
  ca = cert;
  writeFileSync(join(dir, "cert.pem"), cert);
  writeFileSync(join(dir, "key.pem"), key);
  t = await startTestGateway("pglite", {
    networks: ["mainnet"],
    server: { tls: { port: 0, certFile: join(dir, "cert.pem"), keyFile: join(dir, "key.pem") } },
  });
  // devnet indexes its chain's scripts at the first address asked: done here, devnet's own cost,
  // so that on a loaded machine it cannot outlast the gateway's upstream timeout in a test.
  await direct(`/address/${HAL_ADDRESS}`);
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What devnet's Esplora server answers itself, not through the gateway. */
async function direct(path: string): Promise<unknown> {
  return (await fetch(`${t.devnet.esplora.get("mainnet")!.url}${path}`)).json();
}

const over = {
  http: (token: string) => {
    const port = new URL(t.url).port;
    return mempoolJS({ hostname: `localhost:${port}/esplora/mainnet/${token}` }).bitcoin;
  },
  https: (token: string) => {
    const port = t.gateway.http.https!.port;
    return mempoolJS({
      hostname: `localhost:${port}/esplora/mainnet/${token}`,
      protocol: "https",
      config: { httpsAgent: new Agent({ ca }) },
    }).bitcoin;
  },
};

describe.each(["http", "https"] as const)("@mempool/mempool.js over %s", (scheme) => {
  it("reads block 170, the Satoshi → Hal transaction and Hal's address as Esplora answers them, each charged its price", async () => {
    const { token, id } = await t.account(`mempool-js-${scheme}`, 1_000_000);
    const { blocks, transactions, addresses } = over[scheme](token);
    expect(await blocks.getBlockHeight({ height: 170 })).toBe(BLOCK_170);
    expect(await blocks.getBlockStatus({ hash: BLOCK_170 })).toEqual(
      await direct(`/block/${BLOCK_170}/status`),
    );
    expect(await blocks.getBlockTxids({ hash: BLOCK_170 })).toEqual([
      "b1fea52486ce0c62bb442b530a3f0132b826c74e473d1f2c220bfa78111c5082",
      HAL_TXID,
    ]);
    expect(await transactions.getTx({ txid: HAL_TXID })).toEqual(JSON.parse(HAL_TX_JSON));
    expect(await addresses.getAddress({ address: HAL_ADDRESS })).toEqual(
      await direct(`/address/${HAL_ADDRESS}`),
    );
    // axios rejects a 4xx with the answer attached; the error's class is mempool.js's own copy.
    const missing = (await transactions.getTx({ txid: UNKNOWN_TXID }).then(
      () => null,
      (err: { response?: { status: number; data: unknown } }) => err.response,
    )) as { status: number; data: unknown } | undefined;
    expect(missing).toMatchObject({ status: 404, data: "Transaction not found" });

    const config = t.gateway.app.config;
    const price = (method: string) => priceOf(config, method, "mainnet");
    const records = (await latestAudit(t.gateway.app.db, id, 10)).reverse();
    expect(records.map((r) => [r.method, r.http_status, r.charged_cc])).toEqual([
      ["esplora.block-height", 200, price("esplora.block-height")],
      ["esplora.block.status", 200, price("esplora.block.status")],
      ["esplora.block.txids", 200, price("esplora.block.txids")],
      ["esplora.tx", 200, price("esplora.tx")],
      ["esplora.address", 200, price("esplora.address")],
      ["esplora.tx", 404, price("esplora.tx")],
    ]);
    await expectLedgerOk(t.gateway.app.db, id);
  });

  it("reads block 170 and the blocks below height 2 through mempool's own /v1 endpoints, each charged its price", async () => {
    const { token, id } = await t.account(`mempool-js-v1-${scheme}`, 1_000_000);
    const { blocks } = over[scheme](token);
    const block = (await blocks.getBlock({ hash: BLOCK_170 })) as unknown as Record<
      string,
      unknown
    >;
    // Esplora's block fields, with their values, and mempool's extras beside them.
    expect(block).toMatchObject((await direct(`/block/${BLOCK_170}`)) as Record<string, unknown>);
    expect(Object.keys(block).slice(0, 2)).toEqual(["id", "height"]);
    expect(block).toMatchObject({
      id: BLOCK_170,
      height: 170,
      extras: {
        reward: 5_000_000_000,
        totalFees: 0,
        coinbaseRaw: "04ffff001d0102",
        pool: { id: 0, name: "Unknown", slug: "unknown", minerNames: null },
      },
    });
    const list = await blocks.getBlocks({ start_height: 2 });
    expect(list.map((b) => b.height)).toEqual([2, 1, 0]);

    const config = t.gateway.app.config;
    const price = (method: string) => priceOf(config, method, "mainnet");
    const records = (await latestAudit(t.gateway.app.db, id, 10)).reverse();
    expect(records.map((r) => [r.method, r.http_status, r.charged_cc])).toEqual([
      ["esplora.v1.block", 200, price("esplora.v1.block")],
      ["esplora.v1.blocks", 200, 3 * price("esplora.v1.blocks")!],
    ]);
    await expectLedgerOk(t.gateway.app.db, id);
  });
});
