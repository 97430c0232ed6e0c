import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { priceOf } from "../../src/billing/pricing/prices.ts";
import { sha256d } from "../../src/bitcoin/hash.ts";
import { fromHex, fromHexReversed, toHex, toHexReversed } from "../../src/bitcoin/hex.ts";
import { computeMerkleRoot } from "../../src/bitcoin/merkle.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { pyFloatRepr } from "../../src/protocol/electrum/python-text.ts";
import { auditRecords } from "../support/audit.ts";
import { coreCaller } from "../support/devnet-core.ts";
import {
  electrumConnected,
  HAL_TXID,
  post,
  rpc,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";
import { foldBranch } from "./merkle-fold.ts";

/**
 * Electrum 1.4's read API through the gateway's Electrum route, over real sockets, against
 * devnet's ElectrumX: each answer passed through with real values from the real blocks, each
 * call charged its configured price (X-Credits-Charged and the audit record).
 */

const chain = loadDevnetChain();
/** Satoshi's block-9 key: 248's 18 BTC change is all devnet holds unspent. */
const SATOSHI = "8131e31b9b2da6ddb7cca24c537869c94320f19e80fc2ee72c9558e5a9296978";

let t: TestGateway;
let token: string;
let accountId: number;
beforeAll(async () => {
  t = await startTestGateway();
  ({ token, id: accountId } = await t.account("meth", 1_000_000));
  await electrumConnected(t);
});
afterAll(() => t.close());

const url = (network = "mainnet") => `${t.url}/electrum/${network}/${token}`;

interface Answer {
  result?: unknown;
  error?: { code: number; message: string };
}

/** One call; checks the charge against the configured price and the audit record. */
async function call(method: string, params: unknown[] | Record<string, unknown>) {
  const res = await post(url(), rpc(method, params));
  expect(res.status).toBe(200);
  const price = priceOf(t.gateway.app.config, method, "mainnet")!;
  // Priced from config: every method but the session's own server.* costs something.
  expect(price > 0 || method.startsWith("server.")).toBe(true);
  expect(res.headers.get("x-credits-charged")).toBe(String(price));
  const rows = await auditRecords(
    t.gateway.app.db,
    { accountId: accountId },
    ["method", "charged_cc"],
    { newestFirst: true, limit: 1 },
  );
  expect(rows[0]).toEqual({ method, charged_cc: price });
  return { ...(res.json as Answer), text: res.text };
}

/** A refusal made by the gateway before anything is forwarded: not charged. */
async function refused(method: string, params: unknown[] | Record<string, unknown>) {
  const before = t.devnet.electrum.get("mainnet")!.stats.methods[method] ?? 0;
  const res = await post(url(), rpc(method, params));
  expect(res.status).toBe(200);
  expect(res.headers.get("x-credits-charged")).toBe("0");
  expect(t.devnet.electrum.get("mainnet")!.stats.methods[method] ?? 0).toBe(before);
  return (res.json as Answer).error;
}

describe("electrum route: server methods", () => {
  it("server.version: the server's software, the version agreed with this client", async () => {
    const { result } = await call("server.version", ["wallet", "1.4"]);
    expect(result).toEqual(["ElectrumX 1.18.0 (blockgate devnet)", "1.4"]);
    // The route serves protocol 1.4 (its connections agree 1.4): a range is met at 1.4, and a
    // client that will speak only 1.6 is refused as ElectrumX refuses it.
    expect((await call("server.version", ["w", ["1.4", "1.6"]])).result).toEqual([
      "ElectrumX 1.18.0 (blockgate devnet)",
      "1.4",
    ]);
    expect(await refused("server.version", ["w", "1.6"])).toEqual({
      code: 1,
      message: "unsupported protocol version: 1.6",
    });
    // No version asked: ElectrumX's minimum.
    expect((await call("server.version", [])).result).toEqual([
      "ElectrumX 1.18.0 (blockgate devnet)",
      "1.4",
    ]);
    expect(await refused("server.version", ["w", "2.0"])).toEqual({
      code: 1,
      message: "unsupported protocol version: 2.0",
    });
  });

  it("server.features, server.banner, server.ping", async () => {
    // The gateway's own features, not the server's (whose protocol_max is 1.6): the range the
    // route serves, and no hosts, as this gateway has no TLS listener.
    expect((await call("server.features", [])).result).toEqual({
      hosts: {},
      pruning: null,
      server_version: "ElectrumX 1.18.0 (blockgate devnet)",
      protocol_min: "1.4",
      protocol_max: "1.4",
      genesis_hash: "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f",
      hash_function: "sha256",
      services: [],
    });
    // Each network is its own chain: testnet's features name testnet's genesis.
    const testnet = await post(url("testnet"), rpc("server.features", []));
    expect((testnet.json as Answer).result).toMatchObject({
      genesis_hash: "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943",
    });
    expect(testnet.headers.get("x-credits-charged")).toBe(
      String(priceOf(t.gateway.app.config, "server.features", "testnet")),
    );
    expect((await call("server.banner", [])).result).toMatch(/^You are connected to an ElectrumX/);
    expect((await call("server.ping", [])).result).toBeNull();
  });
});

describe("electrum route: headers", () => {
  it("blockchain.headers.subscribe: the tip, as a call", async () => {
    const { result } = await call("blockchain.headers.subscribe", []);
    expect(result).toEqual({
      hex: toHex(chain.tip.block.headerBytes),
      height: chain.tip.height,
    });
  });

  it("blockchain.block.header: the header, and with cp_height a proof that checks", async () => {
    expect((await call("blockchain.block.header", [170])).result).toBe(
      toHex(chain.byHeight.get(170)!.block.headerBytes),
    );
    const proof = (await call("blockchain.block.header", { height: 170, cp_height: 255 }))
      .result as { header: string; branch: string[]; root: string };
    const leaves = Array.from({ length: 256 }, (_, h) => chain.byHeight.get(h)!.block.hashBytes);
    expect(proof.root).toBe(toHexReversed(computeMerkleRoot(leaves)));
    expect(toHexReversed(foldBranch(sha256d(fromHex(proof.header)), proof.branch, 170))).toBe(
      proof.root,
    );
    // devnet's sparse chain: the server's own refusal, passed through and charged.
    expect((await call("blockchain.block.header", [170, 300])).error).toEqual({
      code: 1,
      message: "devnet holds a sparse chain: no header at height 256, so no proof to cp_height 300",
    });
    expect(await refused("blockchain.block.header", ["x"])).toEqual({
      code: 1,
      message: "x should be a non-negative integer",
    });
  });

  it("blockchain.block.headers: count, hex and max", async () => {
    const { result } = await call("blockchain.block.headers", [0, 2]);
    expect(result).toEqual({
      hex:
        toHex(chain.byHeight.get(0)!.block.headerBytes) +
        toHex(chain.byHeight.get(1)!.block.headerBytes),
      count: 2,
      max: 2016,
    });
    expect(await refused("blockchain.block.headers", [0])).toEqual({
      code: -32602,
      message: '1 argument passed to method "blockchain.block.headers" but it requires 2',
    });
  });
});

describe("electrum route: transactions", () => {
  it("get_merkle of Hal's transaction folds to block 170's merkle root", async () => {
    const { result } = await call("blockchain.transaction.get_merkle", [HAL_TXID, 170]);
    const proof = result as { block_height: number; merkle: string[]; pos: number };
    expect(proof.block_height).toBe(170);
    expect(proof.pos).toBe(1);
    const root = chain.byHeight.get(170)!.block.headerBytes.slice(36, 68);
    expect(toHex(foldBranch(fromHexReversed(HAL_TXID), proof.merkle, 1))).toBe(toHex(root));
    expect(await refused("blockchain.transaction.get_merkle", ["zz", 170])).toEqual({
      code: 1,
      message: "zz should be a transaction hash",
    });
  });

  it("id_from_pos: the block's transaction list", async () => {
    expect((await call("blockchain.transaction.id_from_pos", [170, 1])).result).toBe(HAL_TXID);
    const withMerkle = (await call("blockchain.transaction.id_from_pos", [170, 1, true]))
      .result as { tx_hash: string; merkle: string[] };
    expect(withMerkle.tx_hash).toBe(HAL_TXID);
    expect(withMerkle.merkle).toEqual([chain.byHeight.get(170)!.block.transactions[0]!.txid]);
    expect(await refused("blockchain.transaction.id_from_pos", [170, -1])).toEqual({
      code: 1,
      message: "-1 should be a non-negative integer",
    });
  });

  it("broadcast: forwarded once; the daemon's refusal as ElectrumX words it, charged", async () => {
    const stats = t.devnet.electrum.get("mainnet")!.stats.methods;
    const sent = stats["blockchain.transaction.broadcast"] ?? 0;
    const { error } = await call("blockchain.transaction.broadcast", ["00"]);
    expect(stats["blockchain.transaction.broadcast"]).toBe(sent + 1);
    expect(error?.code).toBe(1);
    expect(error?.message).toMatch(
      /^the transaction was rejected by network rules\.\n\n.*\n\[00\]$/s,
    );
  });
});

describe("electrum route: script hashes and fees", () => {
  it("get_balance, listunspent, get_history, get_mempool of a real key", async () => {
    expect((await call("blockchain.scripthash.get_balance", [SATOSHI])).result).toEqual({
      confirmed: 1_800_000_000,
      unconfirmed: 0,
    });
    expect((await call("blockchain.scripthash.listunspent", [SATOSHI])).result).toEqual([
      {
        tx_hash: "828ef3b079f9c23829c56fe86e85b4a69d9e06e5b54ea597eef5fb3ffef509fe",
        tx_pos: 1,
        height: 248,
        value: 1_800_000_000,
      },
    ]);
    const history = (await call("blockchain.scripthash.get_history", [SATOSHI])).result as {
      tx_hash: string;
      height: number;
    }[];
    expect(history.map((e) => e.height)).toEqual([9, 170, 181, 182, 183, 248]);
    expect(history[1]!.tx_hash).toBe(HAL_TXID);
    expect((await call("blockchain.scripthash.get_mempool", [SATOSHI])).result).toEqual([]);
    expect(await refused("blockchain.scripthash.get_balance", ["nope"])).toEqual({
      code: 1,
      message: "nope is not a valid script hash",
    });
  });

  it("estimatefee, relayfee, get_fee_histogram are forwarded and charged", async () => {
    // The server's floats pass through as it wrote them (ElectrumX: Python's repr of Core's value).
    const core = coreCaller(t.devnet);
    const smart = (await core("estimatesmartfee", [6])).result as { feerate?: unknown };
    const estimate = await call("blockchain.estimatefee", [6]);
    expect(estimate.result).toBe(smart.feerate === undefined ? -1 : Number(String(smart.feerate)));
    const info = (await core("getnetworkinfo")).result as { relayfee: unknown };
    const relay = await call("blockchain.relayfee", []);
    expect(relay.result).toBe(Number(String(info.relayfee)));
    expect(relay.text).toContain(`"result":${pyFloatRepr(Number(String(info.relayfee)))}`);
    expect((await call("mempool.get_fee_histogram", [])).result).toEqual([]);
    expect(await refused("blockchain.estimatefee", [6, "FAST"])).toEqual({
      code: 1,
      message: "unknown estimatefee mode: FAST",
    });
  });

  it("a batch: each call checked, priced and answered on its own", async () => {
    const res = await post(url(), [
      rpc("blockchain.block.header", [0], 1),
      rpc("blockchain.scripthash.get_balance", [SATOSHI], 2),
      rpc("blockchain.scripthash.subscribe", [SATOSHI], 3),
      rpc("blockchain.transaction.id_from_pos", [0, 0], 4),
    ]);
    const answers = res.json as (Answer & { id: number })[];
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4]);
    expect(answers[0]!.result).toBe(toHex(chain.byHeight.get(0)!.block.headerBytes));
    // Over HTTP a subscription is answered with the script's status and nothing more is sent.
    expect(answers[2]!.result).toMatch(/^[0-9a-f]{64}$/);
    expect(answers[3]!.result).toBe(chain.byHeight.get(0)!.block.transactions[0]!.txid);
    const price = (m: string) => priceOf(t.gateway.app.config, m, "mainnet")!;
    expect(res.headers.get("x-credits-charged")).toBe(
      String(
        price("blockchain.block.header") +
          price("blockchain.scripthash.get_balance") +
          price("blockchain.scripthash.subscribe") +
          price("blockchain.transaction.id_from_pos"),
      ),
    );
  });

  it("the ledger balances after all of it", async () => {
    await expectLedgerOk(t.gateway.app.db, accountId);
  });
});
