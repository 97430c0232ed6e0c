import { describe, expect, it } from "vitest";
import { formatAmount, parseAmount } from "../../src/bitcoin/amount.ts";
import { descriptorChecksum } from "../../src/bitcoin/descriptor.ts";
import { fromHex } from "../../src/bitcoin/hex.ts";
import { scriptToAsm } from "../../src/bitcoin/script-asm.ts";
import { solve } from "../../src/bitcoin/solver.ts";

const SIG =
  "3044022013143209" +
  "0a6af42da3e8335ff110831b41a44f4e9d18d88f5d50278380696c7202200fc2e48938f323ad13625890c0ea926c8a189c08b8efc38376b20c8a2188e96e";

describe("formatAmount (Core's ValueFromAmount)", () => {
  it.each([
    [0n, "0.00000000"],
    [1n, "0.00000001"],
    [100_000n, "0.00100000"],
    [2_100_000_000_000_000n, "21000000.00000000"],
    [-1n, "-0.00000001"],
    [-150_000_000n, "-1.50000000"],
    [-9_223_372_036_854_775_808n, "-92233720368.54775808"],
  ])("%s → %s", (sats, text) => {
    expect(formatAmount(sats)).toBe(text);
    expect(parseAmount(text)).toBe(sats);
  });
});

describe("scriptToAsm (Core's ScriptToAsmStr)", () => {
  it.each([
    ["", ""],
    ["00", "0"],
    ["4f", "-1"],
    ["51", "1"],
    ["60", "16"],
    ["0181", "-1"],
    ["0180", "0"], // negative zero decodes as 0 without the minimal check
    ["02ff7f", "32767"],
    ["04ffffffff", "-2147483647"],
    ["050102030405", "0102030405"],
    ["4c0100", "0"],
    ["4c", "[error]"],
    ["02ee", "[error]"],
    ["6a02ee", "OP_RETURN [error]"],
    ["b1b2ba", "OP_CHECKLOCKTIMEVERIFY OP_CHECKSEQUENCEVERIFY OP_CHECKSIGADD"],
    ["bbfeff", "OP_UNKNOWN OP_UNKNOWN OP_INVALIDOPCODE"],
    ["50", "OP_RESERVED"],
  ])("%s → %s", (hex, asm) => {
    expect(scriptToAsm(fromHex(hex))).toBe(asm);
  });

  it("decodes sighash suffixes only when asked and only on strict DER + defined type", () => {
    const push = (h: string) => `${(h.length / 2).toString(16).padStart(2, "0")}${h}`;
    expect(scriptToAsm(fromHex(push(`${SIG}01`)), { sighashDecode: true })).toBe(`${SIG}[ALL]`);
    expect(scriptToAsm(fromHex(push(`${SIG}82`)), { sighashDecode: true })).toBe(
      `${SIG}[NONE|ANYONECANPAY]`,
    );
    expect(scriptToAsm(fromHex(push(`${SIG}83`)), { sighashDecode: true })).toBe(
      `${SIG}[SINGLE|ANYONECANPAY]`,
    );
    expect(scriptToAsm(fromHex(push(`${SIG}04`)), { sighashDecode: true })).toBe(`${SIG}04`);
    expect(scriptToAsm(fromHex(push(`${SIG}01`)))).toBe(`${SIG}01`);
    // OP_RETURN scripts are unspendable: no decoding.
    expect(scriptToAsm(fromHex(`6a${push(`${SIG}01`)}`), { sighashDecode: true })).toBe(
      `OP_RETURN ${SIG}01`,
    );
  });
});

describe("solve (Core's Solver)", () => {
  const key = `02${"ab".repeat(32)}`;
  const ukey = `04${"ab".repeat(64)}`;
  it.each([
    [`21${key}ac`, "pubkey"],
    [`41${ukey}ac`, "pubkey"],
    [`21${`05${"ab".repeat(32)}`}ac`, "nonstandard"],
    [`76a914${"00".repeat(20)}88ac`, "pubkeyhash"],
    [`a914${"00".repeat(20)}87`, "scripthash"],
    [`0014${"00".repeat(20)}`, "witness_v0_keyhash"],
    [`0020${"00".repeat(32)}`, "witness_v0_scripthash"],
    [`0015${"00".repeat(21)}`, "nonstandard"],
    [`5120${"00".repeat(32)}`, "witness_v1_taproot"],
    ["51024e73", "anchor"],
    ["5202abcd", "witness_unknown"],
    [`5121${key}51ae`, "multisig"],
    [`5121${key}21${key}52ae`, "multisig"],
    [`5221${key}51ae`, "nonstandard"], // required > keys
    [`010121${key}51ae`, "nonstandard"], // 1 pushed as data: not a minimal push
    ["6a", "nulldata"],
    ["6a0548656c6c6f", "nulldata"],
    ["6a61", "nonstandard"],
    ["", "nonstandard"],
  ])("%s → %s", (hex, type) => {
    expect(solve(fromHex(hex)).type).toBe(type);
  });

  it("20-key multisig with the count pushed as a number", () => {
    const keys = Array.from({ length: 20 }, () => `21${key}`).join("");
    expect(solve(fromHex(`0114${keys}0114ae`)).type).toBe("multisig");
    expect(solve(fromHex(`5a${keys}0114ae`)).type).toBe("multisig");
  });
});

describe("descriptorChecksum (BIP380)", () => {
  it("matches Core's examples", () => {
    expect(descriptorChecksum("raw(6a00)")).toBe("ncfmkl43");
    expect(descriptorChecksum("addr(193P6LtvS4nCnkDvM9uXn1gsSRqh4aDAz7)")).toBe("nw04wh58");
    expect(descriptorChecksum("addr(é)")).toBe("");
  });
});
