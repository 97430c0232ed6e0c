import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseTransaction, toHex, txToUniv } from "../../src/bitcoin/index.ts";
import { ParsedTxs } from "../../src/cache/parsed-txs.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { gql } from "../support/graphql.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { sized } from "../support/size.ts";

/**
 * The decoded-transaction memo (cache.decodedBytesMax): the unified API decodes a transaction
 * the node sends once and serves the same decoding, and the outputs' addresses, to every later
 * request that gets the same bytes. Its answers must be the slow path's to the byte: a gateway
 * with the memo off, on the same devnet, is asked the same documents. The node is asked, and
 * the request charged, as often as without it.
 */
const chain = loadDevnetChain();
const BLOCK = chain.byHeight.get(277647)!.block;
const TIP = chain.byHeight.get(951658)!.block;
/**
 * The block's first transactions the memo is compared on, each document asked six times: every
 * one decoded once and then served from the memo at either size, the whole block in bench.
 */
const JOINED = sized(64, BLOCK.transactions.length);

let fast: TestGateway; // memo on, response cache off: every transaction comes from Core as hex
let cached: TestGateway; // memo on, response cache on: repeats come from the cache as bytes
let slow: TestGateway; // memo off
const urls = new Map<TestGateway, string>();
beforeAll(async () => {
  fast = await startTestGateway("pglite", { cache: { bytesMax: 0 } });
  const devnet = { devnet: fast.devnet };
  cached = await startTestGateway("pglite", {}, undefined, devnet);
  slow = await startTestGateway(
    "pglite",
    { cache: { bytesMax: 0, decodedBytesMax: 0 } },
    undefined,
    devnet,
  );
  for (const t of [fast, cached, slow]) {
    const { token } = await t.account("explorer", 100_000_000);
    urls.set(t, `${t.url}/gateway/mainnet/${token}`);
  }
});
afterAll(async () => {
  await slow.close();
  await cached.close();
  await fast.close();
});

const coreCalls = () => fast.devnet.cores.get("mainnet")!.stats.calls;

interface Answer {
  data: unknown;
  text: string;
  cost: Record<string, unknown>;
  coreCalls: number;
}

async function ask(t: TestGateway, query: string, variables?: Record<string, unknown>) {
  const before = coreCalls();
  const res = await gql(urls.get(t)!, query, variables);
  expect(res.status).toBe(200);
  expect(res.body.errors).toBeUndefined();
  const { balance: _, ...cost } = res.body.extensions!.cost as Record<string, unknown>;
  return {
    data: res.body.data,
    text: JSON.stringify(res.body.data),
    cost,
    coreCalls: coreCalls() - before,
  } satisfies Answer;
}

const OUTPUTS = "outputs { n value { btc sats } scriptPubKey { asm desc hex type address } }";
const WHOLE = `txid hash size vsize weight version locktime hex
  inputs { index coinbase txid vout scriptSig { asm hex } witness sequence }
  ${OUTPUTS}`;

describe("decoded transactions, kept: the same answers as decoding every time", () => {
  it(`block 277647's first ${JOINED} transactions joined from Core, asked twice, each part alone and all`, async () => {
    const docs = [
      // bench/graphql.ts (c): what the memo was made for, addresses without asm or desc.
      `{ block(limit: 1, where: {height: {_eq: 277647}}) { hash transactions(limit: ${JOINED}) { hash transaction { txid outputs { n value { sats } scriptPubKey { type address } } } } } }`,
      `{ block(limit: 1, where: {height: {_eq: 277647}}) { transactions(limit: ${JOINED}) { transaction { ${WHOLE} } } } }`,
      `{ block(limit: 1, where: {height: {_eq: 277647}}) { transactions(limit: ${JOINED}) { transaction { outputs { scriptPubKey { desc } } } } } }`,
    ];
    for (const doc of docs) {
      const want = await ask(slow, doc);
      for (const t of [fast, fast, cached, cached, cached]) {
        const got = await ask(t, doc);
        expect(got.text).toBe(want.text);
        expect(got.cost).toEqual(want.cost);
        // Only the response cache spares Core calls; the memo never does.
        if (t === fast) expect(got.coreCalls).toBe(want.coreCalls);
      }
    }
    const stats = fast.gateway.app.parsedTxs.stats!;
    expect(stats.entries).toBe(JOINED);
    expect(stats.hits).toBeGreaterThanOrEqual(5 * JOINED);
    expect(cached.gateway.app.parsedTxs.stats!.hits).toBeGreaterThan(0);
    expect(slow.gateway.app.parsedTxs.stats).toBeNull();
  });

  it("every output is Core's own decoding (TxToUniv) of the block's bytes", async () => {
    const { data } = await ask(
      fast,
      `{ block(limit: 1, where: {height: {_eq: 277647}}) { transactions(limit: ${BLOCK.transactions.length}) { hash transaction { ${OUTPUTS} } } } }`,
    );
    const rows = (
      data as {
        block: {
          transactions: {
            hash: string;
            transaction: {
              outputs: {
                n: number;
                value: { btc: string };
                scriptPubKey: Record<string, string | null>;
              }[];
            };
          }[];
        }[];
      }
    ).block[0]!.transactions;
    expect(rows.map((r) => r.hash)).toEqual(BLOCK.transactions.map((tx) => tx.txid));
    rows.forEach((row, i) => {
      const core = txToUniv(BLOCK.transactions[i]!, { network: "mainnet" });
      expect(
        row.transaction.outputs.map((o) => ({
          value: o.value.btc,
          n: o.n,
          scriptPubKey: { ...o.scriptPubKey, type: o.scriptPubKey.type!.toLowerCase() },
        })),
      ).toEqual(
        core.vout.map((o) => ({
          value: o.value.toString(),
          n: o.n,
          scriptPubKey: { address: null, ...o.scriptPubKey },
        })),
      );
    });
  });

  it("segwit and taproot transactions by txid, on the gateways side by side", async () => {
    // A sample of the tip block's transactions: every script type a modern block has.
    const txids = TIP.transactions.slice(0, 120).map((tx) => tx.txid);
    const doc = `query ($txids: [TxId!]!) { transactions(txids: $txids) { ${WHOLE} } }`;
    const want = await ask(slow, doc, { txids });
    for (const t of [fast, fast, cached, cached]) {
      const got = await ask(t, doc, { txids });
      expect(got.text).toBe(want.text);
      expect(got.cost).toEqual(want.cost);
    }
  });
});

