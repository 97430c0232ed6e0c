import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { latestAudit } from "../../src/billing/usage/usage.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectWholeLedgerOk } from "../support/ledger.ts";

/**
 * Plans (src/routes/gateway/query-plans/): a document that asks the indexer alone is learnt from its first
 * execution and then sent to the indexer without Yoga. Every planned answer is compared with
 * Yoga's own answer to the same request — the same body sent with another Origin, which is
 * another plan key, so Yoga executes it — byte for byte but the balance, which moves between the
 * two; and each is charged and audited as Yoga's is.
 */
let t: TestGateway;
beforeAll(async () => {
  // Not final (the tip's blocks): the cache of whole answers would not keep these anyway; off, so
  // that no test here can be answered by it.
  t = await startTestGateway("pglite", {
    cache: { gatewayBytesMax: 0 },
    graph: { queryTimeoutMs: 400 },
  });
});
afterAll(() => t.close());

const GENESIS = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f";
const LATEST = "{ block(limit: 3, order_by: {height: desc}) { hash height timestamp } }";
const BY_VARIABLES = `query Page($limit: Int, $from: Int!) {
  recent: block(limit: $limit, where: {height: {_gte: $from}}, order_by: {height: asc}) {
    ...Columns
    transactions(limit: 2) { hash output_count }
  }
  genesis: block_by_pk(hash: "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f") { height }
}
fragment Columns on Block { height hash size_bytes }`;

const plans = async () => (await t.gateway.app.unifiedApi()).plans;
const indexerRequests = () => t.devnet.indexers.get("mainnet")!.stats.httpRequests;

interface Sent {
  status: number;
  text: string;
  headers: Headers;
}

