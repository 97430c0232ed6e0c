// The unified API's whole answers about deep transactions (src/routes/gateway/answers/,
// src/cache/gateway-answers.ts): `transactions(txids:)` (or `transaction(txid:)`) selecting only
// what the transaction's bytes and its block say, every transaction mined at least
// cache.minConfirmations deep, is served again without Yoga and without Core — byte for byte but
// the balance, charged alike, flagged in the audit row — until a reorganisation replaces one of
// its blocks. What moves (confirmations, status, the mempool, a shallow block, the account) is
// executed every time. The transaction cache is off in these gateways, so each look-up Core is
// spared shows at devnet's Core, where the calls are counted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WatchedCall } from "../../src/devnet/bitcoin-core/http.ts";
import { DevnetChain, loadDevnetChain } from "../../src/devnet/chain.ts";
import { auditRecords } from "../support/audit.ts";
import { someAddress } from "../support/devnet-core.ts";
import { askDevnetCore, startTestGateway, type TestGateway } from "../support/harness.ts";

const full = loadDevnetChain();
const txidsAt = (height: number) =>
  full.byHeight.get(height)!.block.transactions.map((tx) => tx.txid);
/** Deep: hundreds of thousands of blocks under devnet's tip. */
const DEEP = txidsAt(277647).slice(1, 51);
/** In the tip block: one confirmation. */
const SHALLOW = txidsAt(full.tip.height)[1]!;
const IN_MEMPOOL = [...full.mempool.keys()][0]!;
/** bench/graphql.ts's shape (b). */
const SHAPE_B =
  "query ($txids: [TxId!]!) { transactions(txids: $txids) { txid size vsize weight version locktime } }";

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: {
    data?: unknown;
    errors?: { message: string; extensions?: Record<string, unknown> }[];
    extensions?: { cost?: Record<string, unknown> };
  };
}

