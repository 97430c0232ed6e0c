// The rules of decision 0050, as the watcher applies them to what an address's history holds.
import { describe, expect, it } from "vitest";
import { addressDeriver } from "../../src/billing/topups/addresses.ts";
import { bip21Uri, btcAmount, qrSvg } from "../../src/billing/topups/bip21.ts";
import { confirmationsFor, quote } from "../../src/billing/topups/price.ts";
import { branchRoot } from "../../src/billing/topups/proof.ts";
import { judge, type Payment } from "../../src/billing/topups/rules.ts";
import { parseConfig } from "../../src/config/load.ts";
import { TOPUP_DESCRIPTOR } from "./support.ts";

const at = { sats: 10_000, expired: false, tipHeight: 200, confirmations: 2 };
const paid = (txid: string, sats: number, height: number | null, inTime = true): Payment => ({
  txid,
  sats,
  height,
  inTime,
});

describe("judge", () => {
  it("nothing seen: open, then expired", () => {
    expect(judge([], at).status).toBe("open");
    expect(judge([], { ...at, expired: true }).status).toBe("expired");
  });

  it("in the mempool or not deep enough: pending; deep enough: paid, naming the payment", () => {
    expect(judge([paid("a", 10_000, null)], at)).toMatchObject({
      status: "pending",
      seenSats: 10_000,
    });
    expect(judge([paid("a", 10_000, 200)], at).status).toBe("pending");
    expect(judge([paid("a", 10_000, 199)], at)).toEqual({
      status: "paid",
      seenSats: 10_000,
      confirmedSats: 10_000,
      creditTxid: "a",
    });
  });

  it("several payments add up; the one that completes the amount is named", () => {
    const two = [paid("b", 4_000, 195), paid("c", 6_000, 199)];
    expect(judge(two, at)).toMatchObject({ status: "paid", creditTxid: "c" });
    // Short of the amount while the invoice runs: pending; after expiry: underpaid.
    expect(judge([paid("b", 4_000, 195)], at).status).toBe("pending");
    expect(judge([paid("b", 4_000, 195)], { ...at, expired: true }).status).toBe("underpaid");
  });

  it("overpaid: paid once, the whole amount seen", () => {
    expect(judge([paid("a", 25_000, 190)], at)).toMatchObject({ status: "paid", seenSats: 25_000 });
  });

  it("paid in time but confirmed after expiry: still paid; only seen after expiry: late", () => {
    expect(judge([paid("a", 10_000, 199)], { ...at, expired: true }).status).toBe("paid");
    expect(judge([paid("a", 10_000, null)], { ...at, expired: true }).status).toBe("pending");
    expect(judge([paid("a", 10_000, 190, false)], { ...at, expired: true }).status).toBe("late");
  });

  it("a payment a reorganisation took out of the history counts no more", () => {
    expect(judge([], at).status).toBe("open");
    // Mined again higher up: counted from its new block.
    expect(judge([paid("a", 10_000, 200)], at).status).toBe("pending");
  });
});

describe("price and payment request", () => {
  const topups = parseConfig({
    billing: {
      topups: {
        descriptor: TOPUP_DESCRIPTOR,
        network: "regtest",
        satsPer1000Credits: 7,
        packages: [{ credits: 1_000_000, sats: 5_000 }],
        minimumSats: 1_000,
      },
    },
  }).billing.topups!;

  it("rounds up, honours packages and the minimum", () => {
    expect(quote(topups, 150_001)).toEqual({ ok: true, sats: 1_051 });
    expect(quote(topups, 1_000_000)).toEqual({ ok: true, sats: 5_000 });
    expect(quote(topups, 1_000)).toEqual({
      ok: false,
      reason: "an invoice is at least 1000 sats; 1000 CC cost 7",
    });
    expect(quote(topups, 0).ok).toBe(false);
    expect(confirmationsFor(topups, "regtest")).toBe(1);
    expect(confirmationsFor(topups, "mainnet")).toBe(3);
  });

  it("BIP21 amounts in BTC, a QR code in SVG", () => {
    expect(btcAmount(1)).toBe("0.00000001");
    expect(btcAmount(150_000_000)).toBe("1.5");
    expect(btcAmount(100_000_000)).toBe("1");
    expect(bip21Uri("bcrt1qxyz", 1_050, "blockgate credits")).toBe(
      "bitcoin:bcrt1qxyz?amount=0.0000105&label=blockgate%20credits",
    );
    const svg = qrSvg("bitcoin:bcrt1qxyz?amount=0.0000105");
    expect(svg).toMatch(/^<svg[^>]*viewBox/);
  });
});

describe("merkle branches", () => {
  it("a block's root from a transaction's branch, as Electrum's get_merkle gives it", () => {
    // Mainnet block 170: coinbase and Satoshi's payment to Hal Finney.
    const coinbase = "b1fea52486ce0c62bb442b530a3f0132b826c74e473d1f2c220bfa78111c5082";
    const hal = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";
    const root = "7dac2c5666815c17a3b36427de37bb9d2e2c5ccec3f8633eb91a4205cb4c10ff";
    expect(branchRoot(hal, [coinbase], 1)).toBe(root);
    expect(branchRoot(coinbase, [hal], 0)).toBe(root);
    expect(branchRoot(hal, [coinbase], 0)).not.toBe(root);
  });
});

describe("the descriptor, checked at boot", () => {
  const config = (descriptor: string) =>
    parseConfig({
      billing: { topups: { descriptor, network: "regtest", satsPer1000Credits: 1 } },
    }).billing.topups!;

  it("refuses a private key, a descriptor of one address, and keys of another network", () => {
    const tprv =
      "tprv8ZgxMBicQKsPeDgjzdC36fs6bMjGApWDNLR9erAXMs5skhMv36j9MV5ecvfavji5khqjWaWSFhN3YcCUUdiKH6isR4Pwy3U5y5egddBr16m";
    expect(() => addressDeriver(config(`wpkh(${tprv}/0/*)`))).toThrow(
      /^billing\.topups\.descriptor: the descriptor holds a private key/,
    );
    expect(() => addressDeriver(config(TOPUP_DESCRIPTOR.replace("/0/*)", "/0/7)")))).toThrow(
      /^billing\.topups\.descriptor: must be ranged/,
    );
    const xpub =
      "xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V";
    expect(() => addressDeriver(config(`wpkh(${xpub}/0/*)`))).toThrow(/not of regtest/);
  });

  it("derives each index's address, the first branch of a multipath descriptor", () => {
    const plain = addressDeriver(config(TOPUP_DESCRIPTOR));
    const multi = addressDeriver(config(TOPUP_DESCRIPTOR.replace("/0/*)", "/<0;1>/*)")));
    expect(plain.at(0).address).toMatch(/^bcrt1q/);
    expect(plain.at(1).address).not.toBe(plain.at(0).address);
    expect(multi.at(5)).toEqual(plain.at(5));
    expect(plain.key).toBe(`regtest:${TOPUP_DESCRIPTOR}`);
  });
});
