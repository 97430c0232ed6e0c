import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addressToScript } from "../../src/bitcoin/address.ts";
import { electrumScripthash } from "../../src/bitcoin/scripthash.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import {
  AddressSummaryDocument,
  BlockHeaderDocument,
  BroadcastTransactionDocument,
  ChainStateDocument,
  FeeEstimatesDocument,
  NodeBlockDocument,
  TransactionProofDocument,
} from "../../src/generated/operations.ts";
import { auditRecords } from "../support/audit.ts";
import { execute } from "../support/graphql.ts";
import { BLOCK_170, HAL_TXID, startTestGateway, type TestGateway } from "../support/harness.ts";

let t: TestGateway;
let url: string;
let accountId: number;
beforeAll(async () => {
  t = await startTestGateway();
  const account = await t.account("typed-fields", 1_000_000);
  accountId = account.id;
  url = `${t.url}/gateway/mainnet/${account.token}`;
});
afterAll(() => t.close());

const chain = () => loadDevnetChain();
const sha256d = (b: Uint8Array) =>
  createHash("sha256").update(createHash("sha256").update(b).digest()).digest();

/** The charge the answer reports, and the audit record's. */
async function charges(res: { body: { extensions?: { cost?: Record<string, unknown> } } }) {
  const rows = await auditRecords(t.gateway.app.db, { accountId: accountId }, ["charged_cc"], {
    newestFirst: true,
    limit: 1,
  });
  return { reported: res.body.extensions?.cost?.charged, audited: rows[0]!.charged_cc };
}

describe("the unified API's typed chain fields, through devnet's Core and Electrum", () => {
  it("nodeBlock by height: getblockhash + getblock + a page of transactions, priced from the table", async () => {
    const res = await execute(url, NodeBlockDocument, { hash: null, height: 170, limit: 2 });
    expect(res.body.errors).toBeUndefined();
    const block = res.body.data!.nodeBlock!;
    expect(block.hash).toBe(BLOCK_170);
    expect(block.height).toBe(170);
    expect(block.transactionCount).toBe(2);
    expect(block.txids[1]).toBe(HAL_TXID);
    expect(block.transactions.map((tx) => tx!.txid)).toEqual(block.txids);
    expect(block.transactions[1]!.outputs[0]!.value.btc).toBe("10.00000000");
    // mainnet: getblockhash 20 + getblock 200 + 2 × getrawtransaction 200.
    expect(await charges(res)).toEqual({ reported: 620, audited: 620 });
    // Line by line, each at its configured price.
    expect(res.body.extensions?.cost?.calls).toEqual(
      expect.arrayContaining([
        { method: "getblockhash", count: 1, unitPrice: 20, subtotal: 20 },
        { method: "getblock", count: 1, unitPrice: 200, subtotal: 200 },
        { method: "getrawtransaction", count: 2, unitPrice: 200, subtotal: 400 },
      ]),
    );
  });

  it("a block needs exactly one of hash and height", async () => {
    const res = await execute(url, NodeBlockDocument, { hash: BLOCK_170, height: 170, limit: 0 });
    expect(res.body.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
  });

  it("blockHeader by hash is Core's header: linked to its parent, priced as getblockheader", async () => {
    const res = await execute(url, BlockHeaderDocument, { hash: BLOCK_170, height: null });
    expect(res.body.errors).toBeUndefined();
    const header = res.body.data!.blockHeader!;
    expect(header.previousBlockHash).toBe(chain().byHeight.get(169)!.block.hash);
    expect(header.merkleRoot).toBe(chain().byHeight.get(170)!.block.merkleroot);
    expect(header.difficulty).toBe(1);
    expect(await charges(res)).toEqual({ reported: 40, audited: 40 });
  });

  it("chain: tip and mempool summary", async () => {
    const res = await execute(url, ChainStateDocument, {});
    expect(res.body.errors).toBeUndefined();
    const state = res.body.data!.chain;
    expect(state.name).toBe("main");
    expect(state.height).toBe(chain().tip.height);
    expect(state.tip.hash).toBe(chain().tip.block.hash);
    expect(state.mempool.transactionCount).toBeGreaterThan(0);
    // getblockchaininfo 40 + getblockheader 40 + getmempoolinfo 40.
    expect(await charges(res)).toEqual({ reported: 120, audited: 120 });
  });

  it("feeEstimates: one estimatesmartfee per target, in one batch", async () => {
    const res = await execute(url, FeeEstimatesDocument, { targets: [1, 6, 144] });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.feeEstimates.map((e) => e.target)).toEqual([1, 6, 144]);
    for (const e of res.body.data!.feeEstimates) {
      expect(e.feeratePerKvB === null ? e.errors.length : e.blocks).toBeGreaterThan(0);
    }
    expect(await charges(res)).toEqual({ reported: 120, audited: 120 });
  });

  it("address: balance, a page of history and the UTXOs agree, through Electrum", async () => {
    const address = "1HckjUpRGcrrRAtFaaCAUaGjsPx9oYmLaZ";
    const res = await execute(url, AddressSummaryDocument, { address, limit: 5, offset: 2 });
    expect(res.body.errors).toBeUndefined();
    const a = res.body.data!.address!;
    expect(a.scripthash).toBe(electrumScripthash(addressToScript(address, "mainnet")!));
    expect(a.history.total).toBeGreaterThan(7);
    expect(a.history.entries).toHaveLength(5);
    const utxoSum = a.utxos.reduce((s, u) => s + u.value.sats, 0);
    expect(a.balance.confirmed.sats).toBe(utxoSum);
    // get_balance 100 + get_history 200 + listunspent 200.
    expect(await charges(res)).toEqual({ reported: 500, audited: 500 });
  });

  it("an address of another network is refused before any call", async () => {
    const res = await execute(url, AddressSummaryDocument, {
      address: "tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx",
      limit: 1,
      offset: 0,
    });
    expect(res.body.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
  });

  it("transaction.merkleProof is Core's CMerkleBlock, whose header is the block's", async () => {
    const res = await execute(url, TransactionProofDocument, { txid: HAL_TXID });
    expect(res.body.errors).toBeUndefined();
    const proof = res.body.data!.transaction!.merkleProof!;
    expect(proof.blockHash).toBe(BLOCK_170);
    const header = Buffer.from(proof.hex, "hex").subarray(0, 80);
    expect(Buffer.from(sha256d(header)).reverse().toString("hex")).toBe(BLOCK_170);
    // getrawtransaction 200 + gettxoutproof 200.
    expect(await charges(res)).toEqual({ reported: 400, audited: 400 });
  });

  it("broadcastTransaction: the node's refusal of a mined transaction is Core's, and charged", async () => {
    const hex = chain().txIndex.get(HAL_TXID)!.block.block.transactions[1]!.hex;
    const res = await execute(url, BroadcastTransactionDocument, { hex });
    expect(res.body.errors?.[0]?.extensions?.rpcCode).toBe(-27);
    expect(await charges(res)).toEqual({ reported: 400, audited: 400 });
  });
});
