import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { TransactionDocument } from "../../src/generated/operations.ts";
import { execute, gql } from "../support/graphql.ts";
import { HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";

let t: TestGateway;
let url: string;
beforeAll(async () => {
  t = await startTestGateway();
  url = `${t.url}/gateway/mainnet/${(await t.account("sourced", 100_000)).token}`;
});
afterAll(() => t.close());

describe("transaction(source: ELECTRUM)", () => {
  it("types the same transaction as the full node does, priced as blockchain.transaction.get (100 CC)", async () => {
    const [node, electrum] = await Promise.all([
      execute(url, TransactionDocument, { txid: HAL_TXID, source: "FULL_NODE" }),
      execute(url, TransactionDocument, { txid: HAL_TXID, source: "ELECTRUM" }),
    ]);
    const { fee: _nodeFee, ...fromNode } = node.body.data!.transaction!;
    const { fee, ...fromElectrum } = electrum.body.data!.transaction!;
    // The node gives undo data (fee); Electrum's verbose answer has no prevouts.
    expect(fee).toBeNull();
    expect(fromElectrum).toEqual(fromNode);
    expect(fromElectrum.status).toBe("CONFIRMED");
    expect(node.body.extensions?.cost).toMatchObject({ charged: 200 });
    expect(electrum.body.extensions?.cost).toMatchObject({ estimated: 100, charged: 100 });
  });

  it("many at once travel pipelined on the pool's open connections; each costs 100 CC", async () => {
    const block = [...loadDevnetChain().byHash.values()].find((b) => b.height === 333961)!;
    const txids = block.block.transactions.slice(0, 40).map((x) => x.txid);
    const server = t.devnet.electrum.get("mainnet")!;
    const before = { ...server.stats };
    const res = await gql<{ transactions: { txid: string; blockhash: string }[] }>(
      url,
      "query($t: [TxId!]!) { transactions(txids: $t, source: ELECTRUM) { txid blockhash } }",
      { t: txids },
    );
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.transactions.map((x) => x.txid)).toEqual(txids);
    expect(res.body.data!.transactions.every((x) => x.blockhash === block.block.hash)).toBe(true);
    expect(server.stats.connections - before.connections).toBe(0);
    expect(
      server.stats.methods["blockchain.transaction.get"]! -
        (before.methods["blockchain.transaction.get"] ?? 0),
    ).toBeLessThanOrEqual(40);
    expect(res.body.extensions?.cost).toMatchObject({ estimated: 4000, charged: 4000 });
  });

  it("a miss is null with NOT_FOUND, charged as an answer", async () => {
    const res = await gql(
      url,
      `{ transaction(txid: "${"22".repeat(32)}", source: ELECTRUM) { txid } }`,
    );
    expect(res.body.data).toEqual({ transaction: null });
    expect(res.body.errors![0]!.extensions!.code).toBe("NOT_FOUND");
    expect(res.body.extensions?.cost).toMatchObject({ charged: 100 });
  });

  it("the dry run prices each source", async () => {
    const res = await gql(
      url,
      `{ a: transaction(txid: "${HAL_TXID}") { txid } b: transaction(txid: "${HAL_TXID}", source: ELECTRUM) { txid } }`,
      {},
      { "x-dry-run": "true" },
    );
    expect(res.body.extensions?.cost).toMatchObject({
      estimated: 300,
      breakdown: [
        { path: "a", method: "getrawtransaction", unitPrice: 200 },
        { path: "b", method: "blockchain.transaction.get", unitPrice: 100 },
      ],
    });
  });
});
