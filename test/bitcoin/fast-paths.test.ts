import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseBlock } from "../../src/bitcoin/block.ts";
import { fromHex } from "../../src/bitcoin/hex.ts";
import type { Network } from "../../src/bitcoin/network.ts";
import { ScriptPubKeyParts, scriptPubKeyToJson } from "../../src/bitcoin/tx-json.ts";
import { sized } from "../support/size.ts";
import { loadAllRawBlocks } from "./chain-data.ts";

/**
 * fromHex's check after decoding against the regular expression it replaced; and ScriptPubKeyParts, which computes each part of a scriptPubKey
 * on first use, against the whole object, whichever part is asked first.
 */
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

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

  // Each part asked first of one script in STRIDE of each type, the first of each among them
  // (of every script in bench/full-size.ts): the scripts of a type take the same paths.
  const STRIDE = sized(4, 1);

  it.each<Network>(["mainnet", "testnet"])("%s, each part asked first", (network) => {
    expect(scripts.size).toBeGreaterThan(5_000);
    const types = new Set<string>();
    const wrong: string[] = [];
    const seen = new Map<string, number>();
    for (const script of scripts.values()) {
      const whole = scriptPubKeyToJson(script, network);
      const text = JSON.stringify(whole);
      types.add(whole.type);
      const n = seen.get(whole.type) ?? 0;
      seen.set(whole.type, n + 1);
      if (n % STRIDE !== 0) continue;
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
