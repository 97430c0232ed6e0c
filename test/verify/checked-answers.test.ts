// Answers checked against the verified chain, on devnet's regtest with devnet's liar in front of
// its Core: a confirmed transaction's block proven (gettxoutproof) and its confirmations counted
// from the verified tip; X-Blockgate-Verified says how far each answer was checked, and
// X-Blockgate-Require-Verified refuses the rest, not charged. A wrong block claim is never served.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Devnet, startDevnet } from "../../src/devnet/devnet.ts";
import { type Liar, startLiar } from "../../src/devnet/liar/liar.ts";
import { auditByOutcome } from "../support/audit.ts";
import { coreCaller } from "../support/devnet-core.ts";
import { gql } from "../support/graphql.ts";
import { electrumConnected, rpc, startTestGateway, type TestGateway } from "../support/harness.ts";

const HEIGHT = 12;
let devnet: Devnet;
let liar: Liar;
/** Its regtest node: the liar and devnet's honest Core, in that order. */
let beside: TestGateway;
/** Its regtest node: the liar alone. */
let alone: TestGateway;
let coinbase: (height: number) => Promise<string>;

async function gatewayOn(nodes: unknown[], electrum: unknown[]): Promise<TestGateway> {
  const t = await startTestGateway(
    "pglite",
    {
      networks: ["regtest"],
      cache: { bytesMax: 0, blockBytesMax: 0 },
      upstreams: {
        node: { regtest: nodes as ["devnet"] },
        electrum: { regtest: electrum as ["devnet"] },
      },
      failover: { hedge: { enabled: false } },
      verification: { enabled: true, pollMs: 60_000 },
    },
    undefined,
    { devnet },
  );
  await electrumConnected(t, "regtest");
  await t.gateway.app.verifiedChains.get("regtest")!.synced(5_000);
  return t;
}

beforeAll(async () => {
  devnet = await startDevnet(["regtest"]);
  devnet.producers.get("regtest")!.mine(HEIGHT);
  liar = await startLiar(devnet, "regtest");
  const lyingElectrum = { url: liar.electrum.url };
  beside = await gatewayOn([{ ...liar.core }, "devnet"], [lyingElectrum, "devnet"]);
  alone = await gatewayOn([{ ...liar.core }], [lyingElectrum]);
  const call = coreCaller(devnet);
  coinbase = async (height) => {
    const hash = (await call("getblockhash", [height], "regtest")).result as string;
    const block = (await call("getblock", [hash, 1], "regtest")).result as { tx: string[] };
    return block.tx[0]!;
  };
});

afterAll(async () => {
  await beside?.close();
  await alone?.close();
  await liar?.close();
  await devnet?.close();
});

