import { createHash } from "node:crypto";
import { once } from "node:events";
import { connect, type Socket } from "node:net";
import ElectrumClient from "@mempool/electrum-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { electrumScripthash } from "../../src/bitcoin/scripthash.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import type { DevnetElectrumServer } from "../../src/devnet/electrum/server.ts";
import { BLOCK_170, HAL_TXID } from "../support/harness.ts";

const chain = loadDevnetChain();
const MEMPOOL_TXID = [...chain.mempool.keys()][0]!;

let devnet: Devnet;
let server: DevnetElectrumServer;
beforeAll(async () => {
  devnet = await startDevnet(["mainnet"], { electrum: { sendBytesMax: 400_000 } });
  server = devnet.electrum.get("mainnet")!;
});
afterAll(() => devnet.close());

/** A raw line-oriented connection: what we send and read, byte for byte. */
class Line {
  private buffer = "";
  private waiters: (() => void)[] = [];
  closed = false;
  constructor(readonly socket: Socket) {
    socket.on("data", (c: Buffer) => {
      this.buffer += c.toString("utf8");
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on("close", () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
  }
  static async open(): Promise<Line> {
    const socket = connect(server.port, "127.0.0.1");
    await once(socket, "connect");
    return new Line(socket);
  }
  send(text: string): void {
    this.socket.write(`${text}\n`);
  }
  /** The next complete line (waits on data events, not on time). */
  async next(): Promise<string> {
    for (;;) {
      const end = this.buffer.indexOf("\n");
      if (end >= 0) {
        const line = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end + 1);
        return line;
      }
      if (this.closed) throw new Error("closed");
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
  async call(message: unknown): Promise<string> {
    this.send(JSON.stringify(message));
    return this.next();
  }
  close(): void {
    this.socket.destroy();
  }
}

const req = (id: number, method: string, params: unknown = []) => ({
  jsonrpc: "2.0",
  id,
  method,
  params,
});

async function identified(): Promise<Line> {
  const line = await Line.open();
  await line.call(req(0, "server.version", ["test", "1.4"]));
  return line;
}

describe("devnet's Electrum server behaves as ElectrumX", () => {
  it("server.version must come first: code 1, then the connection is closed", async () => {
    const line = await Line.open();
    expect(await line.call(req(5, "server.ping"))).toBe(
      '{"jsonrpc": "2.0", "error": {"code": 1, "message": "use server.version to identify client"}, "id": 5}',
    );
    await once(line.socket, "close");
  });

  it("negotiates 1.4 to 1.6, once; refuses other versions and disconnects", async () => {
    const line = await Line.open();
    const answer = JSON.parse(await line.call(req(1, "server.version", ["t", ["1.4", "1.6"]])));
    expect(answer.result).toEqual([expect.stringContaining("ElectrumX"), "1.6"]);
    expect(JSON.parse(await line.call(req(2, "server.version", ["t", "1.4"]))).error).toEqual({
      code: 1,
      message: "server.version already sent",
    });
    line.close();
    const old = await Line.open();
    expect(JSON.parse(await old.call(req(1, "server.version", ["t", "1.2"]))).error).toEqual({
      code: 1,
      message: "unsupported protocol version: 1.2",
    });
    await once(old.socket, "close");
    const plain = await Line.open();
    expect(JSON.parse(await plain.call(req(1, "server.version", []))).result[1]).toBe("1.4");
    plain.close();
  });

  it("server.ping is null; unknown methods and bad arguments in aiorpcx's words", async () => {
    const line = await identified();
    expect(await line.call(req(1, "server.ping"))).toBe(
      '{"jsonrpc": "2.0", "result": null, "id": 1}',
    );
    expect(JSON.parse(await line.call(req(2, "blockchain.nope"))).error).toEqual({
      code: -32601,
      message: 'unknown method "blockchain.nope"',
    });
    expect(JSON.parse(await line.call(req(3, "blockchain.transaction.get"))).error).toEqual({
      code: -32602,
      message: '0 arguments passed to method "blockchain.transaction.get" but it requires 1',
    });
    line.close();
  });

  it("no donation address, no peers, every add_peer turned down (peer discovery off)", async () => {
    const line = await identified();
    expect(await line.call(req(1, "server.donation_address"))).toBe(
      '{"jsonrpc": "2.0", "result": "", "id": 1}',
    );
    expect(await line.call(req(2, "server.peers.subscribe"))).toBe(
      '{"jsonrpc": "2.0", "result": [], "id": 2}',
    );
    expect(await line.call(req(3, "server.add_peer", [{ hosts: {} }]))).toBe(
      '{"jsonrpc": "2.0", "result": false, "id": 3}',
    );
    expect(JSON.parse(await line.call(req(4, "server.add_peer"))).error).toEqual({
      code: -32602,
      message: '0 arguments passed to method "server.add_peer" but it requires 1',
    });
    line.close();
  });

  it("transaction.get: hex; verbose is the daemon's object re-encoded by Python", async () => {
    const line = await identified();
    const hex = JSON.parse(await line.call(req(1, "blockchain.transaction.get", [HAL_TXID])));
    expect(hex.result.startsWith("0100000001c997a5e5")).toBe(true);
    const text = await line.call(req(2, "blockchain.transaction.get", [HAL_TXID, true]));
    expect(text).toContain('"value": 10.0,');
    const verbose = JSON.parse(text).result;
    expect(verbose).toMatchObject({ txid: HAL_TXID, blockhash: BLOCK_170 });
    const mempool = JSON.parse(
      await line.call(req(3, "blockchain.transaction.get", [MEMPOOL_TXID, true])),
    );
    expect(mempool.result.txid).toBe(MEMPOOL_TXID);
    expect(mempool.result.blockhash).toBeUndefined();
    line.close();
  });

  it("transaction.get errors: bad hash, bad verbose, the daemon's -5 as code 2", async () => {
    const line = await identified();
    const error = async (params: unknown[]) =>
      JSON.parse(await line.call(req(1, "blockchain.transaction.get", params))).error;
    expect(await error(["xyz"])).toEqual({ code: 1, message: "xyz should be a transaction hash" });
    expect(await error([7])).toEqual({ code: 1, message: "7 should be a transaction hash" });
    expect(await error([HAL_TXID, "yes"])).toEqual({
      code: 1,
      message: '"verbose" must be a boolean',
    });
    expect(await error(["11".repeat(32)])).toEqual({
      code: 2,
      message:
        "daemon error: DaemonError({'code': -5, 'message': 'No such mempool or blockchain transaction. Use gettransaction for wallet transactions.'})",
    });
    line.close();
  });

  it("answers pipelined requests by id and batches whole", async () => {
    const line = await identified();
    line.send(JSON.stringify(req(10, "blockchain.transaction.get", [HAL_TXID])));
    line.send(JSON.stringify(req(11, "server.ping")));
    const ids = [JSON.parse(await line.next()).id, JSON.parse(await line.next()).id].sort();
    expect(ids).toEqual([10, 11]);
    const batch = JSON.parse(
      await line.call([req(1, "server.ping"), req(2, "blockchain.block.header", [170])]),
    );
    expect(batch.map((r: { id: number }) => r.id)).toEqual([1, 2]);
    expect(batch[1].result).toBe(
      Buffer.from(chain.byHeight.get(170)!.block.headerBytes).toString("hex"),
    );
    line.close();
  });

  it("headers.subscribe gives the tip; answers over MAX_SEND are refused", async () => {
    const line = await identified();
    const tip = JSON.parse(await line.call(req(1, "blockchain.headers.subscribe"))).result;
    expect(tip.height).toBe(chain.tip.height);
    const big = [...chain.mempool.values()].find((tx) => tx.size > 300_000)!;
    expect(
      JSON.parse(await line.call(req(2, "blockchain.transaction.get", [big.txid]))).error,
    ).toEqual({
      code: -32600,
      message: "response too large (over 400,000 bytes",
    });
    line.close();
  });

  it("scripthash.get_history: the transactions paying to or spending from a script", async () => {
    const line = await identified();
    const hal = chain.txIndex.get(HAL_TXID)!;
    const script = hal.block.block.transactions[hal.index]!.outputs[0]!.scriptPubKey;
    const history = JSON.parse(
      await line.call(req(1, "blockchain.scripthash.get_history", [electrumScripthash(script)])),
    ).result;
    expect(history).toContainEqual({ tx_hash: HAL_TXID, height: 170 });
    expect(
      JSON.parse(await line.call(req(2, "blockchain.scripthash.get_history", ["xyz"]))).error,
    ).toEqual({
      code: 1,
      message: "xyz is not a valid script hash",
    });
    line.close();
  });

  it("scripthash.subscribe: ElectrumX's status of the history (null when empty); unsubscribe says whether it was held", async () => {
    const line = await identified();
    const hal = chain.txIndex.get(HAL_TXID)!;
    const hash = electrumScripthash(
      hal.block.block.transactions[hal.index]!.outputs[0]!.scriptPubKey,
    );
    const history = JSON.parse(await line.call(req(1, "blockchain.scripthash.get_history", [hash])))
      .result as { tx_hash: string; height: number }[];
    const status = createHash("sha256")
      .update(history.map((e) => `${e.tx_hash}:${e.height}:`).join(""))
      .digest("hex");
    const answer = (id: number, method: string, h: string) =>
      line.call(req(id, `blockchain.scripthash.${method}`, [h])).then((t) => JSON.parse(t).result);
    expect(await answer(2, "subscribe", hash)).toBe(status);
    expect(await answer(3, "subscribe", "00".repeat(32))).toBeNull();
    expect(await answer(4, "unsubscribe", hash)).toBe(true);
    expect(await answer(5, "unsubscribe", hash)).toBe(false);
    line.close();
  });

  it("a message over MAX_RECV (1,000,000 bytes) drops the connection", async () => {
    const line = await identified();
    line.socket.write("x".repeat(1_000_001));
    await once(line.socket, "close");
    expect(line.closed).toBe(true);
  });

  it("counts connections and requests", async () => {
    const before = { ...server.stats, methods: { ...server.stats.methods } };
    const line = await identified();
    await line.call(req(1, "server.ping"));
    expect(server.stats.connections).toBe(before.connections + 1);
    expect(server.stats.methods["server.ping"]).toBe((before.methods["server.ping"] ?? 0) + 1);
    line.close();
  });
});

interface StockElectrum {
  initElectrum(config: { client: string; version: string }): Promise<unknown>;
  versionInfo: [string, string];
  blockchainTransaction_get(txid: string, verbose?: boolean): Promise<unknown>;
  request(method: string, params: unknown[]): Promise<unknown>;
  close(): void;
}
type StockCtor = new (port: number, host: string, protocol: string) => StockElectrum;

describe("a stock Electrum client from npm (@mempool/electrum-client) works against devnet", () => {
  it("identifies, then fetches real transactions as hex and verbose, and the tip", async () => {
    const client = new (ElectrumClient as unknown as StockCtor)(server.port, "127.0.0.1", "tcp");
    await client.initElectrum({ client: "mempool-test", version: "1.4" });
    expect(client.versionInfo[1]).toBe("1.4");
    const at = chain.txIndex.get(HAL_TXID)!;
    expect(await client.blockchainTransaction_get(HAL_TXID)).toBe(
      at.block.block.transactions[at.index]!.hex,
    );
    const verbose = (await client.blockchainTransaction_get(HAL_TXID, true)) as {
      txid: string;
      blockhash: string;
      vout: { value: number }[];
    };
    expect(verbose.txid).toBe(HAL_TXID);
    expect(verbose.blockhash).toBe(BLOCK_170);
    expect(verbose.vout.map((o) => o.value)).toEqual([10, 40]);
    const mempool = (await client.blockchainTransaction_get(MEMPOOL_TXID, true)) as {
      txid: string;
    };
    expect(mempool.txid).toBe(MEMPOOL_TXID);
    // Its blockchainHeaders_subscribe() sends protocol 1.2's `raw` argument, which 1.4 servers
    // (ElectrumX included) refuse; the generic request is what works with them.
    const tip = (await client.request("blockchain.headers.subscribe", [])) as { height: number };
    expect(tip.height).toBe(chain.tip.height);
    await expect(client.blockchainTransaction_get("22".repeat(32))).rejects.toMatchObject({
      code: 2,
    });
    client.close();
  });
});