describe("ParsedTxs", () => {
  // A segwit transaction whose last witness item, just before nLockTime, is not empty.
  const segwit = TIP.transactions.find(
    (tx) => tx.hasWitness && (tx.inputs.at(-1)?.witness.at(-1)?.length ?? 0) > 0,
  )!;
  const hex = toHex(segwit.bytes);

  it("serves a kept decoding only for the very hex it came from", () => {
    const memo = new ParsedTxs(1024 * 1024);
    const first = memo.fromHex("mainnet", segwit.txid, hex);
    expect(memo.fromHex("mainnet", segwit.txid, hex)).toBe(first);
    expect(memo.fromHex("testnet", segwit.txid, hex)).not.toBe(first);
    expect(memo.fromBytes("mainnet", segwit.txid, segwit.bytes).tx.bytes).toEqual(first.tx.bytes);
    // Another witness under the same txid (a malleated copy): decoded anew, and it replaces the
    // kept one.
    const bytes = new Uint8Array(segwit.bytes);
    const witnessByte = bytes.length - 4 - 1; // the last witness item's last byte
    bytes[witnessByte] = bytes[witnessByte]! ^ 1;
    const other = memo.fromHex("mainnet", segwit.txid, toHex(bytes));
    expect(other.tx.txid).toBe(segwit.txid);
    expect(other.tx.wtxid).not.toBe(segwit.wtxid);
    expect(memo.fromHex("mainnet", segwit.txid, toHex(bytes))).toBe(other);
    expect(memo.fromHex("mainnet", segwit.txid, hex).tx.wtxid).toBe(segwit.wtxid);
    // Uppercase hex is the same bytes but not the same text: decoded again, same transaction.
    expect(memo.fromHex("mainnet", segwit.txid, hex.toUpperCase()).tx.wtxid).toBe(segwit.wtxid);
  });

  it("keeps within its budget, and keeps nothing at 0", () => {
    const small = new ParsedTxs(hex.length * 8);
    const a = TIP.transactions[1]!;
    small.fromHex("mainnet", segwit.txid, hex);
    small.fromHex("mainnet", a.txid, toHex(a.bytes));
    expect(small.stats!.bytes).toBeLessThanOrEqual(hex.length * 8);
    const off = new ParsedTxs(0);
    expect(off.fromHex("mainnet", segwit.txid, hex)).not.toBe(
      off.fromHex("mainnet", segwit.txid, hex),
    );
    expect(off.stats).toBeNull();
    expect(parseTransaction(off.fromHex("mainnet", segwit.txid, hex).tx.bytes).wtxid).toBe(
      segwit.wtxid,
    );
  });

  it("refuses what is not a transaction as the decoder does, and keeps nothing of it", () => {
    const memo = new ParsedTxs(1024 * 1024);
    expect(() => memo.fromHex("mainnet", segwit.txid, "zz")).toThrow("invalid hex string");
    expect(() => memo.fromHex("mainnet", segwit.txid, "00")).toThrow();
    expect(memo.stats!.entries).toBe(0);
  });
});
