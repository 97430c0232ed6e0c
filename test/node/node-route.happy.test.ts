import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mineCoinbase } from "../support/devnet-core.ts";
import {
  BLOCK_170,
  HAL_TXID,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { balanceOf } from "../support/ledger.ts";

const sha256d = (b: Buffer) =>
  createHash("sha256").update(createHash("sha256").update(b).digest()).digest();

let t: TestGateway;
let token: string;
beforeAll(async () => {
  t = await startTestGateway();
  ({ token } = await t.account("alice", 10_000));
});
afterAll(() => t.close());

const nodeUrl = (network = "mainnet") => `${t.url}/node/${network}/${token}`;

describe("node route: getrawtransaction", () => {
  it("returns the exact serialized transaction and charges 200 CC on mainnet", async () => {
    const before = await balance();
    const res = await post(nodeUrl(), rpc("getrawtransaction", [HAL_TXID], 7));
    expect(res.status).toBe(200);
    const body = res.json as { jsonrpc: string; id: number; result: string };
    // Core's JSONRPCReplyObj order.
    expect(Object.keys(body)).toEqual(["jsonrpc", "result", "id"]);
    expect(body.jsonrpc).toBe("2.0");
    expect(body.id).toBe(7);
    // The hex hashes to the txid and stands, byte for byte, in the real block file.
    const bytes = Buffer.from(body.result, "hex");
    expect(Buffer.from(sha256d(bytes)).reverse().toString("hex")).toBe(HAL_TXID);
    expect(readFileSync("data/chain/blocks/blocks1-255.dat").includes(bytes)).toBe(true);
    expect(res.headers.get("x-credits-charged")).toBe("200");
    expect(await balance()).toBe(before - 200);
  });

  it("charges the same for the verbose form, and 100 CC on regtest and testnets", async () => {
    for (const [network, price] of [
      ["mainnet", 200],
      ["regtest", 100],
      ["testnet4", 100],
      ["signet", 100],
    ] as const) {
      // Each network has its own chain: elsewhere than mainnet, a coinbase devnet produces.
      const txid = network === "mainnet" ? HAL_TXID : await mineCoinbase(t.devnet, network);
      for (const verbose of [false, true, 0, 1]) {
        const before = await balance();
        const res = await post(nodeUrl(network), rpc("getrawtransaction", [txid, verbose]));
        expect(res.status).toBe(200);
        expect((res.json as { error?: unknown }).error).toBeUndefined();
        expect(await balance()).toBe(before - price);
      }
    }
  });

  it("decodes with block fields when verbose, restricted to a block when a blockhash is given", async () => {
    const res = await post(nodeUrl(), rpc("getrawtransaction", [HAL_TXID, true, BLOCK_170]));
    const result = (res.json as { result: Record<string, unknown> }).result;
    expect(Object.keys(result)[0]).toBe("in_active_chain");
    expect(result.txid).toBe(HAL_TXID);
    expect(result.blockhash).toBe(BLOCK_170);
    expect(result.time).toBe(1231731025);
    // Amounts keep Core's 8 decimals on the wire, not a float.
    expect(res.text).toContain('"value":10.00000000');
    expect(res.text).toContain('"value":40.00000000');
  });

  it("answers a batch in order, one charge per call", async () => {
    const before = await balance();
    const res = await post(nodeUrl(), [
      rpc("getrawtransaction", [HAL_TXID], "a"),
      rpc("getrawtransaction", ["00".repeat(32)], "b"),
      rpc("getrawtransaction", ["xyz"], "c"),
    ]);
    expect(res.status).toBe(200);
    const [a, b, c] = res.json as { id: string; result?: string; error?: { code: number } }[];
    expect(a?.id).toBe("a");
    expect(typeof a?.result).toBe("string");
    expect(b?.error?.code).toBe(-5);
    expect(c?.error?.code).toBe(-8);
    // a and b reached the node (b's -5 is an answer, charged); c was rejected by the gateway.
    expect(await balance()).toBe(before - 400);
  });

  it("accepts legacy 1.0 requests as Core does: result and error both present", async () => {
    const res = await post(nodeUrl(), { id: 1, method: "getrawtransaction", params: [HAL_TXID] });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json as object)).toEqual(["result", "error", "id"]);
    const missing = await post(nodeUrl(), {
      id: 2,
      method: "getrawtransaction",
      params: ["00".repeat(32)],
    });
    expect(missing.status).toBe(500);
    expect(missing.json).toEqual({
      result: null,
      error: {
        code: -5,
        message:
          "No such mempool or blockchain transaction. Use gettransaction for wallet transactions.",
      },
      id: 2,
    });
  });

  it("takes named parameters", async () => {
    const res = await post(nodeUrl(), rpc("getrawtransaction", { txid: HAL_TXID, verbose: 1 }));
    expect((res.json as { result: { txid: string } }).result.txid).toBe(HAL_TXID);
  });
});

async function balance(): Promise<number> {
  return (await balanceOf(t.gateway.app.db, "alice")).available;
}
