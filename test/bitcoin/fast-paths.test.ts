import { createHash } from "node:crypto";
import { base58, createBase58check } from "@scure/base";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeBase58, encodeBase58Check } from "../../src/bitcoin/base58.ts";
import { parseBlock } from "../../src/bitcoin/block.ts";
import { sha256, sha256d } from "../../src/bitcoin/hash.ts";
import { fromHex } from "../../src/bitcoin/hex.ts";
import type { Network } from "../../src/bitcoin/network.ts";
import { ScriptPubKeyParts, scriptPubKeyToJson } from "../../src/bitcoin/tx-json.ts";
import { loadAllRawBlocks } from "./chain-data.ts";

/**
 * The codec's own base58 encoder and one-block SHA-256 (both written for speed: address encoding
 * was most of the cost of decoding a block's outputs) against what they replaced: @scure/base's
 * base58 and OpenSSL's SHA-256; fromHex's check after decoding against the regular expression it
 * replaced. And ScriptPubKeyParts, which computes each part of a scriptPubKey
 * on first use, against the whole object, whichever part is asked first.
 */
const opensslSha256 = (b: Uint8Array) => new Uint8Array(createHash("sha256").update(b).digest());
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const scureCheck = createBase58check(opensslSha256);
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 120 }),
  // Leading zeros, the one special case of base58.
  fc
    .tuple(fc.nat({ max: 8 }), fc.uint8Array({ maxLength: 40 }))
    .map(([zeros, rest]) => Uint8Array.from([...new Array<number>(zeros).fill(0), ...rest])),
  fc.constantFrom(new Uint8Array(0), new Uint8Array(25), new Uint8Array(25).fill(255)),
);

describe("base58 and SHA-256, against the implementations they replaced", () => {
  it("encodeBase58 writes what @scure/base writes", () => {
    fc.assert(
      fc.property(bytes, (b) => encodeBase58(b) === base58.encode(b)),
      { numRuns: 5_000, seed: 14 },
    );
  });

  it("encodeBase58Check writes what @scure/base writes with OpenSSL's SHA-256", () => {
    fc.assert(
      fc.property(bytes, (b) => encodeBase58Check(b) === scureCheck.encode(b)),
      { numRuns: 2_000, seed: 14 },
    );
  });

  it("sha256 and sha256d agree with OpenSSL at every length around the one-block bound", () => {
    for (let length = 0; length <= 200; length++) {
      for (const fill of [0, 0xff, -1]) {
        const data = Uint8Array.from({ length }, (_, i) =>
          fill < 0 ? (i * 151 + 7) & 0xff : fill,
        );
        expect(hex(sha256(data))).toBe(hex(opensslSha256(data)));
        expect(hex(sha256d(data))).toBe(hex(opensslSha256(opensslSha256(data))));
      }
    }
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 130 }),
        (b) => hex(sha256(b)) === hex(opensslSha256(b)),
      ),
      { numRuns: 5_000, seed: 14 },
    );
  });
});

describe("fromHex", () => {
  const HEX = /^(?:[0-9a-fA-F]{2})*$/;
  const decodes = (s: string) => {
    try {
      fromHex(s);
      return true;
    } catch {
      return false;
    }
  };
  it("accepts exactly the strings of hex digit pairs", () => {
    const digit = fc.constantFrom(..."0123456789abcdefABCDEF");
    const other = fc.constantFrom(..."gGxz -\0\u00e9\u0100\ud83d", "\ud83d\ude00");
    const text = fc
      .array(fc.oneof({ arbitrary: digit, weight: 12 }, { arbitrary: other, weight: 1 }), {
        maxLength: 14,
      })
      .map((a) => a.join(""));
    fc.assert(
      fc.property(text, (s) => decodes(s) === HEX.test(s)),
      { numRuns: 20_000, seed: 14 },
    );
    expect(hex(fromHex("00ffAb"))).toBe("00ffab");
  });
});

describe("ScriptPubKeyParts: each part alone is the part of Core's whole object", () => {
  // Every distinct output script of every held block.
  const scripts = new Map<string, Uint8Array>();
  for (const { bytes: b } of loadAllRawBlocks()) {
    for (const tx of parseBlock(b).transactions) {
      for (const o of tx.outputs) scripts.set(hex(o.scriptPubKey), o.scriptPubKey);
    }
  }
  const parts = ["asm", "desc", "hex", "address", "type"] as const;

  it.each<Network>(["mainnet", "testnet"])("%s, each part asked first", (network) => {
    expect(scripts.size).toBeGreaterThan(5_000);
    const types = new Set<string>();
    const wrong: string[] = [];
    for (const script of scripts.values()) {
      const whole = scriptPubKeyToJson(script, network);
      const text = JSON.stringify(whole);
      types.add(whole.type);
      for (const first of parts) {
        const p = new ScriptPubKeyParts(script, network);
        if (p[first] !== whole[first] || JSON.stringify(p.toJson()) !== text) {
          wrong.push(`${first} first: ${whole.hex}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    // The held blocks cover every kind of address the encoders write, and scripts without one.
    for (const type of [
      "pubkey",
      "pubkeyhash",
      "scripthash",
      "witness_v0_keyhash",
      "witness_v1_taproot",
      "nulldata",
    ]) {
      expect(types).toContain(type);
    }
  });
});
