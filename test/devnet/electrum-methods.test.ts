import { once } from "node:events";
import { connect } from "node:net";
import ElectrumClient from "@mempool/electrum-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sha256d } from "../../src/bitcoin/hash.ts";
import { fromHex, fromHexReversed, toHex, toHexReversed } from "../../src/bitcoin/hex.ts";
import { computeMerkleRoot } from "../../src/bitcoin/merkle.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { compressHistogram } from "../../src/devnet/electrum/fees.ts";
import { foldBranch } from "../electrum/merkle-fold.ts";
import { coreCaller } from "../support/devnet-core.ts";
import { BLOCK_170, HAL_TXID } from "../support/harness.ts";

/**
 * devnet's ElectrumX answers Electrum 1.4's read API (src/devnet/electrum/), asked over TCP by a
 * stock client from npm (@mempool/electrum-client, pure JS; some of its helpers carry typos —
 * `blockchain.block.headeres` — so the generic request() is used for those), with real values
 * from the real blocks devnet serves.
 */

const chain = loadDevnetChain();
/** Satoshi's block-9 key: paid at 9, 170 (change), 181, 182, 183 and 248 (change), each spent next. */
const SATOSHI = "8131e31b9b2da6ddb7cca24c537869c94320f19e80fc2ee72c9558e5a9296978";
/** Hal Finney's key: paid 10 BTC by f4184fc5…:0 at 170. */
const HAL = "77461c6ef27087fdb3d0c1b9630d2ac583fb09167feeb026976a2e48c4489c79";
const GENESIS = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f";

interface Stock {
  initElectrum(config: { client: string; version: string }): Promise<unknown>;
  request(method: string, params: unknown[]): Promise<unknown>;
  server_features(): Promise<unknown>;
  server_banner(): Promise<unknown>;
  blockchainScripthash_getBalance(hash: string): Promise<unknown>;
  blockchainScripthash_listunspent(hash: string): Promise<unknown>;
  blockchainScripthash_getHistory(hash: string): Promise<unknown>;
  blockchainScripthash_getMempool(hash: string): Promise<unknown>;
  close(): void;
}
type StockCtor = new (port: number, host: string, protocol: string) => Stock;

let devnet: Devnet;
let client: Stock;
let port: number;
beforeAll(async () => {
  devnet = await startDevnet(["mainnet"]);
  port = devnet.electrum.get("mainnet")!.port;
  client = new (ElectrumClient as unknown as StockCtor)(port, "127.0.0.1", "tcp");
  await client.initElectrum({ client: "methods-test", version: "1.4" });
});
afterAll(async () => {
  client.close();
  await devnet.close();
});

const headerHex = (height: number) => toHex(chain.byHeight.get(height)!.block.headerBytes);

describe("devnet ElectrumX: server methods", () => {
  it("server.features: ElectrumX's keys in its order, this network's genesis", async () => {
    const features = (await client.server_features()) as Record<string, unknown>;
    expect(Object.keys(features)).toEqual([
      "hosts",
      "pruning",
      "server_version",
      "protocol_min",
      "protocol_max",
      "genesis_hash",
      "hash_function",
      "services",
    ]);
    expect(features).toMatchObject({
      hosts: { "127.0.0.1": { tcp_port: port } },
      pruning: null,
      protocol_min: "1.4",
      protocol_max: "1.6",
      genesis_hash: GENESIS,
      hash_function: "sha256",
    });
  });

  it("server.banner names the server", async () => {
    expect(await client.server_banner()).toBe(
      "You are connected to an ElectrumX 1.18.0 (blockgate devnet) server.",
    );
  });
});

