import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeScriptToUniv } from "../../src/bitcoin/decode-script.ts";
import { fromHex } from "../../src/bitcoin/hex.ts";
import { ORACLE_DIR } from "./chain-data.ts";
import { parseLossless, roundTrip } from "./lossless.ts";

const cases = parseLossless(
  readFileSync(join(ORACLE_DIR, "decodescript", "rpc_decodescript.json"), "utf8"),
) as [string, Record<string, unknown>][];

describe("decodescript oracle (regtest)", () => {
  it("has 10 cases", () => expect(cases).toHaveLength(10));

  for (const [hex, want] of cases) {
    it(hex.length > 24 ? `${hex.slice(0, 24)}…` : hex, () => {
      // The upstream file is hand-written, so its key order is not Core's: compare as objects.
      expect(roundTrip(decodeScriptToUniv(fromHex(hex), "regtest"))).toEqual(want);
    });
  }

  it("wraps bare multisig into wsh(multi()) and P2SH", () => {
    const k1 = `02${"11".repeat(32)}`;
    const k2 = `03${"22".repeat(32)}`;
    const script = fromHex(`5221${k1}21${k2}52ae`);
    const r = decodeScriptToUniv(script, "regtest");
    expect(r.type).toBe("multisig");
    expect(r.desc.startsWith(`multi(2,${k1},${k2})#`)).toBe(true);
    expect(r.p2sh?.startsWith("2")).toBe(true);
    expect(r.segwit?.desc.startsWith(`wsh(multi(2,${k1},${k2}))#`)).toBe(true);
    expect(r.segwit?.type).toBe("witness_v0_scripthash");
  });
});
