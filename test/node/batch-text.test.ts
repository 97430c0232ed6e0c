import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  parseCanonical,
  scalarsOfSpans,
  scanBatchAnswer,
} from "../../src/protocol/json/canonical-json.ts";
import {
  isJsonObject,
  type Json,
  parseJson,
  RawJsonText,
  stringifyJson,
} from "../../src/protocol/json/json.ts";

import { answerForReply } from "../../src/protocol/json/raw-answer.ts";
import { BitcoinCoreClient } from "../../src/upstreams/bitcoin-core/client.ts";

/** What the node route wrote before: the result parsed losslessly and written again. */
const rerendered = (text: string) => stringifyJson(parseJson(text));

describe("scanBatchAnswer", () => {
  it("splits Core's items into the raw text of result, error and id, in order", () => {
    const text =
      '[{"result":"0100ab","error":null,"id":7},{"result":null,"error":{"code":-5,"message":"No such mempool or blockchain transaction. Use gettransaction for wallet transactions."},"id":8},{"id":9,"result":{"a":[1,[2,[3]]],"b":"x"}}]\n';
    expect(scanBatchAnswer(text)).toEqual([
      { result: '"0100ab"', error: "null", id: "7" },
      {
        result: "null",
        error:
          '{"code":-5,"message":"No such mempool or blockchain transaction. Use gettransaction for wallet transactions."}',
        id: "8",
      },
      {
        result: '{"a":[1,[2,[3]]],"b":"x"}',
        scalars: [{ key: "b", start: 21, end: 24 }],
        error: undefined,
        id: "9",
      },
    ]);
  });

  it("keeps strings with escaped quotes, backslashes and brackets whole", () => {
    const result = String.raw`{"asm":"a\"b\\c]}{[,:","x":["\"]","\n\t\r\b\f"]}`;
    const items = scanBatchAnswer(`[{"result":${result},"id":1}]`);
    expect(items?.[0]?.result).toBe(result);
    expect(rerendered(result)).toBe(result);
  });

  it("keeps numbers exactly as Core spelled them", () => {
    const result = '{"fee":0.00000001,"tiny":1e-8,"big":2.1E+15,"neg":-0,"zero":0,"n":[-12,3.50]}';
    const items = scanBatchAnswer(`[{"result":${result},"error":null,"id":-3}]`);
    expect(items?.[0]).toMatchObject({ result, error: "null", id: "-3" });
    expect(rerendered(result)).toBe(result);
    // And its scalar members read from their spans as Core spelled them.
    const item = items?.[0];
    expect(item?.scalars && scalarsOfSpans(result, item.scalars)).toStrictEqual(
      scalarMembers(parseJson(result) as { [key: string]: Json }),
    );
    expect(stringifyJson(item?.scalars && scalarsOfSpans(result, item.scalars))).toBe(
      '{"fee":0.00000001,"tiny":1e-8,"big":2.1E+15,"neg":-0,"zero":0}',
    );
  });

  it("takes whitespace around the envelope, and an empty batch", () => {
    expect(
      scanBatchAnswer(' [ { "result" : "a" , "id" : 1 } ,\n{"id":2,"result":true} ]\n'),
    ).toEqual([
      { result: '"a"', error: undefined, id: "1" },
      { result: "true", error: undefined, id: "2" },
    ]);
    expect(scanBatchAnswer("[]\n")).toEqual([]);
    expect(scanBatchAnswer('[{"id":null,"result":1}]')).toEqual([
      { result: "1", error: undefined, id: "null" },
    ]);
  });

  it("gives up (null) on anything re-rendering would change, so it is parsed as before", () => {
    for (const result of [
      '{"a": 1}', // whitespace inside a value
      "[1, 2]",
      '"\\u0041"', // \u escapes: written back as the character
      '"a\\/b"',
      '{"a":1,"a":1}', // repeated key: one survives
      '{"b":1,"10":2}', // integer-like keys are written first
      '{"__proto__":1}',
      '{"a\\"b":1}', // escaped key
    ]) {
      expect(scanBatchAnswer(`[{"result":${result},"id":1}]`), result).toBeNull();
    }
  });

  it("gives up (null) on malformed text, for the full parse to refuse as before", () => {
    for (const text of [
      "",
      "{}",
      '{"result":1,"id":1}',
      "[1]",
      '[{"result":1,"id":1}',
      '[{"result":1,"id":1}]x',
      '[{"result":1,"id":1},]',
      '[{"result":01,"id":1}]',
      '[{"result":1.,"id":1}]',
      '[{"result":-,"id":1}]',
      '[{"result":1e,"id":1}]',
      '[{"result":tru,"id":1}]',
      '[{"result":"abc,"id":1}]',
      '[{"result":"a\u0001","id":1}]',
      '[{"result":"\\x","id":1}]',
      '[{"result":1,"result":2,"id":1}]',
      // Cut short in a number, a literal, a string, a key.
      '[{"result":1',
      '[{"result":12',
      '[{"result":1.5e',
      '[{"result":tr',
      '[{"result":"ab',
      '[{"res',
      `[{"result":${"[".repeat(10_000)}${"]".repeat(10_000)},"id":1}]`,
    ]) {
      expect(scanBatchAnswer(text), text.slice(0, 40)).toBeNull();
    }
  });

  it("finds, for any JSON value in compact form, the text that re-renders to itself", () => {
    const numbers = fc
      .tuple(fc.integer(), fc.nat(99_999_999), fc.boolean())
      .map(([i, f, frac]) => (frac ? `${i}.${String(f).padStart(8, "0")}` : String(i)));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        fc.string({ unit: "grapheme" }),
        numbers.map((n) => parseJson(n)),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(fc.string(), tie("node"), { maxKeys: 4 }),
      ),
    })).node;
    let scanned = 0;
    fc.assert(
      fc.property(fc.array(value, { maxLength: 5 }), (results) => {
        const texts = results.map((r) => stringifyJson(r));
        const items = scanBatchAnswer(
          `[${texts.map((t, i) => `{"result":${t},"error":null,"id":${i}}`).join(",")}]`,
        );
        if (items === null) return; // not canonical: parsed in full, as before
        scanned++;
        expect(items.map((i) => i.result)).toEqual(texts);
        for (const t of texts) {
          expect(rerendered(t)).toBe(t);
          // Read as lossless-json reads it: same values, same key order, same number literals.
          expect(parseCanonical(t)).toStrictEqual(parseJson(t));
          expect(stringifyJson(parseCanonical(t))).toBe(t);
          // An object's scalar members alone: the same values, in order, its containers left out.
          const whole = parseJson(t);
          if (isJsonObject(whole)) {
            expect(scannedScalars(t)).toStrictEqual(scalarMembers(whole));
          } else {
            expect(scannedScalars(t)).toBeUndefined();
          }
        }
      }),
      { numRuns: 300 },
    );
    // Most generated values are canonical: the property is not checked on a handful only.
    expect(scanned).toBeGreaterThan(150);
  });
});

