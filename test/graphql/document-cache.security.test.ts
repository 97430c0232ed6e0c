import { parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DocumentCache, documentBytes } from "../../src/routes/gateway/plugins/document-cache.ts";
import { post, startTestGateway, type TestGateway } from "../support/harness.ts";
import { sized } from "../support/size.ts";

/**
 * The unified API's parsed documents are kept within graphql.documentCacheBytesMax, and what
 * failed to parse or validate is not kept at all: Yoga's own cache (1,024 texts, errors included,
 * each error holding its request's context through its stack) let fuzzing take the gateway from
 * 288 to 823 MB. The bound is asserted on the cache's own count of entries and
 * bytes, not on the process's memory.
 */

const doc = (i: number) => `{ a${i}: __typename b: __typename c: __typename }`;

describe("DocumentCache", () => {
  it("stays within its byte budget, dropping the least recently used", () => {
    const cache = new DocumentCache(1024 * 1024); // some 4 KiB each: about 250 fit
    for (let i = 0; i < 1_000; i++) cache.keep(doc(i), parse(doc(i)));
    expect(cache.stats.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(cache.stats.entries).toBeLessThan(1_000);
    expect(cache.stats.evictions).toBe(1_000 - cache.stats.entries);
    expect(cache.document(doc(999))).toBeDefined();
    expect(cache.document(doc(0))).toBeUndefined();
  });

  it("hands the same DocumentNode back for the same text (the cost memo keys on it)", () => {
    const cache = new DocumentCache(1024 * 1024);
    const parsed = parse(doc(1));
    cache.keep(doc(1), parsed);
    expect(cache.document(doc(1))).toBe(parsed);
  });

  it("does not keep a document over 1/64 of the budget, nor anything with a budget of 0", () => {
    const big = `{ ${Array.from({ length: 40 }, (_, i) => `a${i}: __typename`).join(" ")} }`;
    expect(documentBytes(big, parse(big))).toBeGreaterThan(16 * 1024);
    const cache = new DocumentCache(64 * 64 * 1024 - 1); // each entry at most 1 byte under 64 KiB
    cache.keep(big, parse(big));
    expect(cache.stats.entries).toBe(1);
    const small = new DocumentCache(64 * 1024); // entries up to 1 KiB
    small.keep(big, parse(big));
    expect(small.stats.entries).toBe(0);
    const none = new DocumentCache(0);
    none.keep("{ a }", parse("{ a }"));
    expect(none.document("{ a }")).toBeUndefined();
  });
});

describe("the unified API's document cache under distinct documents", () => {
  const BUDGET = 512 * 1024; // entries of up to 8 KiB; these are some 4 KiB each
  const SPELLINGS = sized(200, 300);
  let t: TestGateway;
  let url: string;
  beforeAll(async () => {
    t = await startTestGateway("pglite", { graphql: { documentCacheBytesMax: BUDGET } });
    const { token } = await t.account("documents", 1_000_000);
    url = `${t.url}/gateway/mainnet/${token}`;
  });
  afterAll(() => t?.close());

  it("keeps parsed documents within the budget and nothing of what did not parse", async () => {
    // A free document (introspection only) in more spellings than the budget holds (some 128),
    // each with a large variables blob.
    const blob = "x".repeat(20_000);
    // Ten at a time: the gateway's own work, not the round trips, is what fills the cache.
    for (let i = 0; i < SPELLINGS; i += 10) {
      const sent = Array.from({ length: 10 }, (_, j) =>
        post(url, { query: doc(i + j), variables: { blob } }),
      );
      for (const res of await Promise.all(sent)) expect(res.status).toBe(200);
    }
    const cache = (await t.gateway.app.unifiedApi()).documents;
    expect(cache?.stats.bytes).toBeLessThanOrEqual(BUDGET);
    expect(cache?.stats.entries).toBeLessThan(SPELLINGS);
    const kept = cache?.stats.entries ?? 0;
    // Unparsable documents: refused each time, and none of them kept.
    for (let i = 0; i < sized(20, 50); i++) {
      const res = await post(url, { query: `{ a${i}: `, variables: { blob } });
      expect(JSON.stringify(res.json)).toContain("GRAPHQL_PARSE_FAILED");
    }
    expect(cache?.stats.entries).toBe(kept);
  });

  it("validates a document once: the same text again skips validation (with graphql-armor's rules in force)", async () => {
    const cache = (await t.gateway.app.unifiedApi()).documents;
    const query = "{ __typename aliased: __typename }";
    const before = { ...cache.validations };
    for (let i = 0; i < 3; i++) {
      const res = await post(url, { query });
      expect(res.json).toEqual(
        expect.objectContaining({ data: { __typename: "Query", aliased: "Query" } }),
      );
    }
    expect(cache.validations.run - before.run).toBe(1);
    expect(cache.validations.skipped - before.skipped).toBe(2);
  });

  it("validates a shape once: other literal values skip validation, a value its type refuses does not", async () => {
    const cache = (await t.gateway.app.unifiedApi()).documents;
    // `extensions` (empty): never planned, so every one of these reaches Yoga's validation.
    const height = (h: string) => ({
      query: `{ block(limit: 1, where: {height: {_eq: ${h}}}) { height } }`,
      extensions: {},
    });
    const before = { ...cache.validations };
    for (const h of [5, 6, 7]) {
      const res = await post(url, height(String(h)));
      expect(res.json).toEqual(expect.objectContaining({ data: { block: [{ height: h }] } }));
    }
    expect(cache.validations.run - before.run).toBe(1);
    expect(cache.validations.byShape - before.byShape).toBe(2);
    // Of the same shape, but past Int's range: validated, and refused as graphql-js refuses it.
    for (let i = 0; i < 2; i++) {
      const res = await post(url, height("99999999999"));
      expect(res.json).toEqual({
        errors: [
          expect.objectContaining({
            message: "Int cannot represent non 32-bit signed integer value: 99999999999",
            extensions: { code: "GRAPHQL_VALIDATION_FAILED" },
          }),
        ],
      });
    }
    expect(cache.validations.run - before.run).toBe(3);
    // A response name twice: its fields' arguments must agree, so other values validate again.
    const twice = (a: number, b: number) => ({
      query: `{ x: block(limit: ${a}) { height } x: block(limit: ${b}) { height } }`,
      extensions: {},
    });
    expect((await post(url, twice(1, 1))).status).toBe(200);
    const conflict = await post(url, twice(1, 2));
    expect(JSON.stringify(conflict.json)).toContain(
      'Fields \\"x\\" conflict because they have differing arguments.',
    );
    expect(cache.validations.byShape - before.byShape).toBe(2);
  });

  it("refuses an invalid document as often as it is sent (its validation is not remembered)", async () => {
    for (let i = 0; i < 3; i++) {
      const res = await post(url, { query: "{ nope }" });
      expect(JSON.stringify(res.json)).toContain("GRAPHQL_VALIDATION_FAILED");
    }
    const ok = await post(url, { query: "{ __typename }" });
    expect(ok.json).toEqual(expect.objectContaining({ data: { __typename: "Query" } }));
  });
});
