import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { revokeToken } from "../../src/access/tokens.ts";
import { encodeSegwitAddress } from "../../src/bitcoin/address.ts";
import type { NetworkName } from "../../src/config/schema.ts";
import { blockActivity, scanBlock } from "../../src/events/block-activity.ts";
import { addressActivityOf } from "../../src/events/sources.ts";
import { parseJson } from "../../src/protocol/json/json.ts";
import { auditRecords } from "../support/audit.ts";
import { someAddress } from "../support/devnet-core.ts";
import {
  askDevnetCore,
  BLOCK_170,
  HAL_TXID,
  startTestGateway,
  type TestGateway,
} from "../support/harness.ts";
import { expectLedgerOk } from "../support/ledger.ts";
import {
  firstOverSocket,
  graphqlWsClient,
  type Sse,
  subscribeSse,
} from "../support/subscribers.ts";

let t: TestGateway;
beforeAll(async () => {
  t = await startTestGateway("pglite", {
    networks: ["mainnet", "regtest"],
    events: { pollMs: 60_000 },
  });
  await t.gateway.app.events.pollNow(); // the first look: tips known, nothing announced
});
afterAll(() => t.close());

async function mine(n: number, network: NetworkName = "regtest"): Promise<string[]> {
  const text = await askDevnetCore(
    t.devnet,
    "generatetoaddress",
    [n, someAddress(network)],
    network,
  );
  const hashes = (JSON.parse(text) as { result: string[] }).result;
  await t.gateway.app.events.pollNow();
  return hashes;
}

/** A subscription over Server-Sent Events on this file's gateway's regtest route. */
function subscribe(token: string, query: string): Promise<Sse> {
  return subscribeSse({ url: t.url, events: t.gateway.app.events }, token, query);
}

async function audit(accountId: number) {
  const rows = await auditRecords(t.gateway.app.db, { accountId: accountId }, [
    "method",
    "charged_cc",
    "outcome",
  ]);
  return rows;
}

const NEW_BLOCK = "subscription { newBlock { kind height hash previousHash } }";