describe("parseCanonical", () => {
  it("reads canonical text as lossless-json does", () => {
    for (const t of [
      '{"hex":"0100","vout":[{"value":0.00000001,"n":0},{"value":1e-8,"n":1}],"fee":-0.5}',
      String.raw`{"asm":"a\"b\\c]}{[,:","x":["\"]","\n\t\r\b\f"],"y":[[],{}],"z":[true,false,null]}`,
      '"plain"',
      "12345678901234567890.123456789",
      "[]",
    ]) {
      expect(parseCanonical(t)).toStrictEqual(parseJson(t));
    }
  });

  it("finds, while scanning, an object result's scalar members, read as parseCanonical reads them", () => {
    const t =
      '{"txid":"ab","vin":[{"txid":"cd","scriptSig":{"asm":"]}\\"{"}}],"vout":[],"hex":"0100","blockhash":"ef","confirmations":6,"time":1,"fee":-0.5,"x":null,"y":true}';
    expect(scannedScalars(t)).toStrictEqual(scalarMembers(parseJson(t) as { [key: string]: Json }));
    // Escaped quotes and backslashes, brackets inside strings: the spans are the members' own.
    const tricky = String.raw`{"a":["\\",{"b":"\"]}"}],"c":"\\\\","d":{"e":"[{\\"},"f":1}`;
    expect(scannedScalars(tricky)).toStrictEqual({ c: "\\\\", f: parseJson("1") });
    expect(Object.keys(scannedScalars(t) ?? {})).toEqual([
      "txid",
      "hex",
      "blockhash",
      "confirmations",
      "time",
      "fee",
      "x",
      "y",
    ]);
    // Not an object, not canonical (even inside a container it passes over), or malformed: none.
    for (const bad of [
      '"a"',
      "[1]",
      '{"a":[1, 2]}',
      '{"a":{"b":"\\u0041"}}',
      '{"a":1',
      '{"a":1}x',
    ]) {
      expect(scannedScalars(bad), bad).toBeUndefined();
    }
  });

  it("declines (undefined) what it would not pass on, and malformed text", () => {
    for (const t of [
      '{"a": 1}',
      '"\\u0041"',
      '{"a":1,"a":1}',
      '{"1":2}',
      "01",
      "[1,]",
      '"a',
      "1 x",
    ]) {
      expect(parseCanonical(t), t).toBeUndefined();
    }
  });
});

