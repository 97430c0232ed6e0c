import { parse as parseLossless } from "lossless-json";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { AccountDocument, TransactionDocument } from "../../src/generated/operations.ts";
import { auditCount } from "../support/audit.ts";
import { execute, gql } from "../support/graphql.ts";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";

let t: TestGateway;
let token: string;
let url: string;
beforeAll(async () => {
  // No response cache: these tests count the round trips to Core, and filling the cache from
  // answers adds its own (getblockhash checks); the cache is tested in test/cache/.
  t = await startTestGateway("pglite", { cache: { bytesMax: 0 } });
  ({ token } = await t.account("gina", 1_000_000));
  url = `${t.url}/gateway/mainnet/${token}`;
});
afterAll(() => t.close());

const available = async (name: string) => (await balanceOf(t.gateway.app.db, name)).available;

describe("the unified GraphQL API", () => {
  it("types a transaction exactly as Core decodes it, and charges what getrawtransaction costs", async () => {
    const before = await available("gina");
    const res = await execute(url, TransactionDocument, { txid: HAL_TXID });
    expect(res.status).toBe(200);
    const tx = res.body.data!.transaction!;
    // The same facts through the node mirror, decoded by Core (devnet) with literals kept.
    const mirror = await post(
      `${t.url}/node/mainnet/${token}`,
      rpc("getrawtransaction", [HAL_TXID, 2]),
    );
    const core = (parseLossless(mirror.text) as { result: Record<string, unknown> }).result as {
      txid: string;
      hash: string;
      size: { value: string };
      weight: { value: string };
      blockhash: string;
      fee: { value: string };
      vout: { value: { value: string }; scriptPubKey: { type: string; asm: string } }[];
    };
    expect(tx.txid).toBe(core.txid);
    expect(tx.hash).toBe(core.hash);
    expect(String(tx.size)).toBe(core.size.value);
    expect(String(tx.weight)).toBe(core.weight.value);
    expect(tx.status).toBe("CONFIRMED");
    expect(tx.blockhash).toBe(core.blockhash);
    expect(tx.fee?.btc).toBe(core.fee.value);
    expect(tx.outputs.map((o) => o.value.btc)).toEqual(core.vout.map((o) => o.value.value));
    expect(tx.outputs.map((o) => o.scriptPubKey.type.toLowerCase())).toEqual(
      core.vout.map((o) => o.scriptPubKey.type),
    );
    expect(tx.outputs[0]!.value.sats).toBe(1_000_000_000);
    expect(res.body.extensions?.cost).toEqual({
      estimated: 200,
      actual: 200,
      charged: 200,
      balance: before - 200,
      // The charge line by line: the one getrawtransaction at its configured price.
      calls: [{ method: "getrawtransaction", count: 1, unitPrice: 200, subtotal: 200 }],
    });
    expect(res.headers.get("x-credits-charged")).toBe("200");
    expect(await available("gina")).toBe(before - 200 - 200); // the mirror call cost 200 too
  });

  it("100 transactions: ceil(100 / batch size) round trips to the node, charged exactly 100 × 200 CC", async () => {
    const block = [...loadDevnetChain().byHash.values()].find((b) => b.height === 277647)!;
    const txids = block.block.transactions.slice(0, 100).map((tx) => tx.txid);
    const core = t.devnet.cores.get("mainnet")!;
    const roundTrips = core.stats.httpRequests;
    const calls = core.stats.calls;
    const before = await available("gina");
    // Duplicates in the request are deduplicated: asked once, charged once.
    const res = await gql<{ transactions: { txid: string }[] }>(
      url,
      "query($txids: [TxId!]!) { transactions(txids: $txids) { txid } again: transaction(txid: $first) { txid } }".replace(
        "$txids: [TxId!]!)",
        "$txids: [TxId!]!, $first: TxId!)",
      ),
      { txids, first: txids[0] },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.transactions.map((x) => x.txid)).toEqual(txids);
    const batchSize = t.gateway.app.config.graphql.batchSize;
    expect(core.stats.httpRequests - roundTrips).toBe(Math.ceil(100 / batchSize));
    expect(core.stats.calls - calls).toBe(100);
    expect(res.body.extensions?.cost).toMatchObject({
      estimated: 101 * 200,
      actual: 100 * 200,
      charged: 100 * 200,
    });
    expect(await available("gina")).toBe(before - 100 * 200);
  });

  it("a missing transaction is null with NOT_FOUND at its path, not a failed request", async () => {
    const res = await gql(
      url,
      `{ ok: transaction(txid: "${HAL_TXID}") { txid } gone: transaction(txid: "${"11".repeat(32)}") { txid } }`,
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ ok: { txid: HAL_TXID }, gone: null });
    expect(res.body.errors).toHaveLength(1);
    expect(res.body.errors![0]).toMatchObject({
      path: ["gone"],
      extensions: { code: "NOT_FOUND" },
    });
  });

  it("decodeTransaction decodes locally and is free", async () => {
    const before = await available("gina");
    const hex = loadDevnetChain().txIndex.get(HAL_TXID)!;
    const raw = hex.block.block.transactions[hex.index]!.hex;
    const res = await gql<{ decodeTransaction: { txid: string; status: string } }>(
      url,
      "query($hex: Hex!) { decodeTransaction(hex: $hex, network: REGTEST) { txid status } }",
      { hex: raw },
    );
    expect(res.body.data!.decodeTransaction).toEqual({ txid: HAL_TXID, status: "UNKNOWN" });
    expect(res.body.extensions?.cost).toMatchObject({ charged: 0 });
    expect(await available("gina")).toBe(before);
  });

  it("the account: balance, this cycle's usage, and one audit record per request", async () => {
    const res = await execute(url, AccountDocument, { auditLimit: 50 });
    const account = res.body.data!.account;
    expect(account.name).toBe("gina");
    expect(account.available).toBe(await available("gina"));
    const graphqlUsage = account.cycle!.usage.find(
      (u) => u.backend === "gateway" && u.method === "graphql",
    )!;
    const audited = await auditCount(t.gateway.app.db, { accountName: "gina", backend: "gateway" });
    // The account query's own record is written after it executes: it is the one not yet counted.
    expect(graphqlUsage.calls).toBe(audited - 1);
    expect(account.auditRecords[0]!.method).toBe("graphql");
    expect(new Date(account.cycle!.start).getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("a dry run returns the estimate and its breakdown, executes and charges nothing", async () => {
    const before = await available("gina");
    const calls = t.devnet.cores.get("mainnet")!.stats.calls;
    const res = await gql(
      url,
      `{ transaction(txid: "${HAL_TXID}") { txid } transactions(txids: ["${HAL_TXID}", "${HAL_TXID}"]) { txid } }`,
      {},
      { "x-dry-run": "true" },
    );
    expect(res.body.data).toBeNull();
    expect(res.body.extensions?.cost).toMatchObject({
      dryRun: true,
      estimated: 600,
      breakdown: [
        {
          path: "transaction",
          method: "getrawtransaction",
          count: 1,
          unitPrice: 200,
          subtotal: 200,
        },
        {
          path: "transactions",
          method: "getrawtransaction",
          count: 2,
          unitPrice: 200,
          subtotal: 400,
        },
      ],
    });
    expect(await available("gina")).toBe(before);
    expect(t.devnet.cores.get("mainnet")!.stats.calls).toBe(calls);
  });

  it("GET runs queries too (GraphQL over HTTP)", async () => {
    const res = await fetch(`${url}?query=${encodeURIComponent("{ __typename }")}`, {
      headers: { accept: "application/json" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ data: { __typename: "Query" } });
  });
});