describe("subscription newBlock over Server-Sent Events, charged per event", () => {
  it("delivers each block as it is announced, each charged pricing.events.newBlock", async () => {
    const { id, token } = await t.account("sse-subscriber", 1_000);
    const sse = await subscribe(token, NEW_BLOCK);
    const [first, second] = await mine(2);
    const a = (await sse.next()) as {
      event: string;
      data: { data: { newBlock: { hash: string; kind: string } } };
    };
    const b = (await sse.next()) as typeof a;
    expect([a.data.data.newBlock, b.data.data.newBlock].map((n) => [n.kind, n.hash])).toEqual([
      ["CONNECTED", first],
      ["CONNECTED", second],
    ]);
    sse.close();
    // One audit record per event, at regtest's price, and nothing for opening the stream.
    // Written as each event was settled, before it was delivered.
    expect(await audit(id)).toEqual([
      { method: "newBlock", charged_cc: 5, outcome: "ok" },
      { method: "newBlock", charged_cc: 5, outcome: "ok" },
    ]);
    // The client left: its stream stops listening, and the next block is charged to nobody.
    await vi.waitFor(() => expect(t.gateway.app.events.subscribers()).toBe(0));
    await mine(1);
    expect(await audit(id)).toHaveLength(2);
  });

  it("ends with one final INSUFFICIENT_CREDITS error when the balance no longer covers an event", async () => {
    const { id, token } = await t.account("sse-short", 5);
    const sse = await subscribe(token, NEW_BLOCK);
    await mine(2);
    const paid = (await sse.next()) as { data: { data: { newBlock: unknown } } };
    expect(paid.data.data.newBlock).not.toBeNull();
    const last = (await sse.next()) as { data: { errors: { extensions: { code: string } }[] } };
    expect(last.data.errors[0]!.extensions.code).toBe("INSUFFICIENT_CREDITS");
    // Then the stream completes.
    let rest = await sse.next();
    while (rest && rest.event !== "complete") rest = await sse.next();
    const rows = await audit(id);
    expect(rows.filter((r) => r.outcome === "ok")).toEqual([
      { method: "newBlock", charged_cc: 5, outcome: "ok" },
    ]);
    expect(rows.some((r) => r.outcome === "insufficient_credits")).toBe(true);
  });

  it("two subscriptions of one account share its balance exactly: the one it cannot pay for ends", async () => {
    // 15 CC: three events at 5. Both get the first block (charged together); the second block's
    // two deliveries cost 10 together, which it has not: one is paid, the other refused.
    const { id, token } = await t.account("sse-shared-balance", 15);
    const a = await subscribe(token, NEW_BLOCK);
    const b = await subscribe(token, NEW_BLOCK);
    await mine(1);
    for (const sse of [a, b]) {
      const paid = (await sse.next()) as { data: { data: { newBlock: unknown } } };
      expect(paid.data.data.newBlock).not.toBeNull();
    }
    await mine(1);
    const second = await Promise.all(
      [a, b].map(async (sse) => (await sse.next()) as { data: Record<string, unknown> }),
    );
    const refused = second.filter((m) => Array.isArray(m.data.errors));
    expect(refused).toHaveLength(1);
    expect(refused[0]!.data).toMatchObject({
      errors: [{ extensions: { code: "INSUFFICIENT_CREDITS" } }],
    });
    const rows = await audit(id);
    expect(rows.filter((r) => r.outcome === "ok")).toHaveLength(3);
    expect(rows.filter((r) => r.outcome === "insufficient_credits")).toEqual([
      { method: "newBlock", charged_cc: 0, outcome: "insufficient_credits" },
    ]);
    a.close();
    b.close();
    await expectLedgerOk(t.gateway.app.db, id);
    await vi.waitFor(() => expect(t.gateway.app.events.subscribers()).toBe(0));
  });

  it("a revoked token's subscription ends at once with UNAUTHENTICATED", async () => {
    const { token } = await t.account("sse-revoked", 1_000);
    const sse = await subscribe(token, NEW_BLOCK);
    const started = Date.now();
    await revokeToken(t.gateway.app.db, { token });
    const last = (await sse.next()) as { data: { errors: { extensions: { code: string } }[] } };
    expect(last.data.errors[0]!.extensions.code).toBe("UNAUTHENTICATED");
    expect(Date.now() - started).toBeLessThan(1_000);
    await vi.waitFor(() => expect(t.gateway.app.events.subscribers()).toBe(0));
  });
});

describe("subscription transactionConfirmations", () => {
  it("tells each new count as blocks come, and completes at `until`", async () => {
    const { id, token } = await t.account("sse-confirmations", 1_000);
    // A transaction the node has, one confirmation deep: a coinbase devnet just mined.
    const [hash] = await mine(1);
    const block = JSON.parse(await askDevnetCore(t.devnet, "getblock", [hash, 1], "regtest")) as {
      result: { tx: string[] };
    };
    const txid = block.result.tx[0]!;
    const sse = await subscribe(
      token,
      `subscription { transactionConfirmations(txid: "${txid}", until: 3) { txid confirmations blockHash } }`,
    );
    await mine(1);
    const second = (await sse.next()) as {
      data: { data: { transactionConfirmations: { confirmations: number; blockHash: string } } };
    };
    expect(second.data.data.transactionConfirmations).toMatchObject({
      confirmations: 2,
      blockHash: hash,
    });
    await mine(1);
    const third = (await sse.next()) as typeof second;
    expect(third.data.data.transactionConfirmations.confirmations).toBe(3);
    // Reached: the stream completes, and was charged two deliveries.
    let rest = await sse.next();
    while (rest && rest.event !== "complete") rest = await sse.next();
    expect(await audit(id)).toEqual([
      { method: "transactionConfirmations", charged_cc: 5, outcome: "ok" },
      { method: "transactionConfirmations", charged_cc: 5, outcome: "ok" },
    ]);
  });
});

