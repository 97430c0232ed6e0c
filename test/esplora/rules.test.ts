import { describe, expect, it } from "vitest";
import { fromHex } from "../../src/bitcoin/index.ts";
import { rustFloat } from "../../src/devnet/esplora/reply.ts";
import { rustAsm, scriptAddress, scriptType } from "../../src/devnet/esplora/script.ts";
import { readEsploraRequest } from "../../src/protocol/esplora/request.ts";
import { esploraScripthash } from "../../src/protocol/esplora/script.ts";

const TXID = "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16";

describe("electrs' path rules", () => {
  it("reads each endpoint and its parameters as electrs does", () => {
    expect(readEsploraRequest("GET", `/tx/${TXID.toUpperCase()}/outspend/+7`, "")).toEqual({
      endpoint: "esplora.tx.outspend",
      txid: TXID,
      number: 7,
    });
    // Unparsable start heights and indexes fall back as electrs' unwrap_or does.
    expect(readEsploraRequest("GET", "/blocks/tip", "")).toEqual({ endpoint: "esplora.blocks" });
    expect(readEsploraRequest("GET", `/block/${TXID}/txs/x`, "")).toEqual({
      endpoint: "esplora.block.txs",
      hash: TXID,
      number: 0,
    });
    expect(readEsploraRequest("GET", "/address/a/txs/chain/zz", "")).toEqual({
      endpoint: "esplora.address.txs.chain",
      script: { kind: "address", text: "a" },
    });
    expect(readEsploraRequest("POST", "/tx", "00")).toEqual({
      endpoint: "esplora.tx.broadcast",
      body: "00",
    });
  });

  it("refuses in electrs' words", () => {
    expect(readEsploraRequest("GET", "/tx/abc", "")).toEqual({
      status: 400,
      text: "Invalid hex string",
    });
    expect(readEsploraRequest("GET", `/tx/${TXID}/outspend/4294967296`, "")).toEqual({
      status: 400,
      text: "Invalid number",
    });
    expect(readEsploraRequest("GET", `/tx/${TXID}/`, "")).toEqual({
      status: 404,
      text: `endpoint does not exist "/tx/${TXID}/"`,
    });
    expect(readEsploraRequest("POST", "/tx/x", "")).toMatchObject({ status: 404 });
    expect(esploraScripthash({ kind: "scripthash", text: "abc" }, "mainnet")).toEqual({
      status: 400,
      text: "Invalid hex string",
    });
    // A testnet address is accepted on regtest (they share base58 prefixes), not on mainnet.
    const testnet = { kind: "address" as const, text: "mipcBbFg9gMiCh81Kj8tqqdgoZub1ZJRfn" };
    expect(esploraScripthash(testnet, "regtest")).toHaveProperty("scripthash");
    expect(esploraScripthash(testnet, "mainnet")).toEqual({
      status: 400,
      text: "Address on invalid network",
    });
  });
});

describe("rust-bitcoin's script rendering", () => {
  const p2wpkh = fromHex("0014751e76e8199196d454941c45d1b3a323f1433bd6");
  const p2tr = fromHex(`5120${"79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"}`);

  it("writes assembly as rust-bitcoin does", () => {
    expect(rustAsm(p2wpkh)).toBe("OP_0 OP_PUSHBYTES_20 751e76e8199196d454941c45d1b3a323f1433bd6");
    expect(rustAsm(fromHex("4c02abcd51ba bb b1 b2 4f".replaceAll(" ", "")))).toBe(
      "OP_PUSHDATA1 abcd OP_PUSHNUM_1 OP_CHECKSIGADD OP_RETURN_187 OP_CLTV OP_CSV OP_PUSHNUM_NEG1",
    );
    expect(rustAsm(fromHex("0301"))).toBe("OP_PUSHBYTES_3 <push past end>");
    expect(rustAsm(fromHex("4d01"))).toBe("<unexpected end>");
  });

  it("types scripts and gives addresses as Esplora does", () => {
    expect(scriptType(p2wpkh)).toBe("v0_p2wpkh");
    expect(scriptAddress(p2wpkh, "mainnet")).toBe("bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4");
    expect(scriptType(p2tr)).toBe("v1_p2tr");
    expect(scriptAddress(p2tr, "mainnet")).toMatch(/^bc1p/);
    const p2pk = fromHex(`21${"02".padEnd(66, "1")}ac`);
    expect(scriptType(p2pk)).toBe("p2pk");
    expect(scriptAddress(p2pk, "mainnet")).toBeUndefined();
    expect(scriptType(fromHex("6a00"))).toBe("op_return");
    expect(scriptType(fromHex("50"))).toBe("provably_unspendable");
    expect(scriptType(new Uint8Array())).toBe("empty");
  });

  it("writes floats as serde_json does", () => {
    expect(rustFloat(1)).toBe("1.0");
    expect(rustFloat(0.1 + 0.2)).toBe("0.30000000000000004");
    expect(rustFloat(Math.fround(53.01), true)).toBe("53.01");
  });
});
