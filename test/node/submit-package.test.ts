import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  addressToScript,
  fromHexReversed,
  parseTransaction,
  serializeTransaction,
  toHex,
} from "../../src/bitcoin/index.ts";
import { coreCaller, someAddress } from "../support/devnet-core.ts";
import { gql } from "../support/graphql.ts";
import { post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";

const PAY_TO = addressToScript(someAddress("regtest"), "regtest")!;
/** Regtest's price of a submitpackage. */
const PRICE = 400;

/** A transaction spending `txid:vout` to PAY_TO (devnet checks no scripts: none is signed). */
function spend(txid: string, vout: number, value: bigint): string {
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
      outputs: [{ value, scriptPubKey: PAY_TO }],
    }),
  );
}

const txidOf = (hex: string) => parseTransaction(Buffer.from(hex, "hex")).txid;
const wtxidOf = (hex: string) => parseTransaction(Buffer.from(hex, "hex")).wtxid;

/** A parent spending a mature coinbase and its child, 10 000 sats of fee each. */
function parentAndChild(coinbase: string): [string, string] {
  const parent = spend(coinbase, 0, 50n * 100_000_000n - 10_000n);
  const child = spend(txidOf(parent), 0, 50n * 100_000_000n - 20_000n);
  return [parent, child];
}

let t: TestGateway;
let token: string;
const coinbases: string[] = [];
beforeAll(async () => {
  t = await startTestGateway();
  ({ token } = await t.account("packager", 100_000));
  const call = coreCaller(t.devnet);
  for (let i = 0; i < 3; i++) {
    // raw(51): a coinbase paying OP_TRUE; 100 blocks later it may be spent.
    const { result } = await call("generateblock", ["raw(51)", []], "regtest");
    const hash = (result as { hash: string }).hash;
    coinbases.push(
      ((await call("getblock", [hash, 1], "regtest")).result as { tx: string[] }).tx[0]!,
    );
  }
  await call("generatetoaddress", [100, someAddress("regtest")], "regtest");
});
afterAll(() => t.close());

const nodeUrl = () => `${t.url}/node/regtest/${token}`;
const gatewayUrl = () => `${t.url}/gateway/regtest/${token}`;
const available = async () => (await balanceOf(t.gateway.app.db, "packager")).available;
const mempool = async () =>
  (await post(nodeUrl(), rpc("getrawmempool", []))).json as { result: string[] };

describe("submitpackage on the node route", () => {
  it("a parent and its child enter the mempool; Core's answer shape; one price", async () => {
    const [parent, child] = parentAndChild(coinbases[0]!);
    const before = await available();
    const res = await post(nodeUrl(), rpc("submitpackage", [[parent, child]]));
    const { result } = res.json as { result: Record<string, unknown> };
    expect(Object.keys(result)).toEqual(["package_msg", "tx-results", "replaced-transactions"]);
    expect(result.package_msg).toBe("success");
    expect(result["replaced-transactions"]).toEqual([]);
    const results = result["tx-results"] as Record<string, Record<string, unknown>>;
    expect(Object.keys(results)).toEqual([wtxidOf(parent), wtxidOf(child)]);
    const mine = results[wtxidOf(child)]!;
    expect(Object.keys(mine)).toEqual(["txid", "vsize", "fees"]);
    expect(mine.txid).toBe(txidOf(child));
    expect(mine.fees).toEqual({
      base: 0.0001,
      "effective-feerate": expect.any(Number),
      "effective-includes": [wtxidOf(child)],
    });
    expect((await mempool()).result).toEqual(
      expect.arrayContaining([txidOf(parent), txidOf(child)]),
    );
    expect(before - (await available())).toBe(PRICE + 50); // and getrawmempool's
  });

  it("refusals in Core's words: out of order (-25), empty (-8), undecodable (-22)", async () => {
    const [parent, child] = parentAndChild(coinbases[1]!);
    const errorOf = async (params: unknown[]) =>
      ((await post(nodeUrl(), rpc("submitpackage", params))).json as { error: unknown }).error;
    expect(await errorOf([[child, parent]])).toEqual({
      code: -25,
      message:
        "package topology disallowed. not child-with-parents or parents depend on each other.",
    });
    expect(await errorOf([[]])).toEqual({
      code: -8,
      message: "Array must contain between 1 and 25 transactions.",
    });
    expect(await errorOf([["zz"]])).toEqual({
      code: -22,
      message: "TX decode failed: zz Make sure the tx has at least one input.",
    });
  });

  it("a transaction whose input is missing: transaction failed, with its reason", async () => {
    const parent = spend(coinbases[1]!, 0, 50n * 100_000_000n - 10_000n);
    const orphan = spend("11".repeat(32), 0, 1000n);
    const res = await post(nodeUrl(), rpc("submitpackage", [[parent]]));
    expect((res.json as { result: { package_msg: string } }).result.package_msg).toBe("success");
    const again = await post(nodeUrl(), rpc("submitpackage", [[orphan]]));
    const { result } = again.json as {
      result: { package_msg: string; "tx-results": Record<string, { error?: string }> };
    };
    expect(result.package_msg).toBe("transaction failed");
    expect(result["tx-results"][wtxidOf(orphan)]!.error).toBe("bad-txns-inputs-missingorspent");
  });
});

describe("submitPackage mutation", () => {
  const MUTATION = `mutation($txs: [Hex!]!) { submitPackage(rawTransactions: $txs) {
    packageMessage replacedTransactions
    transactions { wtxid txid vsize baseFee effectiveFeerate effectiveIncludes error } } }`;

  it("answers Core's result typed, charged as one submitpackage", async () => {
    const [parent, child] = parentAndChild(coinbases[2]!);
    const res = await gql<{
      submitPackage: { packageMessage: string; transactions: Record<string, unknown>[] };
    }>(gatewayUrl(), MUTATION, { txs: [parent, child] });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.submitPackage.packageMessage).toBe("success");
    expect(res.body.data!.submitPackage.transactions).toEqual([
      expect.objectContaining({
        wtxid: wtxidOf(parent),
        txid: txidOf(parent),
        baseFee: "0.00010000",
        effectiveIncludes: [wtxidOf(parent)],
        error: null,
      }),
      expect.objectContaining({ wtxid: wtxidOf(child), txid: txidOf(child), error: null }),
    ]);
    expect(res.body.extensions?.cost).toMatchObject({ estimated: PRICE, charged: PRICE });
  });

  it("a refusal of the whole carries Core's code, charged; an empty list is refused free", async () => {
    const [parent, child] = parentAndChild(coinbases[0]!);
    const res = await gql(gatewayUrl(), MUTATION, { txs: [child, parent] });
    expect(res.body.errors?.[0]?.extensions).toMatchObject({ rpcCode: -25 });
    expect(res.body.extensions?.cost).toMatchObject({ charged: PRICE });
    const empty = await gql(gatewayUrl(), MUTATION, { txs: [] });
    expect(empty.body.errors?.[0]?.extensions?.code).toBe("BAD_USER_INPUT");
    expect(empty.body.extensions?.cost).toMatchObject({ charged: 0 });
  });
});