describe("devnet ElectrumX: headers and checkpoint proofs", () => {
  it("block.header with cp_height: the header and a branch to the root over headers 0..cp", async () => {
    const proof = (await client.request("blockchain.block.header", [170, 255])) as {
      branch: string[];
      header: string;
      root: string;
    };
    expect(Object.keys(proof)).toEqual(["header", "branch", "root"]);
    expect(proof.header).toBe(headerHex(170));
    // 256 leaves: 8 levels. The root is recomputed here with Core's ComputeMerkleRoot.
    expect(proof.branch).toHaveLength(8);
    const leaves = Array.from({ length: 256 }, (_, h) => chain.byHeight.get(h)!.block.hashBytes);
    const root = computeMerkleRoot(leaves);
    expect(proof.root).toBe(toHexReversed(root));
    expect(toHexReversed(foldBranch(sha256d(fromHex(proof.header)), proof.branch, 170))).toBe(
      proof.root,
    );
    // The first sibling is block 171's hash, in display order as the protocol shows hashes.
    expect(proof.branch[0]).toBe(chain.byHeight.get(171)!.block.hash);
  });

  it("a proof to an odd count repeats the last hash, as ElectrumX does", async () => {
    const proof = (await client.request("blockchain.block.header", [2, 2])) as {
      branch: string[];
      root: string;
    };
    // Leaves 0, 1, 2 (+2 again): branch [hash 2 itself, hash(0‖1)].
    expect(proof.branch[0]).toBe(chain.byHeight.get(2)!.block.hash);
    const leaves = [0, 1, 2].map((h) => chain.byHeight.get(h)!.block.hashBytes);
    expect(proof.root).toBe(toHexReversed(computeMerkleRoot(leaves)));
  });

  it("cp_height over devnet's sparse chain, or out of order, is refused", async () => {
    await expect(client.request("blockchain.block.header", [170, 300])).rejects.toMatchObject({
      code: 1,
      message: "devnet holds a sparse chain: no header at height 256, so no proof to cp_height 300",
    });
    await expect(client.request("blockchain.block.header", [170, 100])).rejects.toMatchObject({
      code: 1,
      message: "require header height 170 <= cp_height 100 <= chain height 951,658",
    });
    await expect(client.request("blockchain.block.header", [-1])).rejects.toMatchObject({
      code: 1,
      message: "-1 should be a non-negative integer",
    });
  });

  it("block.headers: concatenated headers, count and max, with a proof of the last", async () => {
    const plain = (await client.request("blockchain.block.headers", [168, 3])) as Record<
      string,
      unknown
    >;
    expect(plain).toEqual({
      hex: headerHex(168) + headerHex(169) + headerHex(170),
      count: 3,
      max: 2016,
    });
    const proved = (await client.request("blockchain.block.headers", [168, 3, 200])) as {
      branch: string[];
      root: string;
    };
    const leaves = Array.from({ length: 201 }, (_, h) => chain.byHeight.get(h)!.block.hashBytes);
    expect(proved.root).toBe(toHexReversed(computeMerkleRoot(leaves)));
    expect(toHexReversed(foldBranch(leaves[170]!, proved.branch, 170))).toBe(proved.root);
    // A run stops where devnet's chain has its first gap (256).
    const gap = (await client.request("blockchain.block.headers", [250, 10])) as { count: number };
    expect(gap.count).toBe(6);
  });
});

describe("devnet ElectrumX: protocol 1.6", () => {
  it("block.headers lists the headers (block_headers_array), after count and max", async () => {
    const socket = connect(port, "127.0.0.1");
    await once(socket, "connect");
    const lines: string[] = [];
    let buffer = "";
    socket.on("data", (chunk: Buffer) => {
      buffer += chunk.toString("utf8");
      let end = buffer.indexOf("\n");
      while (end >= 0) {
        lines.push(buffer.slice(0, end));
        buffer = buffer.slice(end + 1);
        end = buffer.indexOf("\n");
      }
    });
    socket.write(
      `${JSON.stringify({ jsonrpc: "2.0", id: 0, method: "server.version", params: ["t", "1.6"] })}\n` +
        `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "blockchain.block.headers", params: [169, 2, 200] })}\n`,
    );
    while (lines.length < 2) await once(socket, "data");
    socket.destroy();
    const result = JSON.parse(lines[1]!).result as Record<string, unknown>;
    expect(Object.keys(result)).toEqual(["count", "max", "headers", "branch", "root"]);
    expect(result.headers).toEqual([headerHex(169), headerHex(170)]);
  });
});

describe("devnet ElectrumX: transactions", () => {
  it("transaction.get_merkle: Hal's transaction at 170, branch folding to the header's root", async () => {
    const proof = (await client.request("blockchain.transaction.get_merkle", [HAL_TXID, 170])) as {
      block_height: number;
      merkle: string[];
      pos: number;
    };
    expect(Object.keys(proof)).toEqual(["block_height", "merkle", "pos"]);
    expect(proof.block_height).toBe(170);
    expect(proof.pos).toBe(1);
    const header = chain.byHeight.get(170)!.block.headerBytes;
    const merkleRoot = header.slice(36, 68);
    expect(toHex(foldBranch(fromHexReversed(HAL_TXID), proof.merkle, proof.pos))).toBe(
      toHex(merkleRoot),
    );
    expect(chain.byHeight.get(170)!.block.hash).toBe(BLOCK_170);
    await expect(
      client.request("blockchain.transaction.get_merkle", [HAL_TXID, 171]),
    ).rejects.toMatchObject({ code: 1, message: `tx ${HAL_TXID} not in block at height 171` });
  });

  it("transaction.id_from_pos: the block's transaction list, with or without a branch", async () => {
    const txids = chain.byHeight.get(277647)!.block.transactions.map((tx) => tx.txid);
    expect(await client.request("blockchain.transaction.id_from_pos", [277647, 5])).toBe(txids[5]);
    const withMerkle = (await client.request("blockchain.transaction.id_from_pos", [
      277647,
      212,
      true,
    ])) as { tx_hash: string; merkle: string[] };
    expect(withMerkle.tx_hash).toBe(txids[212]);
    const root = chain.byHeight.get(277647)!.block.headerBytes.slice(36, 68);
    expect(toHex(foldBranch(fromHexReversed(txids[212]!), withMerkle.merkle, 212))).toBe(
      toHex(root),
    );
    await expect(
      client.request("blockchain.transaction.id_from_pos", [277647, 213]),
    ).rejects.toMatchObject({
      code: 1,
      message: "no tx at position 213 in block at height 277,647",
    });
    await expect(
      client.request("blockchain.transaction.id_from_pos", [170, 0, "yes"]),
    ).rejects.toMatchObject({ code: 1, message: '"merkle" must be a boolean' });
  });
});

