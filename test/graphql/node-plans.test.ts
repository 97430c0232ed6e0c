// Node plans (src/routes/gateway/query-plans/node-plan.ts): a document that asks transactions by txid and
// fields their bytes or position say is learnt from its second execution and then answered
// without Yoga, through the request's own loaders. Every planned answer is compared with Yoga's
// answer to the same request (the body with `extensions`, which is never planned), byte for byte
// but the balance; each is charged and audited as Yoga's is, and Core is asked what Yoga asks.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { latestAudit } from "../../src/billing/usage/usage.ts";
import { DevnetChain, loadDevnetChain } from "../../src/devnet/chain.ts";
import { someAddress } from "../support/devnet-core.ts";
import { askDevnetCore, startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectWholeLedgerOk } from "../support/ledger.ts";

const chain = loadDevnetChain();
const BLOCK = chain.byHeight.get(540107)!.block;
const TXIDS = BLOCK.transactions.slice(1, 7).map((tx) => tx.txid);
const MISSING = "ab".repeat(32);
const COINBASE = BLOCK.transactions[0]!.txid;
/** Devnet has this block's undo data: fee and prevouts (verbosity 2). */
const WITH_UNDO = chain.byHeight
  .get(277647)!
  .block.transactions.slice(1, 9)
  .map((tx) => tx.txid);

const NESTED = `query Nested($ids: [TxId!]!) {
  transactions(txids: $ids) {
    txid
    inputs { index coinbase txid vout scriptSig { asm hex } witness sequence __typename }
    outputs { n value { sats btc } scriptPubKey { asm hex desc type address } }
  }
}`;
const SPENT = `query Spent($ids: [TxId!]!) {
  transactions(txids: $ids) {
    txid fee { sats btc }
    inputs { prevout { generated height value { btc } scriptPubKey { address type } } }
  }
}`;

const MANY = `query Many($ids: [TxId!]!) {
  transactions(txids: $ids) {
    txid id: hash version size vsize weight locktime hex status confirmations blockhash blocktime
    time __typename
  }
}`;
const TWO_ROOTS = `query Two($one: TxId!, $ids: [TxId!]!) {
  first: transaction(txid: $one) { txid size status }
  rest: transactions(txids: $ids, source: FULL_NODE) { weight txid }
}`;

let t: TestGateway;
beforeAll(async () => {
  // Whole answers off, so that no request here is answered from that cache; the transaction cache
  // on (the default), as it serves planned and executed requests alike.
  t = await startTestGateway("pglite", { networks: ["mainnet"], cache: { gatewayBytesMax: 0 } });
});
afterAll(() => t?.close());

const plans = async () => (await t.gateway.app.unifiedApi()).plans;
const coreRequests = () => t.devnet.cores.get("mainnet")!.stats.httpRequests;

interface Sent {
  status: number;
  text: string;
  headers: Headers;
}

async function post(url: string, body: Record<string, unknown>): Promise<Sent> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** Yoga's answer to the same request: a body with `extensions` is never planned. */
const byYoga = (url: string, body: Record<string, unknown>) =>
  post(url, { ...body, extensions: {} });
const withoutBalance = (text: string) => text.replace(/"balance":\d+/g, '"balance":0');

/** Sends `body` until its plan is learnt: from its second execution. */
async function learn(url: string, body: Record<string, unknown>, on = t): Promise<void> {
  const stats = async () => (await on.gateway.app.unifiedApi()).plans.stats;
  const before = (await stats()).learnt;
  expect((await post(url, body)).status).toBe(200);
  expect((await stats()).learnt).toBe(before);
  expect((await post(url, body)).status).toBe(200);
  expect((await stats()).learnt).toBe(before + 1);
}

/** What `send` made Core do: HTTP requests to it. */
async function counted<T>(send: () => Promise<T>): Promise<{ value: T; core: number }> {
  const before = coreRequests();
  const value = await send();
  return { value, core: coreRequests() - before };
}