async function post(
  url: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Sent> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

/** The answer with its balance taken out (it moves between any two requests). */
const withoutBalance = (text: string) => text.replace(/"balance":\d+/g, '"balance":0');

/** Sends `body` until its plan is learnt: from its second execution. */
async function learn(url: string, body: Record<string, unknown>): Promise<void> {
  const before = (await plans()).stats.learnt;
  expect((await post(url, body)).status).toBe(200);
  expect((await plans()).stats.learnt).toBe(before);
  expect((await post(url, body)).status).toBe(200);
  expect((await plans()).stats.learnt).toBe(before + 1);
}

/**
 * The same request answered by Yoga: a body with `extensions` (empty: Yoga reads nothing from
 * it) is never planned, nor learnt from.
 */
const byYoga = (url: string, body: Record<string, unknown>) =>
  post(url, { ...body, extensions: {} });
let accounts = 0;

describe("a document that asks the indexer alone", () => {
  it("is learnt from one execution, then answered without Yoga: Yoga's bytes, price and record", async () => {
    const { token, id } = await t.account("planned", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    const body = { query: LATEST };
    await learn(url, body);
    const served = (await plans()).stats.served;
    const planned = await post(url, body);
    expect((await plans()).stats.served).toBe(served + 1);
    const yoga = await byYoga(url, body);
    expect(planned.status).toBe(200);
    expect(withoutBalance(planned.text)).toBe(withoutBalance(yoga.text));
    expect(planned.headers.get("content-type")).toBe(yoga.headers.get("content-type"));
    const cost = JSON.parse(planned.text).extensions.cost;
    expect(cost.charged).toBeGreaterThan(0);
    expect(planned.headers.get("x-credits-charged")).toBe(String(cost.charged));
    // Its own record, as Yoga's: the same method, outcome, charge and complexity.
    const [yogaRecord, plannedRecord] = await latestAudit(t.gateway.app.db, id, 2);
    expect(plannedRecord).toMatchObject({
      method: "graphql",
      outcome: "ok",
      charged_cc: cost.charged,
      complexity: cost.complexity,
    });
    expect(yogaRecord).toMatchObject({
      method: "graphql",
      outcome: "ok",
      charged_cc: cost.charged,
      complexity: cost.complexity,
    });
    await expectWholeLedgerOk(t.gateway.app.db);
  });

  it("takes other variables: priced by their own estimate, answered as Yoga answers them", async () => {
    const { token } = await t.account("pager", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    await learn(url, { query: BY_VARIABLES, variables: { limit: 2, from: 100 } });
    for (const variables of [
      { limit: 5, from: 170 },
      { limit: 1, from: 0 },
      { limit: 4, from: 277640 },
      { limit: 3, from: 999_999_999 }, // no block: an empty list
    ]) {
      const served = (await plans()).stats.served;
      const planned = await post(url, { query: BY_VARIABLES, variables });
      expect((await plans()).stats.served).toBe(served + 1);
      const yoga = await byYoga(url, { query: BY_VARIABLES, variables });
      expect(withoutBalance(planned.text)).toBe(withoutBalance(yoga.text));
    }
  });

  it("takes other literal values, as it takes other variables: a plan serves its document's shape", async () => {
    const { token, id } = await t.account("literal", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    const page = (limit: string, from: string, hash = GENESIS) =>
      `query ($from: Int = ${from}) {
        page: block(limit: ${limit}, where: {height: {_gte: $from}}, order_by: {height: asc}) { height hash }
        one: block_by_pk(hash: "${hash}") { height } }`;
    // Learnt from two documents of one shape: the second execution is the shape's second.
    const before = (await plans()).stats.learnt;
    expect((await post(url, { query: page("2", "100") })).status).toBe(200);
    expect((await post(url, { query: page("3", "7") })).status).toBe(200);
    expect((await plans()).stats.learnt).toBe(before + 1);
    for (const [limit, from, hash] of [
      ["5", "170", GENESIS],
      ["1", "0", "nope"], // no such block: null
      ["4", "277640", GENESIS],
      ["2", "-3", GENESIS],
    ] as const) {
      const query = page(limit, from, hash);
      const served = (await plans()).stats.served;
      const planned = await post(url, { query });
      expect((await plans()).stats.served).toBe(served + 1);
      const yoga = await byYoga(url, { query });
      expect(withoutBalance(planned.text)).toBe(withoutBalance(yoga.text));
      const [yogaRecord, plannedRecord] = await latestAudit(t.gateway.app.db, id, 2);
      expect(plannedRecord?.charged_cc).toBe(yogaRecord?.charged_cc);
    }
    // Of the shape, but with a value validation refuses (a default past Int's range): Yoga
    // refuses it as it refuses any invalid document, audited, nothing charged, the indexer not
    // asked. (The plan checks the literals as validation does; its estimate would refuse this
    // one too. test/graphql/document-shape.test.ts holds the check to graphql-js's validation.)
    const served = (await plans()).stats.served;
    const asked = indexerRequests();
    const query = page("2", "2147483648");
    const refused = await post(url, { query });
    expect(withoutBalance(refused.text)).toBe(withoutBalance((await byYoga(url, { query })).text));
    expect(JSON.parse(refused.text).errors).toEqual([
      expect.objectContaining({ extensions: { code: "GRAPHQL_VALIDATION_FAILED" } }),
    ]);
    expect((await plans()).stats.served).toBe(served);
    expect(indexerRequests()).toBe(asked);
    const [record] = await latestAudit(t.gateway.app.db, id, 1);
    expect(record).toMatchObject({ outcome: "rejected", charged_cc: 0 });
  });

  it("__typename at every level, as Apollo Client adds it: written with the unified API's names", async () => {
    const { token } = await t.account("apollo", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    const query = `query Latest {
  __typename
  block(limit: 2, order_by: {height: desc}) {
    __typename height kind: __typename
    transactions(limit: 1) { __typename hash }
  }
}`;
    await learn(url, { query });
    const served = (await plans()).stats.served;
    const planned = await post(url, { query });
    expect((await plans()).stats.served).toBe(served + 1);
    expect(withoutBalance(planned.text)).toBe(withoutBalance((await byYoga(url, { query })).text));
    const { data } = JSON.parse(planned.text);
    expect(data.__typename).toBe("Query");
    expect(data.block[0]).toMatchObject({ __typename: "Block", kind: "Block" });
    expect(data.block[0].transactions[0].__typename).toBe("BlockTransaction");
  });

  it("@skip and @include: each combination of their conditions written as Yoga writes it", async () => {
    const { token } = await t.account("conditional", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    const query = `query Cond($size: Boolean!, $txs: Boolean = false) {
  block(limit: 2, order_by: {height: desc}) {
    height size_bytes @include(if: $size)
    ... on Block @include(if: $txs) { transactions(limit: 1) { hash } }
    hash @skip(if: $size)
  }
}`;
    await learn(url, { query, variables: { size: true } });
    for (const variables of [
      { size: true },
      { size: false },
      { size: false, txs: true },
      { size: true, txs: true },
    ]) {
      const served = (await plans()).stats.served;
      const planned = await post(url, { query, variables });
      expect((await plans()).stats.served).toBe(served + 1);
      const yoga = await byYoga(url, { query, variables });
      expect(withoutBalance(planned.text)).toBe(withoutBalance(yoga.text));
    }
  });

  it("leaves to Yoga variables the schema refuses and estimates that refuse: answered and audited as always", async () => {
    const { token, id } = await t.account("careless", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    // Another shape (an alias of its own): another plan than the test above's. A comment would
    // not do: documents that differ only in comments and whitespace have one shape.
    const query = BY_VARIABLES.replace("recent:", "careless:");
    await learn(url, { query, variables: { limit: 2, from: 1 } });
    const served = (await plans()).stats.served;
    for (const variables of [
      { limit: "two", from: 1 }, // not an Int
      { limit: 2 }, // $from is required
      { limit: 100_000, from: 1 }, // past graph.pageSizeMax
      { limit: -1, from: 1 }, // Hasura's refusal, made by the estimate
    ]) {
      const planned = await post(url, { query, variables });
      const yoga = await byYoga(url, { query, variables });
      expect(planned.status).toBe(yoga.status);
      expect(withoutBalance(planned.text)).toBe(withoutBalance(yoga.text));
      expect(JSON.parse(planned.text).errors.length).toBeGreaterThan(0);
      const [record] = await latestAudit(t.gateway.app.db, id, 1);
      expect(record).toMatchObject({ outcome: "rejected", charged_cc: 0 });
    }
    expect((await plans()).stats.served).toBe(served);
  });

  it("a planned document's list variable longer than graphql.listItemsMax: refused, nothing sent", async () => {
    const { token, id } = await t.account("listing", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    const query = "query ($h: [Int!]) { block(where: {height: {_in: $h}}, limit: 2) { height } }";
    await learn(url, { query, variables: { h: [1, 2] } });
    const { served } = (await plans()).stats;
    const indexer = indexerRequests();
    const h = Array.from({ length: 100_000 }, (_, i) => i);
    const res = await post(url, { query, variables: { h } });
    expect(JSON.parse(res.text).errors[0]).toMatchObject({
      message: "block: 100000 items in the list where.height._in, at most 500 in one list",
      extensions: { code: "LIMIT_EXCEEDED", limit: 500 },
    });
    expect((await plans()).stats.served).toBe(served);
    expect(indexerRequests()).toBe(indexer);
    const [record] = await latestAudit(t.gateway.app.db, id, 1);
    expect(record).toMatchObject({ outcome: "rejected", charged_cc: 0 });
  });

  it("an indexer that fails its trip: answered as the executor answers it, from that trip, not charged", async () => {
    const { token, id } = await t.account("unlucky", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    const body = { query: "{ block(limit: 1, order_by: {height: asc}) { height } }" };
    await learn(url, body);
    const executed = (await plans()).stats.executed;
    const release = t.devnet.indexers.get("mainnet")!.hold();
    let planned: Sent;
    let asked: number;
    try {
      const before = indexerRequests();
      planned = await post(url, body);
      asked = indexerRequests() - before;
    } finally {
      release();
    }
    expect((await plans()).stats.executed).toBe(executed + 1);
    // The executor was handed the failed trip: one request reached the indexer, not two.
    expect(asked).toBe(1);
    const answer = JSON.parse(planned.text);
    expect(answer.data).toEqual({ block: null });
    expect(answer.errors).toEqual([
      expect.objectContaining({ path: ["block"], extensions: { code: "UPSTREAM_TIMEOUT" } }),
    ]);
    expect(answer.extensions.cost).toMatchObject({ actual: 0, charged: 0, calls: [] });
    const [record] = await latestAudit(t.gateway.app.db, id, 1);
    expect(record).toMatchObject({
      outcome: "upstream_error",
      error_code: "UPSTREAM_TIMEOUT",
      charged_cc: 0,
    });
    await expectWholeLedgerOk(t.gateway.app.db);
  });

  it("a balance short of the estimate: 429 before the indexer is asked, as Yoga refuses it", async () => {
    const { token } = await t.account("short", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    const query = `{ short: ${LATEST.slice(2)}`;
    await learn(url, { query });
    const { token: poor } = await t.account("poor", 10);
    const poorUrl = `${t.url}/gateway/mainnet/${poor}`;
    const before = indexerRequests();
    const planned = await post(poorUrl, { query });
    expect(indexerRequests()).toBe(before);
    const yoga = await byYoga(poorUrl, { query });
    expect(planned.status).toBe(429);
    expect(planned.text).toBe(yoga.text);
  });

  it("learning asks nothing of its own: 30 concurrent first requests, one indexer trip, then a plan", async () => {
    // A gateway of its own on the same devnet, with the default deadline: the indexer is held
    // until all thirty are in flight, and on a loaded machine their arrival outlasts the 400 ms
    // this file's gateway gives a trip (a timed-out trip would leave later arrivals a new one).
    const g = await startTestGateway("pglite", { cache: { gatewayBytesMax: 0 } }, undefined, {
      devnet: t.devnet,
    });
    try {
      const { token, id } = await g.account("first-wave", 1_000_000);
      const url = `${g.url}/gateway/mainnet/${token}`;
      const body = {
        query: "{ block(limit: 4, order_by: {height: desc}) { hash transaction_count } }",
      };
      const gPlans = async () => (await g.gateway.app.unifiedApi()).plans;
      const { learnt } = (await gPlans()).stats;
      const before = indexerRequests();
      const shared = g.gateway.app.indexers.get("mainnet")!.shared.stats;
      const joined = shared.joined;
      const release = t.devnet.indexers.get("mainnet")!.hold();
      const sent = Promise.all(Array.from({ length: 30 }, () => post(url, body)));
      try {
        // Thirty documents parsed, checked and priced before they reach the indexer: on a loaded
        // machine that is more than waitFor's default second.
        await vi.waitFor(() => expect(shared.joined - joined).toBe(29), {
          timeout: 20_000,
          interval: 20,
        });
      } finally {
        release();
      }
      const answers = await sent;
      expect(answers.every((a) => a.status === 200)).toBe(true);
      expect(indexerRequests() - before).toBe(1);
      expect((await gPlans()).stats.learnt).toBe(learnt + 1);
      expect(await latestAudit(g.gateway.app.db, id, 100)).toHaveLength(30);
    } finally {
      await g.close();
    }
  });

  it("concurrent identical planned requests share one trip, each charged and audited", async () => {
    const { token, id } = await t.account("crowd", 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    const body = { query: "{ block(limit: 2, order_by: {height: desc}) { height size_bytes } }" };
    await learn(url, body);
    const before = indexerRequests();
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(url, body)));
    expect(indexerRequests() - before).toBeLessThan(20);
    const charges = answers.map((a) => JSON.parse(a.text).extensions.cost.charged as number);
    expect(new Set(charges).size).toBe(1);
    const records = await latestAudit(t.gateway.app.db, id, 20);
    expect(records.filter((r) => r.charged_cc === charges[0])).toHaveLength(20);
  });
});

describe("documents that are never planned", () => {
  it.each([
    [
      "a join to the node",
      "{ block(limit: 1) { transactions(limit: 1) { transaction { txid } } } }",
    ],
    ["a directive but @skip and @include", "{ block(limit: 1) { height @deprecated } }"],
    ["a field beside the indexer's", "{ block(limit: 1) { height } account { name } }"],
    [
      "two operations",
      "query A { block(limit: 1) { height } } query B { block(limit: 2) { height } }",
    ],
  ])("%s: executed by Yoga every time", async (_what, query) => {
    const { token } = await t.account(`unplanned-${accounts++}`, 1_000_000);
    const url = `${t.url}/gateway/mainnet/${token}`;
    const body = query.startsWith("query A") ? { query, operationName: "B" } : { query };
    const { learnt, served } = (await plans()).stats;
    for (let i = 0; i < 3; i++) {
      expect((await post(url, body)).status).toBe(200);
    }
    expect((await plans()).stats).toMatchObject({ learnt, served });
  });
});
