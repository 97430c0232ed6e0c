import { getHeapSpaceStatistics } from "node:v8";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseRequestBody } from "../../src/protocol/json/envelope.ts";
import { parseJson, stringifyJson } from "../../src/protocol/json/json.ts";
import { parseJsonLiftingStrings } from "../../src/protocol/json/long-strings.ts";
import { post, startTestGateway, type TestGateway } from "../support/harness.ts";

/**
 * Clients' JSON-RPC bodies are parsed with their long strings lifted out of lossless-json's way
 * (src/protocol/json/long-strings.ts): the same value as parseJson gives, the same refusals, and a 1 MiB
 * string parameter is no longer copied and scanned again and again (bench/fuzz measures it).
 */

/** What a parse gives, comparable: its JSON text (numbers as written), or that it threw. */
function outcome(parse: (text: string) => unknown, text: string): string {
  try {
    return stringifyJson(parse(text));
  } catch {
    return "(refused)";
  }
}

const long = fc.oneof(
  fc.string({ minLength: 250, maxLength: 700 }),
  fc.string({ maxLength: 5 }).map((s) => `\uE000${s}`),
  fc.constantFrom("\uE0000", "\uE0001", `${"a".repeat(300)}\\n`, `${"b".repeat(300)}\u0001`),
  // Escaped, these decode to what reads like a placeholder.
  fc.constantFrom("\\uE0000", "\\ue0001", "\uE000\\n", "\uE0000\\t"),
);

/** JSON texts with long strings as values and keys, repeated, escaped, with odd spacing, or cut. */
const texts = fc
  .tuple(
    fc.array(fc.tuple(fc.oneof(long, fc.string({ maxLength: 4 })), fc.oneof(long, fc.integer())), {
      maxLength: 5,
    }),
    fc.constantFrom("", " ", "\n\t"),
    fc.nat(),
    fc.boolean(),
  )
  .map(([pairs, ws, cut, whole]) => {
    const text = `{${pairs
      .map(([k, v]) => `${JSON.stringify(k)}${ws}:${ws}${typeof v === "string" ? `"${v}"` : v}`)
      .join(`,${ws}`)}}`;
    return whole ? text : text.slice(0, cut % (text.length + 1));
  });

describe("parseJsonLiftingStrings", () => {
  it("gives what parseJson gives, and refuses what it refuses", () => {
    fc.assert(
      fc.property(texts, (text) => {
        expect(outcome(parseJsonLiftingStrings, text)).toBe(outcome(parseJson, text));
      }),
      { numRuns: 500 },
    );
  });

  it("keeps a duplicate key with the same long value as parseJson does, and a __proto__ key as a property", () => {
    const s = "x".repeat(400);
    const dup = `{"a":"${s}","a":"${s}"}`;
    expect(outcome(parseJsonLiftingStrings, dup)).toBe(outcome(parseJson, dup));
    const proto = `{"__proto__":"${s}"}`;
    const value = parseJsonLiftingStrings(proto) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(value, "__proto__")?.value).toBe(s);
  });

  it("puts back keys that read like placeholders (found by this property, at more runs)", () => {
    // Lifted in their turn, "\uE0001" and "\uE000" become each other's placeholders.
    const text = `{"\uE0001":0,"${"a".repeat(300)}":1,"\uE000":2}`;
    expect(outcome(parseJsonLiftingStrings, text)).toBe(outcome(parseJson, text));
    expect(Object.keys(parseJsonLiftingStrings(text) as object)).toEqual([
      "\uE0001",
      "a".repeat(300),
      "\uE000",
    ]);
  });

  it("reads a string with escapes that decodes to what reads like a placeholder as itself (found by this property)", () => {
    const long = " ".repeat(256);
    const texts = [
      `{"${long}":"","\uE0000":"\uE000\\n"}`,
      `{"${long}":"","a":"\\uE0000"}`,
      `{"${long}":"","\\ue000\\u0030":1}`,
      `["${long}", "\\uE0000"]`,
    ];
    for (const text of texts) {
      expect(outcome(parseJsonLiftingStrings, text)).toBe(outcome(parseJson, text));
    }
  });

  it("reads a 1 MiB object key in a few MB and milliseconds, as a value", () => {
    const key = "k".repeat(1_000_000);
    // Spaced, so the canonical reader declines it and lossless-json's parser reads it.
    const body = `{ "jsonrpc": "2.0", "id": 1, "method": "getblockcount", "params": { "${key}": 1 } }`;
    const used = () => getHeapSpaceStatistics().reduce((n, s) => n + s.space_used_size, 0);
    const before = used();
    const started = performance.now();
    const parsed = parseRequestBody(body);
    const ms = performance.now() - started;
    expect(used() - before).toBeLessThan(8_000_000);
    expect(ms).toBeLessThan(1_000);
    expect(parsed).toMatchObject({ kind: "single", item: { params: { [key]: { value: "1" } } } });
  });

  it("reads a 1 MiB string parameter in a few MB and milliseconds", () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "getrawtransaction",
      params: ["a".repeat(1_000_000), true],
    });
    const used = () => getHeapSpaceStatistics().reduce((n, s) => n + s.space_used_size, 0);
    const before = used();
    const started = performance.now();
    const parsed = parseRequestBody(body);
    const ms = performance.now() - started;
    expect(used() - before).toBeLessThan(8_000_000); // 30 MB through lossless-json alone
    // 330 ms through lossless-json alone on a quiet machine; a few here, but the suite shares
    // its cores, so only a bound no loaded run comes near.
    expect(ms).toBeLessThan(1_000);
    expect(parsed).toMatchObject({
      kind: "single",
      item: { kind: "call", method: "getrawtransaction" },
    });
  });
});

describe("a body with long strings, through the node route", () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway("pglite", { networks: ["mainnet"] });
  });
  afterAll(() => t?.close());

  it("reaches the node as sent when a parameter, escaped, reads like a placeholder", async () => {
    const { token } = await t.account("placeholder", 1_000_000);
    // The long id is lifted out before parsing; the parameter is not (it holds an escape), and
    // decodes to what reads like the first placeholder.
    const id = "i".repeat(300);
    const body = `{"jsonrpc":"2.0","id":"${id}","method":"getrawtransaction","params":["\\uE0000"]}`;
    const answer = await post(`${t.url}/node/mainnet/${token}`, body);
    const json = answer.json as { id: string; error: { message: string } };
    expect(json.id).toBe(id);
    // Core's refusal names the parameter it was given: the client's, not the id.
    expect(json.error.message).toContain("\uE0000");
    expect(json.error.message).not.toContain(id);
  });
});
