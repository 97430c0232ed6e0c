// devnet pays any address from its own coins, through its own Core's sendrawtransaction.
import { afterAll, beforeAll, expect, it } from "vitest";
import { addressToScript, toHex } from "../../src/bitcoin/index.ts";
import { DEVNET_PAYOUT } from "../../src/devnet/block-producer.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { coreCaller } from "../support/devnet-core.ts";

let devnet: Devnet;
beforeAll(async () => {
  devnet = await startDevnet(["regtest"]);
});
afterAll(() => devnet.close());

const ADDRESS = "bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080";
const core = async (method: string, params: unknown[]) =>
  JSON.parse((await coreCaller(devnet)(method, params, "regtest")).text) as {
    result: Record<string, unknown>;
  };

it("refuses while no coin is mature, then pays the address, change back to devnet", async () => {
  const producer = devnet.producers.get("regtest")!;
  const script = addressToScript(ADDRESS, "regtest")!;
  const early = producer.pay(script, 50_000);
  expect(early).toEqual({
    refused: expect.stringMatching(
      /^devnet has 0 sats of mature coins on regtest, not enough to pay 50000: mine blocks first/,
    ),
  });
  producer.mine(101);
  const paid = producer.pay(script, 50_000);
  if (!("txid" in paid)) throw new Error(paid.refused);
  const tx = producer.chain.mempool.get(paid.txid)!;
  expect(tx.outputs[0]).toMatchObject({ value: 50_000n });
  expect(toHex(tx.outputs[0]!.scriptPubKey)).toBe(toHex(script));
  expect(toHex(tx.outputs[1]!.scriptPubKey)).toBe(toHex(DEVNET_PAYOUT));
  const entry = await core("getmempoolentry", [paid.txid]);
  expect((entry.result.fees as { base: number }).base).toBeGreaterThan(0);
  // A second payment at once, before any block: from another mature coin or the first's change.
  const next = producer.pay(script, 20_000);
  expect("txid" in next).toBe(true);
  expect(producer.chain.mempool.size).toBeGreaterThanOrEqual(2);
});
