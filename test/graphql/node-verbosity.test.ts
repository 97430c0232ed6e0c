// How verbose the unified API asks Core for a transaction (src/routes/gateway/loaders.ts): the least the
// operation reads — 2 for fee and prevouts, 1 for any field that reads where it was mined
// (cost/estimate.ts POSITION_FIELDS), else 0, its hex — and, where a cache could keep the answer,
// verbose for a transaction asked again, so that it is kept. Observed at devnet's Core, which
// records every call with its parameters; the answers are compared with the verbose path's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WatchedCall } from "../../src/devnet/bitcoin-core/http.ts";
import { loadDevnetChain } from "../../src/devnet/chain.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";

const full = loadDevnetChain();
/** Segwit-era transactions (witnesses, several inputs and outputs) under devnet's tip. */
const TXIDS = full.byHeight
  .get(540107)!
  .block.transactions.slice(1, 6)
  .map((tx) => tx.txid);

/** Everything Transaction says that its bytes alone say. */
const FROM_BYTES = `txid hash version size vsize weight locktime hex
  inputs { txid vout coinbase scriptSig { asm hex } witness sequence }
  outputs { n value { btc sats } scriptPubKey { asm desc hex address type } }`;

async function ask(
  t: TestGateway,
  token: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<{ data: unknown; errors?: unknown; verbosities: string[] }> {
  const core: WatchedCall[] = [];
  const stop = t.devnet.cores.get("mainnet")!.watch((seen) => core.push(...seen));
  try {
    const res = await fetch(`${t.url}/gateway/mainnet/${token}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query, ...(variables ? { variables } : {}) }),
    });
    expect(res.status).toBe(200);
    const json = (await res.json()) as { data: unknown; errors?: unknown };
    const verbosities = core
      .filter((c) => c.method === "getrawtransaction")
      .map((c) => String((c.params as unknown[])[1]));
    return { ...json, verbosities };
  } finally {
    stop();
  }
}

describe("no cache could keep the answer (transaction cache and whole answers off)", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway("pglite", {
      networks: ["mainnet"],
      cache: { bytesMax: 0, gatewayBytesMax: 0 },
    });
  });
  afterAll(() => t?.close());

  it("what the bytes say is asked as hex every time, and answered as the verbose path answers it", async () => {
    const who = await t.account("hex", 1_000_000);
    const query = `query ($ids: [TxId!]!) { transactions(txids: $ids) { ${FROM_BYTES} } }`;
    const first = await ask(t, who.token, query, { ids: TXIDS });
    const again = await ask(t, who.token, query, { ids: TXIDS });
    expect(first.errors).toBeUndefined();
    expect(first.verbosities).toEqual(TXIDS.map(() => "0"));
    expect(again.verbosities).toEqual(TXIDS.map(() => "0"));
    // The same selection with a field that needs the block: asked verbose, the rest alike.
    const verbose = await ask(
      t,
      who.token,
      `query ($ids: [TxId!]!) { transactions(txids: $ids) { ${FROM_BYTES} blockhash } }`,
      { ids: TXIDS },
    );
    expect(verbose.verbosities).toEqual(TXIDS.map(() => "1"));
    const withoutBlockhash = (
      verbose.data as { transactions: ({ blockhash: string } & Record<string, unknown>)[] }
    ).transactions.map(({ blockhash, ...rest }) => {
      expect(blockhash).toBe(full.byHeight.get(540107)!.block.hash);
      return rest;
    });
    expect(first.data).toEqual({ transactions: withoutBlockhash });
  });

  it("each field that reads the block asks verbose, through a fragment or an alias too; fee asks verbosity 2", async () => {
    const who = await t.account("position", 1_000_000);
    const txid = TXIDS[0]!;
    const cases: [string, string][] = [
      ["status", "1"],
      ["confirmations", "1"],
      ["blockhash", "1"],
      ["blocktime", "1"],
      ["at: time", "1"],
      ["block { hash }", "1"],
      ["merkleProof { hex }", "1"],
      ["...F", "1"],
      ["fee { sats }", "2"],
      ["inputs { prevout { value { sats } } }", "2"],
    ];
    for (const [selection, verbosity] of cases) {
      const query = `{ transaction(txid: "${txid}") { txid ${selection} } } fragment F on Transaction { confirmations }`;
      const answer = await ask(
        t,
        who.token,
        selection === "...F" ? query : query.replace(/ fragment F.*$/, ""),
      );
      expect(answer.errors, selection).toBeUndefined();
      expect(answer.verbosities, selection).toEqual([verbosity]);
    }
    // A transaction joined under an indexer block reads nothing of its position: hex.
    const joined = await ask(
      t,
      who.token,
      `{ block(limit: 1, where: {height: {_eq: 540107}}) { height transactions(limit: 2) { hash transaction { txid size } } } }`,
    );
    expect(joined.errors).toBeUndefined();
    expect(joined.verbosities.length).toBeGreaterThan(0);
    expect(new Set(joined.verbosities)).toEqual(new Set(["0"]));
  });
});

describe("the transaction cache on: asked once, hex; asked again, verbose and kept", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway("pglite", {
      networks: ["mainnet"],
      cache: { gatewayBytesMax: 0 },
    });
  });
  afterAll(() => t?.close());

  it("the second request asks verbose and fills the cache; the third asks Core nothing", async () => {
    const who = await t.account("doorkeeper", 1_000_000);
    const query = "query ($ids: [TxId!]!) { transactions(txids: $ids) { txid size weight } }";
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await ask(t, who.token, query, { ids: TXIDS }));
    expect(answers.map((a) => a.verbosities)).toEqual([
      TXIDS.map(() => "0"),
      TXIDS.map(() => "1"),
      [],
    ]);
    for (const a of answers) expect(a.data).toEqual(answers[0]!.data);
  });
});
