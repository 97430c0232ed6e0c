import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import {
  askDevnetCore,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";

const chain = loadDevnetChain();
/** 99,624 bytes at height 702861: its hex fits in 350,000 B, its decoded form does not. */
const BIG_TXID = "cbf820e4508038797d8844ee7affc901450682a0caba871e3a87844a69228fde";

let t: TestGateway;
let token: string;
beforeAll(async () => {
  // ElectrumX with MAX_SEND at its floor of 350,000 bytes.
  t = await startTestGateway("pglite", {}, undefined, { electrum: { sendBytesMax: 350_000 } });
  ({ token } = await t.account("bulky", 10_000));
});
afterAll(() => t.close());

const methods = () => {
  const m = t.devnet.electrum.get("mainnet")!.stats.methods;
  return (name: string) => m[name] ?? 0;
};
const count = (name: string) => methods()(name);

describe("an Electrum server that refuses the verbose form", () => {
  it("still gives the spec's shape: hex from the server, block from its history index", async () => {
    const txGets = count("blockchain.transaction.get");
    const histories = count("blockchain.scripthash.get_history");
    const res = await post(
      `${t.url}/electrum/mainnet/${token}`,
      rpc("blockchain.transaction.get", [BIG_TXID, true]),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("x-credits-charged")).toBe("100");
    const result = (res.json as { result: Record<string, unknown> }).result;
    expect(result).toMatchObject({
      txid: BIG_TXID,
      blockhash: chain.byHeight.get(702861)!.block.hash,
      blockheight: 702861,
      confirmations: chain.tip.height - 702861 + 1,
      blocktime: chain.byHeight.get(702861)!.block.time,
    });
    // Verbose refused ("response too large"), then the hex; one history look-up.
    expect(count("blockchain.transaction.get")).toBe(txGets + 2);
    expect(count("blockchain.scripthash.get_history")).toBe(histories + 1);

    // Apart from blockheight, byte for byte what Core says about it.
    const direct = await askDevnetCore(t.devnet, "getrawtransaction", [BIG_TXID, 1]);
    const coreResult = direct.slice(
      '{"jsonrpc":"2.0","result":'.length,
      direct.lastIndexOf(',"id":'),
    );
    expect(res.text.replace(',"blockheight":702861', "")).toContain(coreResult);
  });

  it("the hex form costs the same and is the transaction's bytes", async () => {
    const res = await post(
      `${t.url}/electrum/mainnet/${token}`,
      rpc("blockchain.transaction.get", [BIG_TXID]),
    );
    const at = chain.txIndex.get(BIG_TXID)!;
    expect((res.json as { result: string }).result).toBe(
      at.block.block.transactions[at.index]!.hex,
    );
  });
});
