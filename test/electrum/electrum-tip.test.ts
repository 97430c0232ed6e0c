import { once } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DevnetChain, loadDevnetChain } from "../../src/devnet/chain.ts";
import { HAL_TXID, post, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";

const full = loadDevnetChain();
const NEXT = full.tip;

let t: TestGateway;
let token: string;
let chain: DevnetChain;
beforeAll(async () => {
  // devnet's chain without its last block, which a test then "mines".
  chain = new DevnetChain();
  for (const height of full.heights()) {
    if (height !== NEXT.height) chain.addBlock(full.byHeight.get(height)!.block, height);
  }
  // A node tip trusted for 0 ms: the node route asks getblockcount for every cached answer.
  t = await startTestGateway("pglite", { cache: { tipTtlMs: 0 } }, undefined, { chain });
  ({ token } = await t.account("watcher", 100_000));
});
afterAll(() => t.close());

const confirmations = async (backend: string, params: unknown[]) => {
  const method = backend === "node" ? "getrawtransaction" : "blockchain.transaction.get";
  const res = await post(`${t.url}/${backend}/mainnet/${token}`, rpc(method, params));
  return (res.json as { result: { confirmations: number } }).result.confirmations;
};

describe("confirmations of cached transactions follow the tip", () => {
  it("a new block raises them on both routes, with no transaction fetched again", async () => {
    const before = chain.tip.height;
    expect(await confirmations("electrum", [HAL_TXID, true])).toBe(before - 170 + 1);
    const server = t.devnet.electrum.get("mainnet")!;
    const asked = server.stats.methods["blockchain.transaction.get"];

    const upstream = t.gateway.app.electrum.get("mainnet")!.upstreams[0]!;
    const noticed = once(upstream, "tip");
    chain.addBlock(NEXT.block, NEXT.height);
    server.announceTip();
    expect((await noticed)[0]).toMatchObject({ height: NEXT.height });

    expect(await confirmations("electrum", [HAL_TXID, true])).toBe(NEXT.height - 170 + 1);
    expect(await confirmations("node", [HAL_TXID, 1])).toBe(NEXT.height - 170 + 1);
    expect(server.stats.methods["blockchain.transaction.get"]).toBe(asked);
  });
});