describe("subscription mempoolFees", () => {
  it("gives Core's estimates after a block, charged per delivery", async () => {
    const { id, token } = await t.account("sse-fees", 1_000);
    const sse = await subscribe(
      token,
      "subscription { mempoolFees(targets: [1, 6]) { height estimates { target satPerVbyte } } }",
    );
    const [hash] = await mine(1);
    const got = (await sse.next()) as {
      data: { data: { mempoolFees: { height: number; estimates: { target: number }[] } } };
    };
    const height = Number(
      JSON.parse(await askDevnetCore(t.devnet, "getblockcount", [], "regtest")).result,
    );
    expect(got.data.data.mempoolFees.height).toBe(height);
    expect(got.data.data.mempoolFees.estimates.map((e) => e.target)).toEqual([1, 6]);
    expect(hash).toHaveLength(64);
    sse.close();
    expect(await audit(id)).toEqual([{ method: "mempoolFees", charged_cc: 5, outcome: "ok" }]);
    await vi.waitFor(() => expect(t.gateway.app.events.subscribers()).toBe(0));
  });
});

describe("subscription addressActivity", () => {
  const ACTIVITY = `subscription { addressActivity(address: "${someAddress("regtest")}") {
    address kind height hash transactions { txid received { sats } sent { sats } } } }`;
  type Activity = {
    data: {
      data: {
        addressActivity: {
          kind: string;
          hash: string;
          transactions: { txid: string; received: { sats: number }; sent: { sats: number } }[];
        };
      };
    };
  };

  it("two subscribers: each block paying the address delivered to both from one scan, charged per delivery", async () => {
    const one = await t.account("activity-1", 1_000);
    const two = await t.account("activity-2", 1_000);
    const a = await subscribe(one.token, ACTIVITY);
    const b = await subscribe(two.token, ACTIVITY);
    const [hash] = await mine(1); // its coinbase pays someAddress
    const block = JSON.parse(await askDevnetCore(t.devnet, "getblock", [hash, 2], "regtest")) as {
      result: { tx: { txid: string; vout: { value: number }[] }[] };
    };
    const coinbase = block.result.tx[0]!;
    for (const sse of [a, b]) {
      const got = ((await sse.next()) as Activity).data.data.addressActivity;
      expect(got).toMatchObject({ kind: "CONNECTED", hash });
      expect(got.transactions).toEqual([
        {
          txid: coinbase.txid,
          received: { sats: Math.round(coinbase.vout[0]!.value * 1e8) },
          sent: { sats: 0 },
        },
      ]);
      sse.close();
    }
    // The scan is memoised by network and block: every subscriber's look-up gets the same one.
    const pool = t.gateway.app.nodes.get("regtest")!;
    expect(blockActivity(pool, "regtest", hash!)).toBe(blockActivity(pool, "regtest", hash!));
    // The same block taken off by a reorganisation: its activity is announced as disconnected;
    // another address's source makes nothing of it.
    const height = Number(
      JSON.parse(await askDevnetCore(t.devnet, "getblockcount", [], "regtest")).result,
    );
    const gone = {
      id: "reorg",
      network: "regtest" as const,
      kind: "disconnected" as const,
      height,
      hash: hash!,
      previousHash: null,
      time: 0,
    };
    const source = addressActivityOf(pool, someAddress("regtest"), "regtest")!;
    expect(await source.translate(gone)).toMatchObject({
      kind: "disconnected",
      transactions: [{ txid: coinbase.txid, sent: 0n }],
    });
    const elsewhere = encodeSegwitAddress("bcrt", 0, new Uint8Array(20).fill(8));
    expect(await addressActivityOf(pool, elsewhere, "regtest")!.translate(gone)).toBeNull();
    expect(addressActivityOf(pool, someAddress("mainnet"), "regtest")).toBeNull();
    for (const { id } of [one, two]) {
      expect(await audit(id)).toEqual([
        { method: "addressActivity", charged_cc: 5, outcome: "ok" },
      ]);
    }
    await vi.waitFor(() => expect(t.gateway.app.events.subscribers()).toBe(0));
  });

  it("a spend is seen through the inputs' prevouts (getblock verbosity 3): block 170", async () => {
    const text = await askDevnetCore(t.devnet, "getblock", [BLOCK_170, 3], "mainnet");
    const block = parseJson(text) as unknown as { result: { tx: Parameters<typeof scanBlock>[0] } };
    const byScript = scanBlock(block.result.tx);
    // Block 9's coinbase output (Satoshi's P2PK) pays 10 BTC to Hal and 40 back to itself.
    const satoshi = [...byScript.values()].find((list) =>
      list.some((x) => x.txid === HAL_TXID && x.sent > 0n),
    );
    expect(satoshi?.find((x) => x.txid === HAL_TXID)).toEqual({
      txid: HAL_TXID,
      received: 4_000_000_000n,
      sent: 5_000_000_000n,
    });
  });
});