describe("a document that asks transactions by txid alone", () => {
  it("is learnt, then answered without Yoga: Yoga's bytes, one trip to Core, the same charge and record", async () => {
    const { token, id } = await t.account("node-planned", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    const body = { query: MANY, variables: { ids: TXIDS }, operationName: "Many" };
    await learn(url, body);
    const served = (await plans()).stats.served;
    const planned = await counted(() => post(url, body));
    expect((await plans()).stats.served).toBe(served + 1);
    // Position fields are read: Core is asked verbose, once (or the transaction cache answers).
    expect(planned.core).toBeLessThanOrEqual(1);
    const yoga = await byYoga(url, body);
    expect(planned.value.status).toBe(200);
    expect(withoutBalance(planned.value.text)).toBe(withoutBalance(yoga.text));
    expect(planned.value.headers.get("content-type")).toBe(yoga.headers.get("content-type"));
    const answer = JSON.parse(planned.value.text);
    expect(answer.data.transactions.map((x: { txid: string }) => x.txid)).toEqual(TXIDS);
    expect(answer.data.transactions[0]).toMatchObject({
      blockhash: BLOCK.hash,
      status: "CONFIRMED",
      __typename: "Transaction",
    });
    const { cost } = answer.extensions;
    expect(cost.charged).toBeGreaterThan(0);
    expect(planned.value.headers.get("x-credits-charged")).toBe(String(cost.charged));
    const [yogaRecord, plannedRecord] = await latestAudit(t.gateway.app.db, id, 2);
    for (const record of [plannedRecord, yogaRecord]) {
      expect(record).toMatchObject({ method: "graphql", outcome: "ok", charged_cc: cost.charged });
    }
    await expectWholeLedgerOk(t.gateway.app.db);
  });

  it("takes txids written as literals: one plan for the shape, Yoga's bytes for each", async () => {
    const { token } = await t.account("node-literal", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    const literal = (a: string, b: string) => ({
      query: `{ pair: transactions(txids: ["${a}", "${b}"]) { txid size weight } }`,
    });
    const before = (await plans()).stats.learnt;
    expect((await post(url, literal(TXIDS[0]!, TXIDS[1]!))).status).toBe(200);
    expect((await post(url, literal(TXIDS[2]!, TXIDS[3]!))).status).toBe(200);
    expect((await plans()).stats.learnt).toBe(before + 1);
    for (const [a, b] of [
      [TXIDS[4]!, TXIDS[5]!],
      [COINBASE, MISSING], // a miss: Yoga's error for it, not the plan's
    ] as const) {
      const served = (await plans()).stats.served;
      const planned = await post(url, literal(a, b));
      const yoga = await byYoga(url, literal(a, b));
      expect(withoutBalance(planned.text)).toBe(withoutBalance(yoga.text));
      if (b !== MISSING) expect((await plans()).stats.served).toBe(served + 1);
    }
  });

  it("takes other variables and several root fields: priced per transaction, as Yoga prices them", async () => {
    const { token } = await t.account("node-two-roots", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    await learn(url, { query: TWO_ROOTS, variables: { one: TXIDS[0], ids: TXIDS.slice(1, 3) } });
    for (const variables of [
      { one: TXIDS[5], ids: TXIDS },
      { one: TXIDS[2], ids: [] },
      { one: TXIDS[1], ids: [TXIDS[3], TXIDS[3]] }, // a txid twice: written twice, asked once
    ]) {
      const body = { query: TWO_ROOTS, variables };
      const served = (await plans()).stats.served;
      const planned = await post(url, body);
      expect((await plans()).stats.served).toBe(served + 1);
      const yoga = await byYoga(url, body);
      expect(withoutBalance(planned.text)).toBe(withoutBalance(yoga.text));
      const cost = JSON.parse(planned.text).extensions.cost;
      expect(cost.charged).toBe(JSON.parse(yoga.text).extensions.cost.charged);
    }
  });

  it("asks Core for the hex alone when no field reads the block, as Yoga does", async () => {
    const quiet = await startTestGateway("pglite", {
      networks: ["mainnet"],
      cache: { bytesMax: 0, gatewayBytesMax: 0 },
    });
    try {
      const { token } = await quiet.account("node-hex", 1_000_000);
      const url = `${quiet.url}/gateway/mainnet/${token}`;
      const body = {
        query: "query ($ids: [TxId!]!) { transactions(txids: $ids) { txid weight } }",
        variables: { ids: TXIDS },
      };
      const seen: string[] = [];
      const stop = quiet.devnet.cores.get("mainnet")!.watch((calls) => {
        for (const c of calls) seen.push(String((c.params as unknown[])[1]));
      });
      try {
        for (let i = 0; i < 3; i++) expect((await post(url, body)).status).toBe(200);
      } finally {
        stop();
      }
      expect((await quiet.gateway.app.unifiedApi()).plans.stats.served).toBe(1);
      expect(seen).toEqual([...TXIDS, ...TXIDS, ...TXIDS].map(() => "0"));
    } finally {
      await quiet.close();
    }
  });
});

describe("fields at any depth that read their parent alone", () => {
  it("inputs, outputs, their scripts and amounts, a coinbase's nulls and witnesses: learnt, then served, Yoga's bytes", async () => {
    const { token } = await t.account("node-nested", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    await learn(url, { query: NESTED, variables: { ids: TXIDS.slice(0, 2) } });
    const body = { query: NESTED, variables: { ids: [COINBASE, ...TXIDS] } };
    const served = (await plans()).stats.served;
    const planned = await post(url, body);
    expect((await plans()).stats.served).toBe(served + 1);
    const yoga = await byYoga(url, body);
    expect(withoutBalance(planned.text)).toBe(withoutBalance(yoga.text));
    const txs = JSON.parse(planned.text).data.transactions;
    expect(txs[0].inputs[0]).toMatchObject({ txid: null, vout: null, scriptSig: null });
    expect(txs[0].inputs[0].coinbase).toMatch(/^[0-9a-f]+$/);
    // Block 540107 has segwit spends: some witness is written, as Yoga writes it.
    const witnesses = txs.flatMap((tx: { inputs: { witness: string[] }[] }) =>
      tx.inputs.flatMap((i) => i.witness),
    );
    expect(witnesses.length).toBeGreaterThan(0);
    expect(JSON.parse(planned.text).extensions.cost.charged).toBe(
      JSON.parse(yoga.text).extensions.cost.charged,
    );
  });

  it("fee and the outputs inputs spend (the node's undo data): asked at verbosity 2, as Yoga asks", async () => {
    const { token } = await t.account("node-spent", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    await learn(url, { query: SPENT, variables: { ids: WITH_UNDO.slice(0, 2) } });
    const body = { query: SPENT, variables: { ids: WITH_UNDO.slice(2) } };
    const served = (await plans()).stats.served;
    const seen: string[] = [];
    const stop = t.devnet.cores.get("mainnet")!.watch((calls) => {
      for (const c of calls) {
        if (c.method === "getrawtransaction") seen.push(String((c.params as unknown[])[1]));
      }
    });
    let planned: Sent;
    try {
      planned = await post(url, body);
    } finally {
      stop();
    }
    expect((await plans()).stats.served).toBe(served + 1);
    expect(seen).toEqual(WITH_UNDO.slice(2).map(() => "2"));
    const yoga = await byYoga(url, body);
    expect(withoutBalance(planned.text)).toBe(withoutBalance(yoga.text));
    const tx = JSON.parse(planned.text).data.transactions[0];
    expect(tx.fee.sats).toBeGreaterThan(0);
    expect(tx.inputs[0].prevout.value.btc).toMatch(/^\d+\.\d{8}$/);
  });
});

describe("a transaction written once, asked again", () => {
  let own: TestGateway;
  beforeAll(async () => {
    // A chain of its own (blocks are mined and invalidated here); every look-up reaches Core, so
    // each answer says where the transaction is now, while its decoded bytes are shared.
    const mutable = new DevnetChain();
    for (const height of chain.heights())
      mutable.addBlock(chain.byHeight.get(height)!.block, height);
    own = await startTestGateway(
      "pglite",
      { networks: ["mainnet"], cache: { bytesMax: 0, gatewayBytesMax: 0, tipTtlMs: 0 } },
      undefined,
      { chain: mutable },
    );
  });
  afterAll(() => own?.close());

  it("is written anew when its confirmations or its block change: a new block, the block invalidated, then reconsidered", async () => {
    const { token } = await own.account("node-rewritten", 1_000_000);
    const url = `${own.url}/gateway/mainnet/${token}`;
    const query = `query Where($ids: [TxId!]!) {
      transactions(txids: $ids) { txid confirmations blockhash blocktime status outputs { n value { sats } } }
    }`;
    await learn(url, { query, variables: { ids: TXIDS.slice(0, 1) } }, own);
    const body = { query, variables: { ids: TXIDS.slice(1, 4) } };
    const served = (await own.gateway.app.unifiedApi()).plans.stats.served;
    const answers: unknown[] = [];
    const plannedAsYoga = async () => {
      const planned = await post(url, body);
      expect(withoutBalance(planned.text)).toBe(withoutBalance((await byYoga(url, body)).text));
      answers.push(JSON.parse(planned.text).data.transactions[0]);
    };
    await plannedAsYoga();
    await plannedAsYoga();
    await askDevnetCore(own.devnet, "generatetoaddress", [1, someAddress("mainnet")]);
    await plannedAsYoga();
    await askDevnetCore(own.devnet, "invalidateblock", [BLOCK.hash]);
    try {
      await plannedAsYoga();
    } finally {
      await askDevnetCore(own.devnet, "reconsiderblock", [BLOCK.hash]);
    }
    await plannedAsYoga();
    expect((await own.gateway.app.unifiedApi()).plans.stats.served).toBe(served + 5);
    const [first, same, mined, invalidated, back] = answers as {
      confirmations: number | null;
      status: string;
      blockhash: string | null;
    }[];
    expect(same).toEqual(first);
    expect(mined!.confirmations).toBe(first!.confirmations! + 1);
    expect(invalidated).toMatchObject({ status: "MEMPOOL", confirmations: null, blockhash: null });
    expect(back).toEqual(mined);
  });
});

describe("what a plan cannot answer", () => {
  it("a missing transaction: Yoga answers under the same reservation, without asking Core again", async () => {
    const { token, id } = await t.account("node-missing", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    const query = "query ($ids: [TxId!]!) { transactions(txids: $ids) { txid size } }";
    await learn(url, { query, variables: { ids: TXIDS.slice(0, 2) } });
    // Fresh txids, so neither cache holds them: the trip is seen.
    const body = { query, variables: { ids: [MISSING, TXIDS[4]] } };
    const executed = (await plans()).stats.executed;
    const planned = await counted(() => post(url, body));
    expect((await plans()).stats.executed).toBe(executed + 1);
    expect(planned.core).toBe(1);
    const yoga = await byYoga(url, body);
    expect(withoutBalance(planned.value.text)).toBe(withoutBalance(yoga.text));
    const answer = JSON.parse(planned.value.text);
    expect(answer.data.transactions[0]).toBeNull();
    expect(answer.errors[0]).toMatchObject({
      path: ["transactions", 0],
      extensions: { code: "NOT_FOUND" },
    });
    // One record each, charged alike (a miss is an answer: -5 is charged, as on the node route).
    const [yogaRecord, plannedRecord] = await latestAudit(t.gateway.app.db, id, 2);
    expect(plannedRecord?.charged_cc).toBe(yogaRecord?.charged_cc);
    expect(plannedRecord).toMatchObject({ outcome: "upstream_error", error_code: "NOT_FOUND" });
    await expectWholeLedgerOk(t.gateway.app.db);
  });

  it("variables that do not coerce are Yoga's to refuse, uncharged", async () => {
    const { token } = await t.account("node-bad-vars", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    const query = "query ($ids: [TxId!]!) { transactions(txids: $ids) { txid } }";
    await learn(url, { query, variables: { ids: [TXIDS[0]] } });
    const body = { query, variables: { ids: ["not a txid"] } };
    const served = (await plans()).stats.served;
    const planned = await counted(() => post(url, body));
    expect((await plans()).stats.served).toBe(served);
    expect(planned.core).toBe(0);
    const yoga = await byYoga(url, body);
    expect(withoutBalance(planned.value.text)).toBe(withoutBalance(yoga.text));
    expect(JSON.parse(planned.value.text).errors[0].message).toContain("ids");
  });

  it("documents with a fragment, a directive, a field not read from its parent alone, or a field twice are not planned", async () => {
    const { token } = await t.account("node-unplanned", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    for (const query of [
      "query ($ids: [TxId!]!) { transactions(txids: $ids) { ...F } } fragment F on Transaction { txid }",
      "query ($ids: [TxId!]!, $w: Boolean!) { transactions(txids: $ids) { txid weight @include(if: $w) } }",
      "query ($ids: [TxId!]!) { transactions(txids: $ids) { txid block { height } } }",
      "query ($ids: [TxId!]!) { transactions(txids: $ids) { txid outputs { ... on TxOutput { n } } } }",
      "query ($ids: [TxId!]!) { transactions(txids: $ids) { txid merkleProof { blockHash } } }",
      "query ($ids: [TxId!]!) { transactions(txids: $ids) { outputs { n n } } }",
      "query ($ids: [TxId!]!) { transactions(txids: $ids) { txid txid } }",
      "query ($ids: [TxId!]!) { transactions(txids: $ids) { txid } chain { height } }",
    ]) {
      const body = { query, variables: { ids: [TXIDS[0]], w: true } };
      const learnt = (await plans()).stats.learnt;
      for (let i = 0; i < 3; i++) {
        const sent = await post(url, body);
        expect(sent.status).toBe(200);
        // Answered, so that it is the plan that was refused, not the query.
        expect(JSON.parse(sent.text).errors, query).toBeUndefined();
      }
      expect((await plans()).stats.learnt, query).toBe(learnt);
    }
  });

  it("an account short of the estimate is refused before Core is asked, as Yoga refuses it", async () => {
    const rich = await t.account("node-rich", 1_000_000);
    const query = "query ($ids: [TxId!]!) { transactions(txids: $ids) { txid vsize } }";
    await learn(`${t.url}/gateway/mainnet/${rich.token}`, { query, variables: { ids: TXIDS } });
    const poor = await t.account("node-poor", 1);
    const url = `${t.url}/gateway/mainnet/${poor.token}`;
    const body = { query, variables: { ids: TXIDS } };
    const planned = await counted(() => post(url, body));
    expect(planned.core).toBe(0);
    expect(planned.value.status).toBe(429);
    const yoga = await byYoga(url, body);
    expect(planned.value.status).toBe(yoga.status);
    expect(withoutBalance(planned.value.text)).toBe(withoutBalance(yoga.text));
    await expectWholeLedgerOk(t.gateway.app.db);
  });
});
