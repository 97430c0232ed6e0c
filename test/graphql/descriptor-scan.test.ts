import { networks, Output } from "@bitcoinerlab/descriptors";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addChecksum } from "../../src/bitcoin/index.ts";
import { coreCaller } from "../support/devnet-core.ts";
import { gql } from "../support/graphql.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";

// BIP32 test vector 1's master key, as a tpub (watch-only) and as its mainnet xprv.
const TPUB =
  "tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp";
const XPRV =
  "xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi";
const DESCRIPTOR = addChecksum(`wpkh(${TPUB}/<0;1>/*)`);
const MAX = 100;
const HISTORY = "blockchain.scripthash.get_history";
/** Regtest's price of a get_history: the unit of a scan. */
const UNIT = 100;

/** The address at `branch`/`index`, derived by the library itself, apart from the gateway. */
const derive = (branch: number, index: number) =>
  new Output({
    descriptor: `wpkh(${TPUB}/${branch}/*)`,
    index,
    network: networks.regtest,
  }).getAddress();

let t: TestGateway;
let url: string;
const historyCalls = () => t.devnet.electrum.get("regtest")!.stats.methods[HISTORY] ?? 0;

// Used: receive 0, 3, 7 and 14; change 2. With gapLimit 5, receive 14 lies past the gap.
const FUNDED: [number, number][] = [
  [0, 0],
  [0, 3],
  [0, 7],
  [0, 14],
  [1, 2],
];

beforeAll(async () => {
  t = await startTestGateway("pglite", { graphql: { descriptorAddressesMax: MAX } });
  url = `${t.url}/gateway/regtest/${(await t.account("scanner", 1_000_000)).token}`;
  const call = coreCaller(t.devnet);
  for (const [branch, index] of FUNDED) {
    const { error } = await call("generatetoaddress", [1, derive(branch, index)], "regtest");
    expect(error ?? null).toBeNull();
  }
});
afterAll(() => t.close());

interface Scan {
  addressesScanned: number;
  rounds: number;
  usedAddresses: { branch: number | null; index: number | null; address: { address: string } }[];
}

const SCAN = `query($d: String!, $g: Int) { descriptor(descriptor: $d, gapLimit: $g) {
  addressesScanned rounds usedAddresses { branch index address { address } } history { txid } } }`;

describe("descriptor(descriptor:, gapLimit:)", () => {
  it("finds the used addresses within the gap, in rounds, priced per address scanned", async () => {
    const before = historyCalls();
    const res = await gql<{ descriptor: Scan }>(url, SCAN, { d: DESCRIPTOR, g: 5 });
    expect(res.body.errors).toBeUndefined();
    const scan = res.body.data!.descriptor;
    expect(scan.usedAddresses.map((a) => [a.branch, a.index, a.address.address])).toEqual(
      [
        [0, 0],
        [0, 3],
        [0, 7],
        [1, 2],
      ].map(([b, i]) => [b, i, derive(b!, i!)]),
    );
    // Receive: 0..12 (gap of 5 after 7), change: 0..7 (gap of 5 after 2).
    expect(scan.addressesScanned).toBe(13 + 8);
    // Receive [0,5) [5,9) [9,13); change [0,5) [5,8) alongside.
    expect(scan.rounds).toBe(3);
    expect(historyCalls() - before).toBe(21);
    expect(res.body.extensions?.cost).toMatchObject({ estimated: MAX * UNIT, charged: 21 * UNIT });
  });

  it("a wider gap reaches the address past it", async () => {
    const res = await gql<{ descriptor: Scan }>(url, SCAN, { d: DESCRIPTOR, g: 7 });
    const scan = res.body.data!.descriptor;
    expect(scan.usedAddresses.map((a) => a.index)).toEqual([0, 3, 7, 14, 2]);
    expect(scan.addressesScanned).toBe(22 + 10);
    expect(res.body.extensions?.cost).toMatchObject({ charged: 32 * UNIT });
  });

  it("its balance is the sum of its addresses' balances read one by one", async () => {
    const res = await gql<{
      descriptor: {
        balance: { confirmed: { sats: string }; unconfirmed: { sats: string } };
        usedAddresses: { address: { address: string } }[];
      };
    }>(
      url,
      `query($d: String!) { descriptor(descriptor: $d, gapLimit: 7) {
        balance { confirmed { sats } unconfirmed { sats } } usedAddresses { address { address } } } }`,
      { d: DESCRIPTOR },
    );
    expect(res.body.errors).toBeUndefined();
    const { balance, usedAddresses } = res.body.data!.descriptor;
    let confirmed = 0n;
    let unconfirmed = 0n;
    for (const { address } of usedAddresses) {
      const one = await gql<{
        address: { balance: { confirmed: { sats: string }; unconfirmed: { sats: string } } };
      }>(
        url,
        `{ address(address: "${address.address}") { balance { confirmed { sats } unconfirmed { sats } } } }`,
      );
      confirmed += BigInt(one.body.data!.address.balance.confirmed.sats);
      unconfirmed += BigInt(one.body.data!.address.balance.unconfirmed.sats);
    }
    expect(confirmed).toBeGreaterThan(0n);
    expect(BigInt(balance.confirmed.sats)).toBe(confirmed);
    expect(BigInt(balance.unconfirmed.sats)).toBe(unconfirmed);
    // The scan's look-ups, then one get_balance per used address.
    expect(res.body.extensions?.cost).toMatchObject({ charged: 32 * UNIT + 5 * 50 });
  });

  it("UTXOs of the used addresses, one per funding coinbase", async () => {
    const res = await gql<{
      descriptor: { utxos: { address: string; value: { sats: string } }[] };
    }>(
      url,
      `query($d: String!) { descriptor(descriptor: $d, gapLimit: 7) { utxos { address value { sats } } } }`,
      { d: DESCRIPTOR },
    );
    expect(res.body.errors).toBeUndefined();
    const addresses = res.body.data!.descriptor.utxos.map((u) => u.address).sort();
    expect(addresses).toEqual(FUNDED.map(([b, i]) => derive(b, i)).sort());
  });

  it("a descriptor without * is its one address", async () => {
    const res = await gql<{ descriptor: Scan }>(url, SCAN, {
      d: `wpkh(${TPUB}/0/3)`,
    });
    expect(res.body.data!.descriptor).toMatchObject({
      addressesScanned: 1,
      usedAddresses: [{ branch: null, index: null, address: { address: derive(0, 3) } }],
    });
    expect(res.body.extensions?.cost).toMatchObject({ charged: UNIT });
  });
});