describe("the unified API over WebSocket (graphql-ws)", () => {
  const wsClient = (token: string) => graphqlWsClient(t, token);

  it("newBlock: each block delivered as it is announced, each charged as over SSE", async () => {
    const { id, token } = await t.account("ws-subscriber", 1_000);
    // The client connects and subscribes on its first read.
    const socket = await firstOverSocket<{ newBlock: { hash: string; kind: string } }>(
      { url: t.url, events: t.gateway.app.events },
      token,
      NEW_BLOCK,
    );
    const [hash] = await mine(1);
    expect((await socket.first)?.newBlock).toMatchObject({ kind: "CONNECTED", hash });
    await socket.dispose();
    expect(await audit(id)).toEqual([{ method: "newBlock", charged_cc: 5, outcome: "ok" }]);
  });

  it("mempoolFees refuses targets outside 1 – 1008 before anything is followed or charged", async () => {
    const { id, token } = await t.account("ws-bad-targets", 1_000);
    const client = wsClient(token);
    const outcome = await new Promise<unknown>((resolve) => {
      client.subscribe(
        { query: "subscription { mempoolFees(targets: [0]) { height } }" },
        { next: resolve, error: resolve, complete: () => {} },
      );
    });
    await client.dispose();
    expect(JSON.stringify(outcome)).toContain("targets: 1 to 25 of 1 – 1008 blocks");
    expect(await audit(id)).toEqual([]);
  });

  it("addressActivity refuses an address of another network before anything is charged", async () => {
    const { id, token } = await t.account("ws-bad-address", 1_000);
    const client = wsClient(token);
    const outcome = await new Promise<unknown>((resolve) => {
      client.subscribe(
        {
          query: `subscription { addressActivity(address: "${someAddress("mainnet")}") { hash } }`,
        },
        { next: resolve, error: resolve, complete: () => {} },
      );
    });
    await client.dispose();
    // INVALID_PARAMS, in GraphQL's words.
    expect(JSON.stringify(outcome)).toContain("BAD_USER_INPUT");
    expect(JSON.stringify(outcome)).toContain("not an address of regtest");
    expect(await audit(id)).toEqual([]);
  });

  it("a query over the socket is metered as over HTTP: one audit record, the table's prices", async () => {
    const { id, token } = await t.account("ws-query", 1_000);
    const client = wsClient(token);
    const result = await new Promise<unknown>((resolve, reject) => {
      client.subscribe(
        { query: "{ chain { name height } }" },
        {
          next: resolve,
          error: reject,
          complete: () => {},
        },
      );
    });
    await client.dispose();
    expect(result).toMatchObject({ data: { chain: { name: "regtest" } } });
    // getblockchaininfo on regtest: 20 CC.
    expect(await audit(id)).toEqual([{ method: "graphql", charged_cc: 20, outcome: "ok" }]);
  });
});
