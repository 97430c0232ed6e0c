import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addressToScript, scriptToAddress } from "../../src/bitcoin/address.ts";
import { inferDescriptor } from "../../src/bitcoin/descriptor.ts";
import { fromHex, toHex } from "../../src/bitcoin/hex.ts";
import { type Network, networkFromChain } from "../../src/bitcoin/network.ts";
import { isValidXOnlyPubkey } from "../../src/bitcoin/xonly.ts";
import { VECTORS_DIR } from "./chain-data.ts";

const ALL_NETWORKS: Network[] = ["mainnet", "testnet", "testnet4", "signet", "regtest"];

const valid = JSON.parse(readFileSync(join(VECTORS_DIR, "key_io_valid.json"), "utf8")) as [
  string,
  string,
  { chain: string; isPrivkey: boolean; tryCaseFlip?: boolean },
][];
const addresses = valid.filter(([, , meta]) => !meta.isPrivkey);

describe("key_io_valid.json address vectors", () => {
  it("has 54 address entries", () => expect(addresses).toHaveLength(54));

  for (const [address, scriptHex, meta] of addresses) {
    it(`${meta.chain} ${address}`, () => {
      const network = networkFromChain(meta.chain);
      expect(scriptToAddress(fromHex(scriptHex), network)).toBe(address);
      const script = addressToScript(address, network);
      expect(script && toHex(script)).toBe(scriptHex);
      if (meta.tryCaseFlip) {
        const upper = addressToScript(address.toUpperCase(), network);
        expect(upper && toHex(upper)).toBe(scriptHex);
      }
      const desc = inferDescriptor(fromHex(scriptHex), network);
      const isTaproot = scriptHex.length === 68 && scriptHex.startsWith("5120");
      // Random taproot programs are a curve x-coordinate only half the time; the rest get addr().
      const program = fromHex(scriptHex.slice(4));
      if (isTaproot && isValidXOnlyPubkey(program)) {
        expect(desc.startsWith(`rawtr(${scriptHex.slice(4)})#`)).toBe(true);
      } else {
        expect(desc.startsWith(`addr(${address})#`)).toBe(true);
      }
    });
  }
});

describe("key_io_invalid.json", () => {
  const invalid = JSON.parse(readFileSync(join(VECTORS_DIR, "key_io_invalid.json"), "utf8")) as [
    string,
  ][];
  it("no entry decodes as an address on any network", () => {
    for (const [s] of invalid) {
      for (const n of ALL_NETWORKS) expect(addressToScript(s, n), `${s} on ${n}`).toBeNull();
    }
  });
});

describe("bip341_wallet_vectors.json", () => {
  const doc = JSON.parse(readFileSync(join(VECTORS_DIR, "bip341_wallet_vectors.json"), "utf8")) as {
    scriptPubKey: { expected: { scriptPubKey: string; bip350Address: string } }[];
  };
  for (const [i, v] of doc.scriptPubKey.entries()) {
    it(`scriptPubKey[${i}]`, () => {
      const script = fromHex(v.expected.scriptPubKey);
      expect(scriptToAddress(script, "mainnet")).toBe(v.expected.bip350Address);
      expect(toHex(addressToScript(v.expected.bip350Address, "mainnet")!)).toBe(
        v.expected.scriptPubKey,
      );
      // Tweaked output keys are valid curve points, so Core infers rawtr().
      expect(
        inferDescriptor(script, "mainnet").startsWith(
          `rawtr(${v.expected.scriptPubKey.slice(4)})#`,
        ),
      ).toBe(true);
    });
  }
});

describe("network-specific encodings", () => {
  it("x-only validity", () => {
    expect(isValidXOnlyPubkey(fromHex("ff".repeat(32)))).toBe(false); // not below p
    expect(
      isValidXOnlyPubkey(
        fromHex("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"),
      ),
    ).toBe(true); // the generator
    expect(
      inferDescriptor(fromHex(`5120${"ff".repeat(32)}`), "mainnet").startsWith("addr(bc1p"),
    ).toBe(true);
  });
  it("P2A anchor", () => {
    expect(scriptToAddress(fromHex("51024e73"), "mainnet")).toBe("bc1pfeessrawgf");
  });
  it("bare pubkey, multisig, nulldata have no address", () => {
    const key = `02${"ab".repeat(32)}`;
    expect(scriptToAddress(fromHex(`21${key}ac`), "mainnet")).toBeUndefined();
    expect(scriptToAddress(fromHex(`5121${key}51ae`), "mainnet")).toBeUndefined();
    expect(scriptToAddress(fromHex("6a00"), "mainnet")).toBeUndefined();
  });
  it("testnet address on mainnet does not decode", () => {
    expect(addressToScript("tb1qcrh3yqn4nlleplcez2yndq2ry8h9ncg3qh7n54", "mainnet")).toBeNull();
    expect(addressToScript("mzK2FFDEhxqHcmrJw1ysqFkVyhUULo45hZ", "mainnet")).toBeNull();
  });
});
