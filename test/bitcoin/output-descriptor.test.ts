import { describe, expect, it } from "vitest";
import { addChecksum } from "../../src/bitcoin/index.ts";
import {
  DescriptorRefusal,
  descriptorBranchCount,
  parseDescriptor,
} from "../../src/bitcoin/output-descriptor.ts";

// BIP84's and BIP86's account keys ("abandon … about"), with their first addresses.
const XPUB84 =
  "xpub6CatWdiZiodmUeTDp8LT5or8nmbKNcuyvz7WyksVFkKB4RHwCD3XyuvPEbvqAQY3rAPshWcMLoP2fMFMKHPJ4ZeZXYVUhLv1VMrjPC7PW6V";
const XPUB86 =
  "xpub6BgBgsespWvERF3LHQu6CnqdvfEvtMcQjYrcRzx53QJjSxarj2afYWcLteoGVky7D3UKDP9QyrLprQ3VCECoY49yfdDEHGCtMMj92pReUsQ";
const TPUB =
  "tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp";
const TPRV =
  "tprv8ZgxMBicQKsPeDgjzdC36fs6bMjGApWDNLR9erAXMs5skhMv36j9MV5ecvfavji5khqjWaWSFhN3YcCUUdiKH6isR4Pwy3U5y5egddBr16m";
const WIF = "KwDiBf89QgGbjEhKnhXJuH7LrciVrZi3qYjgd9M7rFU73sVHnoWn";

const refusal = (text: string, network: "mainnet" | "regtest" = "mainnet") => {
  try {
    parseDescriptor(text, network);
  } catch (err) {
    expect(err).toBeInstanceOf(DescriptorRefusal);
    return (err as Error).message;
  }
  throw new Error("not refused");
};

describe("parseDescriptor", () => {
  it("derives BIP84's receive and change addresses from one multipath descriptor", () => {
    const d = parseDescriptor(
      addChecksum(`wpkh([73c5da0a/84'/0'/0']${XPUB84}/<0;1>/*)`),
      "mainnet",
    );
    expect(d.branches).toEqual([0, 1]);
    expect(d.ranged).toBe(true);
    expect(d.at(0, 0).address).toBe("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu");
    expect(d.at(0, 1).address).toBe("bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g");
    expect(d.at(1, 0).address).toBe("bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el");
  });

  it("tr: BIP86's first address; sh(wpkh), multi and sortedmulti parse", () => {
    const tr = parseDescriptor(`tr(${XPUB86}/0/*)`, "mainnet");
    expect(tr.branches).toEqual([null]);
    expect(tr.at(null, 0).address).toBe(
      "bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr",
    );
    expect(parseDescriptor(`sh(wpkh(${TPUB}/0/*))`, "regtest").at(null, 0).address).toMatch(/^2/);
    const multi = parseDescriptor(
      `wsh(sortedmulti(1,${TPUB}/7/<0;1>/*,${TPUB}/8/<0;1>/*))`,
      "regtest",
    );
    expect(multi.at(0, 0).address).toMatch(/^bcrt1q/);
    expect(parseDescriptor(`sh(multi(1,${TPUB}/0/*))`, "regtest").at(null, 4).address).toMatch(
      /^2/,
    );
  });

  it("a descriptor without * is one address", () => {
    const d = parseDescriptor(`wpkh(${XPUB84}/0/0)`, "mainnet");
    expect(d.ranged).toBe(false);
    expect(d.at(null, null).address).toBe("bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu");
  });

  it("refuses private keys without quoting them", () => {
    for (const key of [TPRV, WIF]) {
      const message = refusal(`wpkh(${key}/0/*)`.replace(`${WIF}/0/*`, WIF), "regtest");
      expect(message).toContain("private key");
      expect(message).not.toContain(key.slice(4, 30));
    }
  });

  it("refuses a bad checksum, another network's key, what does not parse", () => {
    const good = addChecksum(`wpkh(${TPUB}/0/*)`);
    expect(refusal(`${good.slice(0, -1)}${good.endsWith("q") ? "p" : "q"}`, "regtest")).toContain(
      "checksum",
    );
    expect(refusal(`wpkh(${TPUB}/0/*)`, "mainnet")).toContain("not of mainnet");
    expect(refusal(`wpkh(${XPUB84}/0/*)`, "regtest")).toContain("not of regtest");
    const bad = refusal(`pkh(${TPUB}/0/*`, "regtest");
    expect(bad).not.toContain(TPUB.slice(4, 30));
  });

  it("counts the branches of a multipath step", () => {
    expect(descriptorBranchCount(`wpkh(${TPUB}/<0;1>/*)`)).toBe(2);
    expect(descriptorBranchCount(`wpkh(${TPUB}/<0;1;2>/*)`)).toBe(3);
    expect(descriptorBranchCount(`wpkh(${TPUB}/0/*)`)).toBe(1);
  });
});
