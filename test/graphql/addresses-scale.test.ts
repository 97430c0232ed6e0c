// Addresses at scale through devnet's regtest chain: cursors that survive blocks mined and
// replaced between pages, UTXOs paged, and many addresses in one request, one Electrum trip.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  encodeSegwitAddress,
  fromHexReversed,
  serializeTransaction,
  sha256,
  toHex,
} from "../../src/bitcoin/index.ts";
import { DEVNET_PAYOUT } from "../../src/devnet/block-producer.ts";
import {
  AddressBalancesDocument,
  AddressHistoryPageDocument,
  AddressUtxoPageDocument,
  type AddressUtxoPageQuery,
} from "../../src/generated/operations.ts";
import { someAddress } from "../support/devnet-core.ts";
import { execute, gql } from "../support/graphql.ts";
import { askDevnetCore, startTestGateway, type TestGateway } from "../support/harness.ts";

/** Devnet indexes a block or a spend in the background: a loaded machine may take seconds. */
const SETTLED = { timeout: 10_000 };

/** devnet's payout address on regtest: every block it mines pays it; anyone can spend it. */
const PAYOUT = encodeSegwitAddress("bcrt", 0, sha256(Uint8Array.of(0x51)));
const EMPTY = encodeSegwitAddress("bcrt", 0, new Uint8Array(20).fill(9));

let t: TestGateway;
let url: string;
const producer = () => t.devnet.producers.get("regtest")!;
const electrumStats = () => t.devnet.electrum.get("regtest")!.stats;

beforeAll(async () => {
  t = await startTestGateway("pglite", { networks: ["mainnet", "regtest"] });
  url = `${t.url}/gateway/regtest/${(await t.account("addr-scale", 10_000_000)).token}`;
  // Mature coinbases to spend (100 deep), and a history of over a hundred entries.
  producer().mine(110);
  await vi.waitFor(async () => expect((await page(PAYOUT, 0)).total).toBeGreaterThanOrEqual(110), {
    timeout: 20_000,
  });
}, 120_000);
afterAll(() => t?.close());

async function page(address: string, first: number, after: string | null = null) {
  const res = await execute(url, AddressHistoryPageDocument, { address, first, after });
  expect(res.body.errors).toBeUndefined();
  return res.body.data!.address.history;
}

/** Every txid of the address's history now, in one page. */
async function wholeHistory(address: string): Promise<string[]> {
  return (await page(address, 500)).entries.map((e) => e.txid);
}

/** Pages the whole history with pages of `first`, calling `between` after each page. */
async function pageAll(
  address: string,
  first: number,
  between: (n: number, last: number) => Promise<void>,
) {
  const served: string[] = [];
  let after: string | null = null;
  for (let n = 0; n < 50; n++) {
    const got = await page(address, first, after);
    served.push(...got.entries.map((e) => e.txid));
    after = got.endCursor ?? null;
    if (!got.hasNextPage) return served;
    await between(n, got.entries.at(-1)!.height);
  }
  throw new Error("paging never ended");
}

/** Sends a transaction spending a payout output (no signature: OP_TRUE) back to the payout. */
async function spendPayout(txid: string, vout: number, value: number): Promise<string> {
  const hex = toHex(
    serializeTransaction({
      version: 2,
      locktime: 0,
      inputs: [
        {
          prevTxid: txid,
          prevTxidBytes: fromHexReversed(txid),
          vout,
          scriptSig: new Uint8Array(0),
          sequence: 0xfffffffd,
          witness: [Uint8Array.of(0x51)],
        },
      ],
      outputs: [{ value: BigInt(value) - 10_000n, scriptPubKey: DEVNET_PAYOUT }],
    }),
  );
  const text = await askDevnetCore(t.devnet, "sendrawtransaction", [hex], "regtest");
  const answer = JSON.parse(text) as { result?: string; error?: unknown };
  expect(answer.error).toBeUndefined();
  return answer.result!;
}

/** Mature confirmed payout outputs not yet spent, oldest first. */
async function matureOutputs(count: number) {
  const res = await execute(url, AddressUtxoPageDocument, {
    address: PAYOUT,
    first: 500,
    after: null,
  });
  const tip = producer().chain.tip.height;
  const mature = res.body.data!.address.utxos.filter((u) => u.height > 0 && u.height <= tip - 100);
  return mature.slice(0, count);
}

