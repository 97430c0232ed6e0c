import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { auditRecords } from "../support/audit.ts";
import { BLOCK_KEYS, TX_KEYS } from "../support/core-keys.ts";
import { mineCoinbase } from "../support/devnet-core.ts";
import {
  askDevnetCore,
  BLOCK_170,
  HAL_TXID,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { balanceOf, expectLedgerOk } from "../support/ledger.ts";

const chain = loadDevnetChain();
/** A real transaction in devnet's mempool (in none of its blocks). */
const MEMPOOL_TXID = [...chain.mempool.keys()][0]!;
/** A transaction of the tip block (951658): one confirmation, too shallow for the cache. */
const TIP_TXID = chain.tip.block.transactions[1]!.txid;

/** The spec's mined shape: Core's getrawtransaction fields plus Electrum's blockheight. */
const MINED_KEYS = [...TX_KEYS, ...BLOCK_KEYS, "blockheight"];
const MEMPOOL_KEYS = TX_KEYS;

let t: TestGateway;
let token: string;
let accountId: number;
beforeAll(async () => {
  t = await startTestGateway();
  ({ token, id: accountId } = await t.account("electra", 100_000));
});
afterAll(() => t.close());

const url = (network = "mainnet") => `${t.url}/electrum/${network}/${token}`;
const electrum = () => t.devnet.electrum.get("mainnet")!;
const txGets = () => electrum().stats.methods["blockchain.transaction.get"] ?? 0;

async function balance(): Promise<number> {
  return (await balanceOf(t.gateway.app.db, accountId)).available;
}

async function get(params: unknown[], network = "mainnet") {
  const res = await post(url(network), rpc("blockchain.transaction.get", params));
  expect(res.status).toBe(200);
  return res as typeof res & { json: { result: unknown; error?: unknown } };
}

describe("electrum route: blockchain.transaction.get", () => {
  it("answers the exact serialized bytes of a mined transaction, 100 CC on mainnet", async () => {
    const before = await balance();
    const res = await get([HAL_TXID]);
    expect(Object.keys(res.json)).toEqual(["jsonrpc", "result", "id"]);
    const hex = res.json.result as string;
    const at = chain.txIndex.get(HAL_TXID)!;
    expect(hex).toBe(at.block.block.transactions[at.index]!.hex);
    expect(res.headers.get("x-credits-charged")).toBe("100");
    expect(await balance()).toBe(before - 100);
  });

  it("verbose: the spec's decoded form with block fields, amounts as Core writes them", async () => {
    const res = await get([HAL_TXID, true]);
    const result = res.json.result as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(MINED_KEYS);
    expect(result).toMatchObject({
      txid: HAL_TXID,
      blockhash: BLOCK_170,
      blockheight: 170,
      confirmations: chain.tip.height - 170 + 1,
      time: 1231731025,
      blocktime: 1231731025,
    });
    // ElectrumX sends the daemon's amounts as Python floats (10.0); the gateway keeps Core's text.
    expect(res.text).toContain('"value":10.00000000');
    expect(res.text).toContain('"value":40.00000000');
  });

  it("a mempool transaction: hex, and a verbose form without confirmations and blockhash", async () => {
    const hex = await get([MEMPOOL_TXID]);
    expect(hex.json.result).toBe(chain.mempool.get(MEMPOOL_TXID)!.hex);
    const verbose = await get([MEMPOOL_TXID, true]);
    const result = verbose.json.result as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(MEMPOOL_KEYS);
    expect(result.txid).toBe(MEMPOOL_TXID);
  });

  it("a transaction one block deep: blockheight of the tip, confirmations 1", async () => {
    const res = await get([TIP_TXID, true]);
    const result = res.json.result as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(MINED_KEYS);
    expect(result).toMatchObject({
      blockheight: chain.tip.height,
      confirmations: 1,
      blockhash: chain.tip.block.hash,
    });
  });

  it("costs 50 CC on testnets and regtest, verbose or not", async () => {
    for (const network of ["testnet", "testnet4", "signet", "regtest"] as const) {
      // Each network has its own chain: a coinbase devnet produces on it.
      const txid = await mineCoinbase(t.devnet, network);
      for (const verbose of [false, true]) {
        const before = await balance();
        const res = await get([txid, verbose], network);
        expect(res.json.error).toBeUndefined();
        expect(await balance()).toBe(before - 50);
      }
    }
  });

  it("takes 0 and 1 for verbose and named parameters, as ElectrumX does", async () => {
    const numeric = await get([HAL_TXID, 1]);
    expect((numeric.json.result as { txid: string }).txid).toBe(HAL_TXID);
    const res = await post(
      url(),
      rpc("blockchain.transaction.get", { tx_hash: HAL_TXID.toUpperCase(), verbose: false }),
    );
    expect((res.json as { result: string }).result.startsWith("0100000001c997")).toBe(true);
  });

  it("answers a batch in order, one charge per call", async () => {
    const before = await balance();
    const res = await post(url(), [
      rpc("blockchain.transaction.get", [HAL_TXID], "a"),
      rpc("blockchain.transaction.get", ["11".repeat(32), true], "b"),
      rpc("blockchain.transaction.get", [MEMPOOL_TXID, true], "c"),
    ]);
    expect(res.status).toBe(200);
    const [a, b, c] = res.json as { id: string; result?: unknown; error?: { code: number } }[];
    expect([a?.id, b?.id, c?.id]).toEqual(["a", "b", "c"]);
    expect(typeof a?.result).toBe("string");
    expect(b?.error?.code).toBe(2);
    expect((c?.result as { txid: string }).txid).toBe(MEMPOOL_TXID);
    expect(await balance()).toBe(before - 300);
  });
});

describe("the confirmed-transaction cache", () => {
  it("a hit is charged as a miss and never reaches the Electrum server", async () => {
    const txid = chain.byHeight.get(9)!.block.transactions[0]!.txid;
    const first = await get([txid, true]);
    const asked = txGets();
    const before = await balance();
    const again = await get([txid, true]);
    const hex = await get([txid]);
    expect(txGets()).toBe(asked);
    expect(await balance()).toBe(before - 200);
    expect(again.text).toBe(first.text);
    expect(hex.json.result).toBe((first.json.result as { hex: string }).hex);
    const rows = await auditRecords(
      t.gateway.app.db,
      { accountId: accountId },
      ["upstream", "charged_cc"],
      { newestFirst: true, limit: 2 },
    );
    expect(rows).toEqual([
      { upstream: "cache", charged_cc: 100 },
      { upstream: "cache", charged_cc: 100 },
    ]);
  });

  it("mempool and shallow transactions are asked for every time", async () => {
    for (const txid of [MEMPOOL_TXID, TIP_TXID]) {
      const asked = txGets();
      await get([txid, true]);
      await get([txid, true]);
      expect(txGets()).toBe(asked + 2);
    }
  });

  it("the node route answers from the same cache, in Core's shape, and is charged as usual", async () => {
    const txid = chain.byHeight.get(11)!.block.transactions[0]!.txid;
    await get([txid, true]);
    const core = t.devnet.cores.get("mainnet")!;
    const node = `${t.url}/node/mainnet/${token}`;
    const asked: string[] = [];
    const stop = core.watch((seen) => asked.push(...seen.map((c) => c.method)));
    const before = await balance();
    const hex = await post(node, rpc("getrawtransaction", [txid]));
    const verbose = await post(node, rpc("getrawtransaction", [txid, 1]));
    stop();
    expect(await balance()).toBe(before - 400);
    // The transaction was not asked again; at most the chain guard's tip and block hash checks
    // (once its tip is older than cache.tipTtlMs): that the cached block is still on the best
    // chain, and the confirmations. The answer is what Core would send.
    expect(asked.filter((m) => m !== "getblockcount" && m !== "getblockhash")).toEqual([]);
    const direct = await askDevnetCore(t.devnet, "getrawtransaction", [txid, 1]);
    expect(`${verbose.text}\n`).toBe(direct);
    expect((hex.json as { result: string }).result).toBe(
      chain.byHeight.get(11)!.block.transactions[0]!.hex,
    );
  });

  it("the node route fills the cache from its own verbose answers", async () => {
    const txid = chain.byHeight.get(12)!.block.transactions[0]!.txid;
    const node = `${t.url}/node/mainnet/${token}`;
    await post(node, rpc("getrawtransaction", [txid, true]));
    const asked = txGets();
    const res = await get([txid, true]);
    expect(txGets()).toBe(asked);
    expect((res.json.result as { blockheight: number }).blockheight).toBe(12);
  });

  it("ledger invariants hold", async () => {
    await expectLedgerOk(t.gateway.app.db, accountId);
  });
});