function harness(get: () => TestGateway) {
  const ask = async (
    token: string,
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<Answer & { core: WatchedCall[] }> => {
    const t = get();
    const core: WatchedCall[] = [];
    const stop = t.devnet.cores.get("mainnet")!.watch((seen) => core.push(...seen));
    try {
      const res = await fetch(`${t.url}/gateway/mainnet/${token}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
      });
      const text = await res.text();
      // Kept in the background once answered: a test's next request finds it kept.
      await t.gateway.app.gatewayAnswers.idle();
      return { status: res.status, headers: res.headers, text, json: JSON.parse(text), core };
    } finally {
      stop();
    }
  };
  const audit = async (accountId: number) => {
    const rows = await auditRecords(get().gateway.app.db, { accountId: accountId }, [
      "method",
      "outcome",
      "charged_cc",
      "estimated_cc",
      "complexity",
      "cache_hits",
    ]);
    return rows;
  };
  return { ask, audit };
}

const lookups = (calls: WatchedCall[]) =>
  calls.filter((c) => c.method === "getrawtransaction").length;
/** The verbosity each getrawtransaction was asked at, as its text. */
const verbosities = (calls: WatchedCall[]) =>
  calls
    .filter((c) => c.method === "getrawtransaction")
    .map((c) => String((c.params as unknown[])[1]));
const charge = (answer: Answer) => Number(answer.headers.get("x-credits-charged"));

describe("whole answers about deep transactions", () => {
  let t: TestGateway;
  beforeAll(async () => {
    // No transaction cache (every look-up reaches Core unless the whole answer is kept), and the
    // tip trusted for a minute, so a hit need not ask Core for it.
    t = await startTestGateway("pglite", {
      networks: ["mainnet"],
      cache: { bytesMax: 0, tipTtlMs: 60_000 },
    });
  });
  afterAll(() => t?.close());
  const { ask, audit } = harness(() => t);

  it("fifty deep transactions: asked once, their hex; asked again, verbose and kept; the third answer makes no call to Core, byte for byte but the balance, charged alike and flagged", async () => {
    const who = await t.account("fifty", 1_000_000);
    const entries = t.gateway.app.gatewayAnswers.stats.entries;
    const once = await ask(who.token, SHAPE_B, { txids: DEEP });
    const first = await ask(who.token, SHAPE_B, { txids: DEEP });
    const second = await ask(who.token, SHAPE_B, { txids: DEEP });
    expect(first.status).toBe(200);
    expect(once.json.errors).toBeUndefined();
    expect(first.json.errors).toBeUndefined();
    // Nothing the selection reads needs the block: the node is asked for the hex alone, which
    // cannot be kept (its block unknown); asked again, it is asked verbose, to be kept.
    expect(verbosities(once.core)).toEqual(DEEP.map(() => "0"));
    expect(verbosities(first.core)).toEqual(DEEP.map(() => "1"));
    expect(once.text).toBe(
      first.text.replace(/"balance":\d+/, `"balance":${1_000_000 - charge(once)}`),
    );
    expect(second.core).toEqual([]);
    expect(t.gateway.app.gatewayAnswers.stats.entries).toBe(entries + 1);
    const txs = (first.json.data as { transactions: { txid: string }[] }).transactions;
    expect(txs.map((tx) => tx.txid)).toEqual(DEEP);
    const charged = charge(first);
    expect(charged).toBeGreaterThan(0);
    expect(charge(once)).toBe(charged);
    expect(second.headers.get("x-credits-charged")).toBe(String(charged));
    expect(second.headers.get("x-credits-estimated")).toBe(
      first.headers.get("x-credits-estimated"),
    );
    expect(second.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(Number(second.headers.get("x-credits-balance"))).toBe(1_000_000 - 3 * charged);
    const balance = (text: string) => text.replace(/"balance":\d+/, '"balance":B');
    expect(balance(second.text)).toBe(balance(first.text));
    expect(second.json.extensions?.cost).toMatchObject({
      charged,
      balance: 1_000_000 - 3 * charged,
      calls: [{ method: "getrawtransaction", count: 50, subtotal: charged }],
    });
    const audited = await audit(who.id);
    expect(audited.map((r) => [r.method, r.outcome, r.cache_hits])).toEqual([
      ["graphql", "ok", 0],
      ["graphql", "ok", 0],
      ["graphql", "ok", 50],
    ]);
    expect(audited[2]).toMatchObject({
      charged_cc: audited[1]!.charged_cc,
      estimated_cc: audited[1]!.estimated_cc,
      complexity: null,
    });
    expect(audited[1]!.charged_cc).toBe(charged);
  });

  it("an answer served by a node plan (no Yoga) is kept as Yoga's is: a new body, asked again, is served from the cache, byte for byte but the balance, charged alike and flagged", async () => {
    const who = await t.account("planned-kept", 1_000_000);
    const plans = (await t.gateway.app.unifiedApi()).plans;
    const query = `query Kept($txids: [TxId!]!) { transactions(txids: $txids) { txid size confirmations } }`;
    // Two other bodies teach the gateway the document (a node plan, from its second execution).
    const learnt = plans.stats.learnt;
    await ask(who.token, query, { txids: DEEP.slice(0, 2) });
    await ask(who.token, query, { txids: DEEP.slice(2, 4) });
    expect(plans.stats.learnt).toBe(learnt + 1);
    const txids = DEEP.slice(10, 30);
    const served = plans.stats.served;
    const hits = t.gateway.app.gatewayAnswers.stats.hits;
    const planned = await ask(who.token, query, { txids });
    expect(plans.stats.served).toBe(served + 1);
    expect(planned.json.errors).toBeUndefined();
    // confirmations reads the block: asked verbose, so the answer can be kept.
    expect(verbosities(planned.core)).toEqual(txids.map(() => "1"));
    const again = await ask(who.token, query, { txids });
    expect(again.core).toEqual([]);
    expect(plans.stats.served).toBe(served + 1);
    expect(t.gateway.app.gatewayAnswers.stats.hits).toBe(hits + 1);
    const balance = (text: string) => text.replace(/"balance":\d+/, '"balance":B');
    expect(balance(again.text)).toBe(balance(planned.text));
    expect(charge(again)).toBe(charge(planned));
    expect(charge(planned)).toBeGreaterThan(0);
    const audited = (await audit(who.id)).slice(-2);
    expect(audited.map((r) => [r.outcome, r.charged_cc, r.cache_hits])).toEqual([
      ["ok", charge(planned), 0],
      ["ok", charge(planned), txids.length],
    ]);
  });

  it("the verbose fixed fields through fragments and aliases, and transaction(txid:), are kept", async () => {
    const who = await t.account("fixed", 1_000_000);
    const queries: [string, Record<string, unknown> | undefined][] = [
      [
        `query ($ids: [TxId!]!) { __typename txs: transactions(txids: $ids) { ...Fixed
           ... on Transaction { id: txid inputs { txid vout coinbase scriptSig { asm hex } witness sequence } }
           outputs { n value { btc sats } scriptPubKey { asm desc hex address type __typename } } } }
         fragment Fixed on Transaction { txid hash version size vsize weight locktime blockhash time blocktime hex }`,
        { ids: DEEP.slice(0, 5) },
      ],
      [`{ t: transaction(txid: "${DEEP[7]}") { txid blockhash blocktime } }`, undefined],
    ];
    // Selecting nothing that reads the block, one not asked before is asked for its hex first,
    // which is not kept; the next is asked verbose and kept.
    const fresh = txidsAt(540107)[3]!;
    const hexOnly = `query ($s: Boolean!) { transactions(txids: ["${fresh}", "${fresh}"]) { txid hex @include(if: $s) } }`;
    const once = await ask(who.token, hexOnly, { s: false });
    expect(verbosities(once.core)).toEqual(["0"]);
    queries.push([hexOnly, { s: false }]);
    for (const [query, variables] of queries) {
      const first = await ask(who.token, query, variables);
      const second = await ask(who.token, query, variables);
      expect(first.json.errors, query).toBeUndefined();
      expect(lookups(first.core), query).toBeGreaterThan(0);
      expect(second.core, query).toEqual([]);
      expect(second.json.data).toEqual(first.json.data);
    }
  });

  it("looked up on Electrum (source: ELECTRUM): kept alike, the second answer asks no Electrum server", async () => {
    const who = await t.account("electrum", 1_000_000);
    const electrum = t.devnet.electrum.get("mainnet")!.stats;
    const query = `{ transactions(txids: ["${DEEP[30]}", "${DEEP[31]}"], source: ELECTRUM) { txid blockhash hex } }`;
    const before = electrum.methods["blockchain.transaction.get"] ?? 0;
    const first = await ask(who.token, query);
    const between = electrum.methods["blockchain.transaction.get"] ?? 0;
    const second = await ask(who.token, query);
    expect(first.json.errors).toBeUndefined();
    expect(between - before).toBe(2);
    expect((electrum.methods["blockchain.transaction.get"] ?? 0) - between).toBe(0);
    expect(second.core).toEqual([]);
    expect(second.json.data).toEqual(first.json.data);
    expect(second.json.extensions?.cost).toMatchObject({
      calls: [{ method: "blockchain.transaction.get", count: 2 }],
    });
    expect((await audit(who.id)).map((r) => r.cache_hits)).toEqual([0, 2]);
  });

  it("a moving field is never kept: status, fee, prevouts, block, merkleProof, the account or the chain beside it, behind a fragment or a directive", async () => {
    const who = await t.account("moving", 10_000_000);
    const one = `transactions(txids: ["${DEEP[10]}"])`;
    const cases: [string, Record<string, unknown>?][] = [
      [`{ ${one} { txid status } }`],
      [`{ ${one} { txid fee { sats } } }`],
      [`{ ${one} { inputs { prevout { height } } } }`],
      [`{ ${one} { txid block { height } } }`],
      [`{ ${one} { txid merkleProof { hex } } }`],
      [`{ ${one} { txid } account { available } }`],
      [`{ ${one} { txid } chain { height } }`],
      [`{ ${one} { ...F } } fragment F on Transaction { txid status }`],
      [`{ ${one} { ... on Transaction { status } } }`],
      [`query ($s: Boolean!) { ${one} { txid status @skip(if: $s) } }`, { s: true }],
      [`{ t: transaction(txid: "${DEEP[10]}") { status } }`],
    ];
    const entries = t.gateway.app.gatewayAnswers.stats.entries;
    for (const [query, variables] of cases) {
      const first = await ask(who.token, query, variables);
      const second = await ask(who.token, query, variables);
      expect(first.json.errors, query).toBeUndefined();
      expect(lookups(first.core), query).toBe(1);
      expect(lookups(second.core), query).toBe(1);
    }
    expect(t.gateway.app.gatewayAnswers.stats.entries).toBe(entries);
    // Executed every time, so answered as the chain is now.
    expect((await audit(who.id)).every((r) => r.cache_hits === 0)).toBe(true);
  });

  it("what is not mined deep is never kept: the tip's block, the mempool, a txid not found, one shallow among deep ones", async () => {
    const who = await t.account("shallow", 10_000_000);
    const notFound = `${"00".repeat(31)}01`;
    const cases: string[][] = [[SHALLOW], [IN_MEMPOOL], [notFound], [DEEP[20]!, SHALLOW]];
    const entries = t.gateway.app.gatewayAnswers.stats.entries;
    for (const txids of cases) {
      const first = await ask(who.token, SHAPE_B, { txids });
      const second = await ask(who.token, SHAPE_B, { txids });
      expect(lookups(first.core), txids.join()).toBe(txids.length);
      expect(lookups(second.core), txids.join()).toBe(txids.length);
    }
    expect(t.gateway.app.gatewayAnswers.stats.entries).toBe(entries);
  });
});

describe("a reorganisation evicts a kept answer about transactions", () => {
  let t: TestGateway;
  beforeAll(async () => {
    // A chain of this file's own, so invalidating a block touches no other test's devnet; the tip
    // trusted for 0 ms, so each hit re-checks the chain and no test waits.
    const chain = new DevnetChain();
    for (const height of full.heights()) chain.addBlock(full.byHeight.get(height)!.block, height);
    t = await startTestGateway(
      "pglite",
      { networks: ["mainnet"], cache: { bytesMax: 0, tipTtlMs: 0 } },
      undefined,
      { chain },
    );
  });
  afterAll(() => t?.close());
  const { ask, audit } = harness(() => t);

  it("invalidating the block of one of its transactions: executed again, not kept while the block is out, kept again once it is back", async () => {
    const who = await t.account("reorg", 1_000_000);
    const low = txidsAt(540107)[1]!;
    const txids = [DEEP[0]!, low];
    const once = await ask(who.token, SHAPE_B, { txids });
    const kept = await ask(who.token, SHAPE_B, { txids });
    const hit = await ask(who.token, SHAPE_B, { txids });
    expect(verbosities(once.core)).toEqual(["0", "0"]);
    expect(verbosities(kept.core)).toEqual(["1", "1"]);
    expect(lookups(hit.core)).toBe(0);
    expect(t.gateway.app.gatewayAnswers.stats.entries).toBe(1);
    const hash = full.byHeight.get(540107)!.block.hash;
    await askDevnetCore(t.devnet, "invalidateblock", [hash]);
    try {
      const during = [
        await ask(who.token, SHAPE_B, { txids }),
        await ask(who.token, SHAPE_B, { txids }),
      ];
      expect(t.logs.join("")).toMatch(/reorganisation: cached block evicted/);
      expect(t.gateway.app.gatewayAnswers.stats.entries).toBe(0);
      // Back in the mempool: answered by Core each time, never kept.
      for (const answer of during) expect(lookups(answer.core)).toBe(2);
    } finally {
      await askDevnetCore(t.devnet, "reconsiderblock", [hash]);
    }
    const again = [
      await ask(who.token, SHAPE_B, { txids }),
      await ask(who.token, SHAPE_B, { txids }),
    ];
    expect(again.map((a) => lookups(a.core))).toEqual([2, 0]);
    expect(again[1]!.text.replace(/"balance":\d+/, "")).toBe(
      kept.text.replace(/"balance":\d+/, ""),
    );
    expect((await audit(who.id)).map((r) => r.cache_hits)).toEqual([0, 0, 2, 0, 0, 0, 2]);
  });

  it("confirmations are kept as the heights they count from: a hit after a new block says one more, asking Core nothing", async () => {
    const who = await t.account("confirmations", 1_000_000);
    const txids = [DEEP[5]!, txidsAt(540107)[2]!];
    // The field aliased, twice, and behind a fragment: each occurrence is written in.
    const query =
      "query ($txids: [TxId!]!) { transactions(txids: $txids) { txid confirmations c: confirmations ...F } } fragment F on Transaction { blocktime }";
    type Row = { txid: string; confirmations: number; c: number; blocktime: number };
    const rows = (a: Answer) => (a.json.data as { transactions: Row[] }).transactions;
    const first = await ask(who.token, query, { txids });
    const hit = await ask(who.token, query, { txids });
    expect([lookups(first.core), lookups(hit.core)]).toEqual([2, 0]);
    expect(hit.json.data).toEqual(first.json.data);
    const mined = (await askDevnetCore(t.devnet, "generatetoaddress", [
      1,
      someAddress("mainnet"),
    ])) as string;
    const [block] = (JSON.parse(mined) as { result: string[] }).result;
    try {
      const after = await ask(who.token, query, { txids });
      expect(lookups(after.core)).toBe(0);
      expect(rows(after)).toEqual(
        rows(first).map((r) => ({ ...r, confirmations: r.confirmations + 1, c: r.c + 1 })),
      );
      // What Core itself says now: the same numbers.
      for (const r of rows(after)) {
        const core = JSON.parse(
          (await askDevnetCore(t.devnet, "getrawtransaction", [r.txid, true])) as string,
        ) as { result: { confirmations: number } };
        expect(r.confirmations).toBe(core.result.confirmations);
      }
    } finally {
      await askDevnetCore(t.devnet, "invalidateblock", [block]);
    }
    expect((await audit(who.id)).map((r) => r.cache_hits)).toEqual([0, 2, 2]);
  });
});
