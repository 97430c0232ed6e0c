import { connect, type Socket } from "node:net";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256d } from "../../src/bitcoin/hash.ts";
import { fromHex, toHexReversed } from "../../src/bitcoin/hex.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { type Liar, startLiar } from "../../src/devnet/liar/liar.ts";
import { rpc } from "../support/harness.ts";

let devnet: Devnet;
let liar: Liar;
let txid: string;
let blockHash: string;
let below: string;

beforeAll(async () => {
  devnet = await startDevnet(["regtest"]);
  const change = devnet.producers.get("regtest")!.mine(3);
  const chain = devnet.producers.get("regtest")!.chain;
  const block = chain.byHeight.get(2)!.block;
  txid = block.transactions[0]!.txid;
  blockHash = block.hash;
  below = chain.byHeight.get(1)!.block.hash;
  expect(change.tip.height).toBe(3);
  liar = await startLiar(devnet, "regtest");
});

afterAll(async () => {
  await liar?.close();
  await devnet?.close();
});

async function core(url: string, method: string, params: unknown[]) {
  const { user, password } = liar.core;
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` },
    body: JSON.stringify(rpc(method, params)),
  });
  return ((await res.json()) as { result: unknown }).result;
}

/** One Electrum session over TCP: each call a line out, its answer the next line in. */
function electrum(url: string) {
  const { hostname, port } = new URL(url.replace(/^tcp:/, "http:"));
  const socket: Socket = connect(Number(port), hostname);
  const lines = createInterface({ input: socket })[Symbol.asyncIterator]();
  let id = 0;
  return {
    async call(method: string, params: unknown[]) {
      id += 1;
      socket.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      const line = await lines.next();
      return (JSON.parse(line.value as string) as { result: unknown }).result;
    },
    close: () => socket.destroy(),
  };
}

const hashOf = (hex: string) => toHexReversed(sha256d(fromHex(hex)));

describe("a liar in front of devnet", () => {
  it("honest by default: answers as devnet does", async () => {
    const honest = devnet.cores.get("regtest")!.url;
    for (const [method, params] of [
      ["getbestblockhash", []],
      ["getrawtransaction", [txid, true]],
      ["getblockheader", [blockHash, false]],
    ] as const) {
      expect(await core(liar.core.url, method, [...params])).toEqual(
        await core(honest, method, [...params]),
      );
    }
  });

  it("tamperTx: bytes that no longer hash to the txid, on Core and Electrum, plain and verbose", async () => {
    liar.set({ tamperTx: [txid] });
    const plain = (await core(liar.core.url, "getrawtransaction", [txid, false])) as string;
    const verbose = (await core(liar.core.url, "getrawtransaction", [txid, true])) as {
      txid: string;
      hex: string;
    };
    expect(hashOf(plain)).not.toBe(txid);
    expect(verbose.txid).toBe(txid);
    expect(verbose.hex).toBe(plain);
    const e = electrum(liar.electrum.url);
    await e.call("server.version", ["test", "1.4"]);
    expect(await e.call("blockchain.transaction.get", [txid])).toBe(plain);
    e.close();
  });

  it("wrongBlock: the block below, one confirmation more; get_merkle a height lower", async () => {
    liar.set({ wrongBlock: "all" });
    const verbose = (await core(liar.core.url, "getrawtransaction", [txid, true])) as {
      blockhash: string;
      confirmations: number;
    };
    expect(verbose.blockhash).toBe(below);
    expect(verbose.confirmations).toBe(3);
    const e = electrum(liar.electrum.url);
    await e.call("server.version", ["test", "1.4"]);
    const merkle = (await e.call("blockchain.transaction.get_merkle", [txid, 2])) as {
      block_height: number;
    };
    expect(merkle.block_height).toBe(1);
    e.close();
  });

  it("shorterBy: the tip, the heights and the headers subscription of a chain that fell behind", async () => {
    liar.set({ shorterBy: 2 });
    expect(await core(liar.core.url, "getblockcount", [])).toBe(1);
    expect(await core(liar.core.url, "getbestblockhash", [])).toBe(below);
    const e = electrum(liar.electrum.url);
    await e.call("server.version", ["test", "1.4"]);
    expect(await e.call("blockchain.headers.subscribe", [])).toMatchObject({ height: 1 });
    const headers = (await e.call("blockchain.block.headers", [0, 10])) as { count: number };
    expect(headers.count).toBe(2);
    e.close();
  });

  it("stall: a call of that method is never answered; the others are", async () => {
    liar.set({ stall: "getblockcount" });
    let answered = false;
    const stalled = core(liar.core.url, "getblockcount", []).then(() => {
      answered = true;
    });
    void stalled.catch(() => {});
    expect(await core(liar.core.url, "getbestblockhash", [])).toBe(
      devnet.producers.get("regtest")!.chain.tip.block.hash,
    );
    expect(answered).toBe(false);
    liar.set({});
  });
});