/** Puts `count` payout spends in the mempool and waits until Electrum lists them. */
async function mempoolSpends(count: number): Promise<string[]> {
  const txids: string[] = [];
  for (const u of await matureOutputs(count))
    txids.push(await spendPayout(u.txid, u.vout, u.value.sats));
  await vi.waitFor(
    async () => expect(await wholeHistory(PAYOUT)).toEqual(expect.arrayContaining(txids)),
    SETTLED,
  );
  return txids;
}

const duplicates = (xs: string[]) => xs.filter((x, i) => xs.indexOf(x) !== i);

describe("history cursors", () => {
  it("page the whole history exactly once across a block mined between pages", async () => {
    const pending = await mempoolSpends(3);
    let mined = false;
    // Pages of a size that ends the second page inside the mempool (at its first or second entry).
    const confirmed = (await wholeHistory(PAYOUT)).length - pending.length;
    const first = Math.floor(confirmed / 2) + 1;
    const served = await pageAll(PAYOUT, first, async (_n, lastHeight) => {
      if (mined || lastHeight > 0) return;
      producer().mine(1); // the three confirm, and a new coinbase comes
      mined = true;
      await vi.waitFor(
        async () => expect((await page(PAYOUT, 0)).total).toBe(confirmed + 4),
        SETTLED,
      );
    });
    expect(mined).toBe(true);
    expect(duplicates(served)).toEqual([]);
    expect(served.sort()).toEqual((await wholeHistory(PAYOUT)).sort());
  });

  it("a block mined while paging the confirmed part: nothing repeated or skipped", async () => {
    const before = (await wholeHistory(PAYOUT)).length;
    let mined = 0;
    const served = await pageAll(PAYOUT, 25, async (n) => {
      if (n > 1) return;
      producer().mine(1);
      mined += 1;
      await vi.waitFor(
        async () => expect((await page(PAYOUT, 0)).total).toBe(before + mined),
        SETTLED,
      );
    });
    expect(duplicates(served)).toEqual([]);
    expect(served.sort()).toEqual((await wholeHistory(PAYOUT)).sort());
  });

  it("a reorganisation under the cursor: entries that stayed are served once", async () => {
    const [spent] = await mempoolSpends(1);
    producer().mine(1);
    await vi.waitFor(async () => {
      const last = (await page(PAYOUT, 500)).entries.at(-1)!;
      expect(last).toMatchObject({ txid: spent, height: producer().chain.tip.height });
    }, SETTLED);
    // The first page ends at the spend, the last entry of the tip's block; then the top two
    // blocks are replaced by three (the spend mined again, one block lower).
    const all = await wholeHistory(PAYOUT);
    const head = await page(PAYOUT, all.length);
    expect(head.entries.at(-1)!.txid).toBe(spent);
    const change = producer().reorg(2);
    expect("refused" in change).toBe(false);
    await vi.waitFor(
      async () => expect((await page(PAYOUT, 0)).total).toBe(all.length + 1),
      SETTLED,
    );
    const rest = await page(PAYOUT, 500, head.endCursor);
    const served = [...head.entries, ...rest.entries].map((e) => e.txid);
    const now = await wholeHistory(PAYOUT);
    expect(duplicates(served)).toEqual([]);
    // Every entry now was served, the spend (moved a block lower) once; the others served are
    // the replaced blocks' coinbases, gone from the chain.
    expect(served).toEqual(expect.arrayContaining(now));
    expect(served.filter((x) => !now.includes(x)).sort()).toEqual(
      all.filter((x) => !now.includes(x)).sort(),
    );
    expect(rest.hasNextPage).toBe(false);
  });

  it("an empty page gives its cursor back; a foreign cursor is refused in GraphQL's terms", async () => {
    const all = await page(PAYOUT, 500);
    const end = await page(PAYOUT, 10, all.endCursor);
    expect(end).toMatchObject({ entries: [], hasNextPage: false, endCursor: all.endCursor });
    const utxo = await execute(url, AddressUtxoPageDocument, {
      address: PAYOUT,
      first: 1,
      after: null,
    });
    const wrong = await execute(url, AddressHistoryPageDocument, {
      address: PAYOUT,
      first: 1,
      after: utxo.body.data!.address.utxos[0]!.cursor,
    });
    expect(wrong.body.errors?.[0]).toMatchObject({
      message: "after: not a cursor of Address.history",
      extensions: { code: "BAD_USER_INPUT" },
    });
  });
});