describe("devnet ElectrumX: script hashes", () => {
  it("get_history, listunspent and get_balance of Satoshi's block-9 key", async () => {
    const history = (await client.blockchainScripthash_getHistory(SATOSHI)) as {
      height: number;
    }[];
    expect(history.map((e) => e.height)).toEqual([9, 170, 181, 182, 183, 248]);
    // Each change output was spent by the next payment; 248's 18 BTC change is what is left.
    expect(await client.blockchainScripthash_listunspent(SATOSHI)).toEqual([
      {
        tx_hash: "828ef3b079f9c23829c56fe86e85b4a69d9e06e5b54ea597eef5fb3ffef509fe",
        tx_pos: 1,
        height: 248,
        value: 1_800_000_000,
      },
    ]);
    expect(await client.blockchainScripthash_getBalance(SATOSHI)).toEqual({
      confirmed: 1_800_000_000,
      unconfirmed: 0,
    });
    expect(await client.blockchainScripthash_getBalance(HAL)).toEqual({
      confirmed: 1_000_000_000,
      unconfirmed: 0,
    });
    expect(await client.blockchainScripthash_getMempool(SATOSHI)).toEqual([]);
  });

  it("a script nobody paid has an empty history and a zero balance; a bad hash is refused", async () => {
    const nobody = "00".repeat(32);
    expect(await client.blockchainScripthash_listunspent(nobody)).toEqual([]);
    expect(await client.blockchainScripthash_getBalance(nobody)).toEqual({
      confirmed: 0,
      unconfirmed: 0,
    });
    await expect(client.blockchainScripthash_getBalance("abc")).rejects.toMatchObject({
      code: 1,
      message: "abc is not a valid script hash",
    });
  });

  it("the mempool: each mempool transaction is in get_mempool of the scripts it pays", async () => {
    const { electrumScripthash } = await import("../../src/bitcoin/scripthash.ts");
    const tx = [...chain.mempool.values()][0]!;
    const hash = electrumScripthash(tx.outputs[0]!.scriptPubKey);
    const mempool = (await client.blockchainScripthash_getMempool(hash)) as {
      tx_hash: string;
      height: number;
    }[];
    expect(mempool.map((e) => e.tx_hash)).toContain(tx.txid);
    expect(mempool.every((e) => e.height === 0 || e.height === -1)).toBe(true);
    const balance = (await client.blockchainScripthash_getBalance(hash)) as {
      unconfirmed: number;
    };
    expect(balance.unconfirmed).toBeGreaterThan(0);
  });
});

describe("devnet ElectrumX: fees", () => {
  it("mempool.get_fee_histogram: [fee rate, vsize] pairs, fee rates falling", async () => {
    const histogram = (await client.request("mempool.get_fee_histogram", [])) as [number, number][];
    expect(Array.isArray(histogram)).toBe(true);
    for (let i = 1; i < histogram.length; i++) {
      expect(histogram[i]![0]).toBeLessThan(histogram[i - 1]![0]);
    }
  });

  it("the histogram's compression: tranches over the bin size, the bin growing 10% each", () => {
    const h = new Map([
      [50, 60_000],
      [40, 50_000],
      [30, 20_000],
      [20, 300_000],
      [10, 5_000],
    ]);
    // 50+40 pass 100,000 at 40; 30 alone is under the next bin, and 20 is a lump over twice the
    // bin (110,000), so 30 is closed first; then 20 on its own; 10 is left over and not reported.
    expect(compressHistogram(h, 100_000)).toEqual([
      [40, 110_000],
      [30, 20_000],
      [20, 300_000],
    ]);
    expect(compressHistogram(new Map([[5, 99_999]]), 100_000)).toEqual([]);
  });

  it("estimatefee: the daemon's estimatesmartfee feerate (BTC/kB), as ElectrumX relays it", async () => {
    const core = coreCaller(devnet);
    const smart = (await core("estimatesmartfee", [6])).result as { feerate?: unknown };
    const expected = smart.feerate === undefined ? -1 : Number(String(smart.feerate));
    expect(await client.request("blockchain.estimatefee", [6])).toBe(expected);
    // ElectrumX buckets targets as Core's estimator does: 13 is asked as 12.
    const twelve = (await core("estimatesmartfee", [12])).result as { feerate?: unknown };
    expect(await client.request("blockchain.estimatefee", [13])).toBe(
      twelve.feerate === undefined ? -1 : Number(String(twelve.feerate)),
    );
  });

  it("relayfee: the daemon's getnetworkinfo relayfee", async () => {
    const info = (await coreCaller(devnet)("getnetworkinfo")).result as { relayfee: unknown };
    expect(await client.request("blockchain.relayfee", [])).toBe(Number(String(info.relayfee)));
  });

  it("estimatefee refuses an unknown mode in ElectrumX's words", async () => {
    await expect(client.request("blockchain.estimatefee", [2, "FAST"])).rejects.toMatchObject({
      code: 1,
      message: "unknown estimatefee mode: FAST",
    });
  });
});
