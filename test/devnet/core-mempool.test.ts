import { stringify } from "lossless-json";
import { describe, expect, it } from "vitest";
import { blockSubsidy } from "../../src/bitcoin/consensus.ts";
import {
  addressToScript,
  formatAmount,
  fromHexReversed,
  serializeTransaction,
  toHex,
} from "../../src/bitcoin/index.ts";
import { someAddress, useDevnetCore } from "../support/devnet-core.ts";

const { call } = useDevnetCore(["mainnet", "regtest"]);

const PAY_TO = addressToScript(someAddress("regtest"), "regtest")!;

/** A transaction spending `txid:vout` (an OP_TRUE output: no signature needed) to PAY_TO. */
function spend(txid: string, vout: number, value: bigint, script = PAY_TO): string {
  return toHex(
    serializeTransaction({
      version: 2,
      locktime: 0,
      inputs: [
        {
          prevTxid: txid,
          prevTxidBytes: fromHexReversed(txid),
          vout,
          scriptSig: new Uint8Array(0),
          sequence: 0xfffffffd,
          witness: [],
        },
      ],
      outputs: [{ value, scriptPubKey: script }],
    }),
  );
}

const regtest = (method: string, params: unknown[] = []) => call(method, params, "regtest");

describe("devnet's mempool on regtest: submit, inspect, mine", () => {
  let coinbase: string;
  let txHex: string;
  let txid: string;
  let greedyTxid: string;

  it("a fresh coinbase is immature: testmempoolaccept says so as Core does", async () => {
    // raw(51): a coinbase paying OP_TRUE, spendable without a signature.
    const { result } = await regtest("generateblock", ["raw(51)", []]);
    const block = (await regtest("getblock", [(result as { hash: string }).hash, 1])).result as {
      tx: string[];
    };
    coinbase = block.tx[0]!;
    txHex = spend(coinbase, 0, 50n * 100_000_000n - 10_000n);
    const [answer] = (await regtest("testmempoolaccept", [[txHex]])).result as Record<
      string,
      unknown
    >[];
    expect(answer).toMatchObject({
      allowed: false,
      "reject-reason": "bad-txns-premature-spend-of-coinbase",
      "reject-details": "bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth 1",
    });
  });

  it("mature after 100 blocks: allowed, with vsize and fees in Core's shape", async () => {
    await regtest("generatetoaddress", [100, someAddress("regtest")]);
    const [answer] = (await regtest("testmempoolaccept", [[txHex]])).result as Record<
      string,
      unknown
    >[];
    txid = answer!.txid as string;
    expect(Object.keys(answer!)).toEqual(["txid", "wtxid", "allowed", "vsize", "fees"]);
    expect(stringify(answer!.fees)).toBe(
      `{"base":0.00010000,"effective-feerate":${formatAmount((10_000n * 1000n) / BigInt(answer!.vsize as number))},"effective-includes":["${answer!.wtxid}"]}`,
    );
  });

  it("sendrawtransaction puts it in the mempool: getrawmempool, getmempoolentry, getrawtransaction", async () => {
    expect((await regtest("sendrawtransaction", [txHex])).result).toBe(txid);
    expect((await regtest("getrawmempool")).result).toContain(txid);
    const entry = (await regtest("getmempoolentry", [txid])).result as Record<string, unknown>;
    expect(Object.keys(entry)).toEqual([
      "vsize",
      "weight",
      "time",
      "height",
      "descendantcount",
      "descendantsize",
      "ancestorcount",
      "ancestorsize",
      "wtxid",
      "fees",
      "depends",
      "spentby",
      "bip125-replaceable",
      "unbroadcast",
    ]);
    expect(stringify(entry.fees)).toBe(
      '{"base":0.00010000,"modified":0.00010000,"ancestor":0.00010000,"descendant":0.00010000}',
    );
    expect((await regtest("getrawtransaction", [txid])).result).toBe(txHex);
    // Sent again: Core relays it and answers its txid; testmempoolaccept names the reason.
    expect((await regtest("sendrawtransaction", [txHex])).result).toBe(txid);
    const [again] = (await regtest("testmempoolaccept", [[txHex]])).result as Record<
      string,
      unknown
    >[];
    expect(again!["reject-reason"]).toBe("txn-already-in-mempool");
    // gettxout: spent in the mempool, unspent without it.
    expect((await regtest("gettxout", [coinbase, 0])).result).toBeNull();
    const out = (await regtest("gettxout", [coinbase, 0, false])).result as Record<string, unknown>;
    expect(Object.keys(out)).toEqual([
      "bestblock",
      "confirmations",
      "value",
      "scriptPubKey",
      "coinbase",
    ]);
    expect(String(out.value)).toBe("50.00000000");
    expect(String(out.confirmations)).toBe("101");
  });

  it("Core's refusals: conflict, dust, fee over maxfeerate, missing inputs, bad hex", async () => {
    const conflict = spend(coinbase, 0, 50n * 100_000_000n - 20_000n);
    expect((await regtest("sendrawtransaction", [conflict])).error).toEqual({
      code: -26,
      message: "txn-mempool-conflict",
    });
    const missing = spend("11".repeat(32), 0, 10_000n);
    expect((await regtest("sendrawtransaction", [missing])).error).toEqual({
      code: -25,
      message: "bad-txns-inputs-missingorspent",
    });
    const [m] = (await regtest("testmempoolaccept", [[missing]])).result as Record<
      string,
      unknown
    >[];
    expect(m!["reject-reason"]).toBe("missing-inputs");
    expect((await regtest("sendrawtransaction", ["00"])).error).toEqual({
      code: -22,
      message: "TX decode failed. Make sure the tx has at least one input.",
    });
    expect((await regtest("testmempoolaccept", [[]])).error).toEqual({
      code: -8,
      message: "Array must contain between 1 and 25 transactions.",
    });
    // A second mature coinbase for the fee and dust cases.
    const hash = ((await regtest("generateblock", ["raw(51)", []])).result as { hash: string })
      .hash;
    await regtest("generatetoaddress", [100, someAddress("regtest")]);
    const cb = ((await regtest("getblock", [hash, 1])).result as { tx: string[] }).tx[0]!;
    const dust = spend(cb, 0, 100n);
    expect((await regtest("sendrawtransaction", [dust])).error).toEqual({
      code: -26,
      message: "dust",
    });
    const greedy = spend(cb, 0, 49n * 100_000_000n);
    expect((await regtest("sendrawtransaction", [greedy])).error).toEqual({
      code: -25,
      message: "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)",
    });
    greedyTxid = (await regtest("sendrawtransaction", [greedy, 0])).result as string;
    expect(greedyTxid).toHaveLength(64);
  });

  it("the next block mines the mempool: coinbase pays subsidy + fees; sent again is -27", async () => {
    // The 100 blocks above mined our first transaction already.
    const mined = (await regtest("getrawtransaction", [txid, 1])).result as { blockhash?: string };
    expect(mined.blockhash).toHaveLength(64);
    const [hash] = (await regtest("generatetoaddress", [1, someAddress("regtest")]))
      .result as string[];
    const block = (await regtest("getblock", [hash, 2])).result as {
      height: { toString(): string };
      tx: { txid: string; vout: { value: { toString(): string } }[] }[];
    };
    expect(block.tx.map((t) => t.txid)).toEqual([block.tx[0]!.txid, greedyTxid]);
    expect((await regtest("getrawmempool")).result).toEqual([]);
    const height = Number(block.height.toString());
    // The greedy transaction's 1 BTC fee goes to the miner.
    expect(block.tx[0]!.vout[0]!.value.toString()).toBe(
      formatAmount(blockSubsidy(height, "regtest") + 100_000_000n),
    );
    expect((await regtest("sendrawtransaction", [txHex])).error).toEqual({
      code: -27,
      message: "Transaction outputs already in utxo set",
    });
  });
});