describe("descriptor refusals", () => {
  const refused = async (variables: Record<string, unknown>, code: string) => {
    const before = historyCalls();
    const res = await gql(url, SCAN, variables);
    expect(res.body.errors?.[0]?.extensions?.code).toBe(code);
    expect(historyCalls() - before).toBe(0);
    expect(res.body.extensions?.cost ?? { charged: 0 }).toMatchObject({ charged: 0 });
    return res.body.errors![0]!.message;
  };

  it("a gapLimit that cannot fit the maximum is refused before anything runs", async () => {
    // 2 branches × 60 > 100.
    const message = await refused({ d: DESCRIPTOR, g: 60 }, "LIMIT_EXCEEDED");
    expect(message).toContain("graphql.descriptorAddressesMax");
    await refused({ d: DESCRIPTOR, g: 0 }, "BAD_USER_INPUT");
  });

  it("a descriptor needing more than the maximum stops there, charged for what was scanned", async () => {
    const before = historyCalls();
    const res = await gql(url, SCAN, { d: DESCRIPTOR, g: 50 });
    expect(res.body.errors?.[0]?.extensions?.code).toBe("LIMIT_EXCEEDED");
    // The first round (50 a branch) was asked; the second would pass 100.
    expect(historyCalls() - before).toBe(100);
    expect(res.body.extensions?.cost).toMatchObject({ charged: 100 * UNIT });
  });

  it("a bad checksum, a private key, another network's key, bad syntax: refused, free", async () => {
    const wrongSum = `${DESCRIPTOR.slice(0, -1)}${DESCRIPTOR.endsWith("q") ? "p" : "q"}`;
    expect(await refused({ d: wrongSum }, "BAD_USER_INPUT")).toContain("checksum");
    const xprv = await refused({ d: `wpkh(${XPRV}/0/*)` }, "BAD_USER_INPUT");
    expect(xprv).toContain("private key");
    expect(xprv).not.toContain(XPRV.slice(4, 40));
    expect(t.logs.some((line) => line.includes(XPRV.slice(4, 40)))).toBe(false);
    const xpub =
      "xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8";
    expect(await refused({ d: `wpkh(${xpub}/0/*)` }, "BAD_USER_INPUT")).toContain("regtest");
    await refused({ d: "wpkh(nonsense" }, "BAD_USER_INPUT");
  });
});