describe("BitcoinCoreClient with answers kept as text", () => {
  let answer = "";
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end(answer));
  });
  let client: BitcoinCoreClient;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    client = new BitcoinCoreClient({
      url: `http://127.0.0.1:${port}/`,
      user: "u",
      password: "p",
      connections: 1,
      timeoutMs: 5_000,
    } as ConstructorParameters<typeof BitcoinCoreClient>[0]);
  });
  afterAll(async () => {
    await client.close();
    server.close();
  });

  const calls = [
    { method: "getrawtransaction", params: [] },
    { method: "getrawtransaction", params: [] },
    { method: "getblockheader", params: [] },
  ];

  it("answers in call order whatever Core's order, results readable and rendered as sent", async () => {
    // The client numbers its calls from 1: Core may answer a batch in any order.
    const verbose = '{"txid":"ab","vout":[{"value":0.00000001,"n":0}],"fee":1e-8}';
    answer = `[{"result":${verbose},"error":null,"id":3},{"result":null,"error":{"code":-5,"message":"No such \\"tx\\""},"id":2},{"result":"0100","error":null,"id":1}]\n`;
    const out = await client.batch(calls);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    const [first, second, third] = out.answers;
    expect(first).toEqual({ result: "0100" });
    expect(second).toEqual({ error: { code: -5, message: 'No such "tx"' } });
    expect(stringifyJson(third && "result" in third ? third.result : undefined)).toBe(verbose);
    expect({ ...third }).toEqual({ result: parseJson(verbose) });
    expect(answerForReply(third!)).toEqual({ result: new RawJsonText(verbose) });
    expect(stringifyJson({ id: 1, ...answerForReply(third!) })).toBe(
      `{"id":1,"result":${verbose}}`,
    );
    // An answer built in code is rendered as it is.
    expect(answerForReply(second!)).toBe(second);
  });

  it("reads an answer it cannot scan as before (whitespace, escapes)", async () => {
    answer =
      '[ {"result": {"a": "\\u0041"}, "error": null, "id": 4},{"result":1,"id":5},{"result":[ ],"id":6}]';
    const out = await client.batch(calls);
    expect(out.ok && out.answers).toEqual([
      { result: { a: "A" } },
      { result: parseJson("1") },
      { result: [] },
    ]);
    if (out.ok) expect(answerForReply(out.answers[0]!)).toBe(out.answers[0]);
  });

  it("refuses what it refused before, for the same reasons", async () => {
    for (const [text, why] of [
      ['[{"result":1,"id":7}]', "answer count differs|no answer for id"],
      ['[{"result":1,"id":"x"},{"result":1,"id":11},{"result":1,"id":12}]', "without a numeric id"],
      [
        '[{"error":{"code":"x","message":"m"},"id":13},{"result":1,"id":14},{"result":1,"id":15}]',
        "malformed error",
      ],
      ['[{"id":16},{"result":1,"id":17},{"result":1,"id":18}]', "neither result nor error"],
      ['{"result":1,"id":19}', "not an array"],
      ['[{"result":1,"id":20}', "not JSON"],
    ] as const) {
      answer = text;
      const out = await client.batch(calls);
      expect(out.ok, text).toBe(false);
      if (!out.ok) expect(out.error.detail, text).toMatch(new RegExp(why));
    }
  });
});

/** The members of an object whose values are not objects or arrays, in order. */
function scalarMembers(o: { [key: string]: Json }): { [key: string]: Json } {
  return Object.fromEntries(
    Object.entries(o).filter(([, v]) => !Array.isArray(v) && !isJsonObject(v)),
  );
}

/** The scalar members of `t` as the batch scan finds them (undefined: not an object, or refused). */
function scannedScalars(t: string): { [key: string]: Json } | undefined {
  const item = scanBatchAnswer(`[{"result":${t},"id":0}]`)?.[0];
  return item?.result !== undefined && item.scalars
    ? scalarsOfSpans(item.result, item.scalars)
    : undefined;
}