async function ask(t: TestGateway, token: string, body: unknown, require = false, route = "node") {
  const res = await fetch(`${t.url}/${route}/regtest/${token}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(require ? { "x-blockgate-require-verified": "1" } : {}),
    },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown> | Record<string, unknown>[];
  return { status: res.status, verified: res.headers.get("x-blockgate-verified"), json };
}

describe("an honest answer", () => {
  it("is proven in its block, its confirmations from the verified tip: chain", async () => {
    liar.set({});
    const { token } = await beside.account("honest", 100_000);
    const txid = await coinbase(5);
    const verbose = await ask(beside, token, rpc("getrawtransaction", [txid, true]));
    expect(verbose.verified).toBe("chain");
    expect(verbose.json).toMatchObject({ result: { txid, confirmations: HEIGHT - 5 + 1 } });
    const raw = await ask(beside, token, rpc("getrawtransaction", [txid, false]));
    expect(raw.verified).toBe("bytes");
    const fee = await ask(beside, token, rpc("getblockcount", []));
    expect(fee.verified).toBe("unchecked");
    const both = await ask(beside, token, [
      rpc("getrawtransaction", [txid, true], 1),
      rpc("getblockcount", [], 2),
    ]);
    expect(both.verified).toBe("partial");
  });

  it("with verification required: served when checked, refused (not charged) when not", async () => {
    liar.set({});
    const { id, token } = await beside.account("strict", 100_000);
    const txid = await coinbase(6);
    const ok = await ask(beside, token, rpc("getrawtransaction", [txid, true]), true);
    expect([ok.status, ok.verified]).toEqual([200, "chain"]);
    const refused = await ask(beside, token, rpc("getblockcount", [], 7), true);
    expect(refused).toMatchObject({
      status: 422,
      json: { error: { code: -32024, data: { code: "UNVERIFIED" } } },
    });
    const rows = await auditByOutcome(beside.gateway.app.db, { accountId: id });
    expect(rows).toEqual([
      { outcome: "ok", n: 1, charged: expect.any(Number) },
      { outcome: "rejected", n: 1, charged: 0 },
    ]);
  });
});

describe("a lying node", () => {
  it("tampered bytes: served from the honest node, charged once", async () => {
    liar.set({ tamperTx: "all" });
    const { id, token } = await beside.account("tampered", 100_000);
    for (const height of [2, 3, 4, 7]) {
      const txid = await coinbase(height);
      const res = await ask(beside, token, rpc("getrawtransaction", [txid, true], height));
      expect([res.status, res.verified]).toEqual([200, "chain"]);
      expect(res.json).toMatchObject({ result: { txid } });
    }
    const rows = await auditByOutcome(beside.gateway.app.db, { accountId: id });
    expect(rows).toEqual([{ outcome: "ok", n: 4, charged: expect.any(Number) }]);
    // The operator finds the liar named in /readyz, the honest node beside it not.
    const ready = (await (await fetch(`${beside.url}/readyz`)).json()) as {
      upstreams: { node: { regtest: { members: { name: string; unverified?: unknown }[] } } };
    };
    const members = ready.upstreams.node.regtest.members;
    const named = members.filter((m) => m.unverified !== undefined);
    expect(named).toHaveLength(1);
    expect(named[0]!.unverified).toMatchObject({
      answers: expect.any(Number),
      last: expect.stringMatching(/its bytes hash to|do not decode/),
    });
    expect(members.length).toBe(2);
  });

  it("tampered bytes, alone: an upstream error, not charged", async () => {
    liar.set({ tamperTx: "all" });
    const { id, token } = await alone.account("tampered-alone", 100_000);
    const res = await ask(alone, token, rpc("getrawtransaction", [await coinbase(8), false]));
    expect(res).toMatchObject({
      status: 502,
      json: { error: { code: -32022, data: { code: "UPSTREAM_BAD_RESPONSE" } } },
    });
    const rows = await auditByOutcome(alone.gateway.app.db, { accountId: id });
    expect(rows.every((r) => Number(r.charged) === 0)).toBe(true);
  });

  it("a wrong block claim is never served, nor charged", async () => {
    liar.set({ wrongBlock: "all" });
    const { id, token } = await alone.account("wrong-block", 100_000);
    const res = await ask(alone, token, rpc("getrawtransaction", [await coinbase(9), true]));
    expect(res).toMatchObject({
      status: 502,
      json: { error: { code: -32022, message: "the full node's block claim failed verification" } },
    });
    const rows = await auditByOutcome(alone.gateway.app.db, { accountId: id });
    expect(rows.every((r) => Number(r.charged) === 0)).toBe(true);
  });
});

describe("the Electrum route", () => {
  const get = (txid: string, verbose: boolean, id = 1) =>
    rpc("blockchain.transaction.get", [txid, verbose], id);

  it("an honest verbose answer is proven by a merkle branch: chain", async () => {
    liar.set({});
    const { token } = await beside.account("electrum-honest", 100_000);
    const txid = await coinbase(4);
    const verbose = await ask(beside, token, get(txid, true), false, "electrum");
    expect(verbose.verified).toBe("chain");
    expect(verbose.json).toMatchObject({ result: { txid, confirmations: HEIGHT - 4 + 1 } });
    const merkle = await ask(
      beside,
      token,
      rpc("blockchain.transaction.get_merkle", [txid, 4]),
      false,
      "electrum",
    );
    expect(merkle.verified).toBe("chain");
    const header = await ask(beside, token, rpc("blockchain.block.header", [3]), false, "electrum");
    expect(header.verified).toBe("chain");
  });

  it("tampered bytes beside an honest server: served from it", async () => {
    liar.set({ tamperTx: "all" });
    const { token } = await beside.account("electrum-tampered", 100_000);
    for (const height of [2, 3, 5]) {
      const txid = await coinbase(height);
      const res = await ask(beside, token, get(txid, false, height), false, "electrum");
      expect([res.status, res.verified]).toEqual([200, "bytes"]);
    }
  });

  it("alone: tampered bytes and a wrong block are refused, not charged", async () => {
    const { id, token } = await alone.account("electrum-liar", 100_000);
    liar.set({ tamperTx: "all" });
    const tampered = await ask(alone, token, get(await coinbase(10), false), false, "electrum");
    liar.set({ wrongBlock: "all" });
    const wrong = await ask(alone, token, get(await coinbase(11), true), false, "electrum");
    for (const res of [tampered, wrong]) {
      expect(res.json).toMatchObject({ error: { data: { code: "UPSTREAM_BAD_RESPONSE" } } });
    }
    const rows = await auditByOutcome(alone.gateway.app.db, { accountId: id });
    expect(rows.every((r) => Number(r.charged) === 0)).toBe(true);
  });
});

describe("the unified API", () => {
  const QUERY = `query ($txid: TxId!, $source: TransactionSource) {
    transaction(txid: $txid, source: $source) {
      txid confirmations
      verification { status checked proof { blockhash height position branch header } }
    }
  }`;

  it("says how far each transaction was checked, with its merkle branch and header", async () => {
    liar.set({});
    const { token } = await beside.account("unified", 100_000);
    const url = `${beside.url}/gateway/regtest/${token}`;
    const txid = await coinbase(7);
    for (const source of ["FULL_NODE", "ELECTRUM"]) {
      const res = await gql<{ transaction: Record<string, unknown> }>(url, QUERY, { txid, source });
      expect(res.headers.get("x-blockgate-verified")).toBe("chain");
      const chain = beside.gateway.app.verifiedChains.get("regtest")!;
      const header = chain.atHeight(7)!;
      expect(res.body.data?.transaction).toEqual({
        txid,
        confirmations: HEIGHT - 7 + 1,
        verification: {
          status: "CHAIN",
          checked: ["TXID", "BLOCK", "CONFIRMATIONS"],
          // A coinbase alone in its block: its txid is the merkle root, the branch empty.
          proof: {
            blockhash: header.hash,
            height: 7,
            position: 0,
            branch: [],
            header: header.header,
          },
        },
      });
    }
  });

  it("with verification required, a fee estimate beside a transaction is refused, not charged", async () => {
    liar.set({});
    const { id, token } = await beside.account("unified-strict", 100_000);
    const url = `${beside.url}/gateway/regtest/${token}`;
    const txid = await coinbase(8);
    const strict = { "x-blockgate-require-verified": "1" };
    const ok = await gql(url, QUERY, { txid }, strict);
    expect([ok.headers.get("x-blockgate-verified"), ok.body.errors]).toEqual(["chain", undefined]);
    const mixed = await gql(
      url,
      `query ($txid: TxId!) { transaction(txid: $txid) { txid } feeEstimates(targets: [2]) { target } }`,
      { txid },
      strict,
    );
    expect(mixed.body.errors?.[0]?.extensions?.code).toBe("UNVERIFIED");
    expect(mixed.headers.get("x-blockgate-verified")).toBe("partial");
    const rows = await auditByOutcome(beside.gateway.app.db, { accountId: id });
    expect(rows.find((r) => r.outcome === "rejected")).toMatchObject({ n: 1, charged: 0 });
  });
});