describe("UTXO pages", () => {
  it("page every output once while outputs are spent and mined between pages", async () => {
    const all = async () => {
      const res = await execute(url, AddressUtxoPageDocument, {
        address: PAYOUT,
        first: 500,
        after: null,
      });
      return res.body.data!.address.utxos.map((u) => `${u.txid}:${u.vout}`);
    };
    const before = await all();
    const served: string[] = [];
    let after: string | null = null;
    for (let n = 0; ; n++) {
      const res = await execute(url, AddressUtxoPageDocument, {
        address: PAYOUT,
        first: 30,
        after,
      });
      const utxos: AddressUtxoPageQuery["address"]["utxos"] = res.body.data!.address.utxos;
      served.push(...utxos.map((u) => `${u.txid}:${u.vout}`));
      if (utxos.length < 30) break;
      after = utxos.at(-1)!.cursor;
      if (n === 0) {
        // One output served is spent (its change comes in the mempool), and a block is mined.
        const u = utxos.find((x) => x.height > 0 && x.height <= producer().chain.tip.height - 100)!;
        await spendPayout(u.txid, u.vout, u.value.sats);
        producer().mine(1);
        await vi.waitFor(async () => expect((await all()).length).toBe(before.length + 1), SETTLED);
      }
    }
    const after2 = await all();
    expect(duplicates(served)).toEqual([]);
    // Everything there before and after was served; and everything there now.
    expect(served).toEqual(expect.arrayContaining(before.filter((u) => after2.includes(u))));
    expect(served).toEqual(expect.arrayContaining(after2));
  });
});

describe("addresses(list:)", () => {
  const list = () => [PAYOUT, someAddress("regtest"), EMPTY];

  it("answers as one by one, in one Electrum round trip, charged per address", async () => {
    const { messages, requests } = { ...electrumStats() };
    const res = await execute(url, AddressBalancesDocument, { list: list() });
    expect(res.body.errors).toBeUndefined();
    expect(electrumStats().messages - messages).toBe(1);
    expect(electrumStats().requests - requests).toBe(3);
    const cost = res.body.extensions!.cost as {
      charged: number;
      calls: { method: string; count: number; unitPrice: number }[];
    };
    const line = cost.calls.find((c) => c.method === "blockchain.scripthash.get_balance")!;
    expect(line.count).toBe(3);
    expect(cost.charged).toBe(3 * line.unitPrice);
    const got = res.body.data!.addresses;
    expect(got.map((a) => a.address)).toEqual(list());
    for (const a of got) {
      const one = await gql<{ address: { balance: unknown } }>(
        url,
        "query ($a: String!) { address(address: $a) { balance { confirmed { sats } unconfirmed { sats } } } }",
        { a: a.address },
      );
      expect(one.body.data!.address.balance).toEqual(a.balance);
    }
  });

  it("the estimate prices every call under the list per address, and a page's joins per entry", async () => {
    const res = await gql(
      url,
      `query ($l: [String!]!) { addresses(list: $l) {
        balance { confirmed { sats } }
        history(first: 4) { entries { transaction { txid } } }
      } }`,
      { l: list() },
      { "x-dry-run": "true" },
    );
    const breakdown = (res.body.extensions?.cost as { breakdown: Record<string, unknown>[] })
      .breakdown;
    expect(breakdown.map(({ path, method, count }) => ({ path, method, count }))).toEqual([
      { path: "addresses.balance", method: "blockchain.scripthash.get_balance", count: 3 },
      { path: "addresses.history", method: "blockchain.scripthash.get_history", count: 3 },
      { path: "addresses.history.entries.transaction", method: "getrawtransaction", count: 12 },
    ]);
  });

  it("is refused before Electrum is asked when the balance cannot pay every address", async () => {
    const price = 50; // regtest's blockchain.scripthash.get_balance
    const poor = await t.account("addr-scale-poor", 2 * price);
    const { requests } = { ...electrumStats() };
    const res = await execute(`${t.url}/gateway/regtest/${poor.token}`, AddressBalancesDocument, {
      list: list(),
    });
    expect(res.status).toBe(429);
    expect(electrumStats().requests).toBe(requests);
  });

  it("names an address of another network, and nothing is asked or charged", async () => {
    const mainnet = "1HckjUpRGcrrRAtFaaCAUaGjsPx9oYmLaZ";
    const { requests } = { ...electrumStats() };
    const res = await execute(url, AddressBalancesDocument, { list: [PAYOUT, mainnet] });
    expect(res.body.errors?.[0]).toMatchObject({
      message: `not addresses of regtest: ${mainnet}`,
      extensions: { code: "BAD_USER_INPUT", addresses: [mainnet] },
    });
    expect(res.body.extensions?.cost?.charged).toBe(0);
    expect(electrumStats().requests).toBe(requests);
  });
});
