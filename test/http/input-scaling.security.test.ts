import { parse } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentNesting, variablesNesting } from "../../src/protocol/graphql/nesting.ts";
import { selectionNesting } from "../../src/protocol/graphql/spread-nesting.ts";
import { checkGraphQuery } from "../../src/protocol/hasura/check.ts";
import { type GraphRequest, parseGraphRequest } from "../../src/protocol/hasura/request.ts";
import { indexerSchema } from "../../src/protocol/hasura/schema.ts";
import { scanBatchAnswer } from "../../src/protocol/json/canonical-json.ts";
import { parseRequestBody } from "../../src/protocol/json/envelope.ts";
import {
  fragmentChain,
  HOSTILE_SHAPES,
  HOSTILE_SIZES,
  type HostileShape,
  hostileCase,
  nestedAndLiteral,
  nestedList,
  wideObject,
} from "../support/arbitraries.ts";
import { send } from "../support/fuzz-checks.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { GROWTH, growthOf, LINEAR_RATIO_MAX } from "../support/scaling.ts";
import { sized } from "../support/size.ts";

/**
 * Families of hostile shapes (test/support/arbitraries.ts) generated at growing sizes: reading
 * and checking each costs time linear in its size (test/support/scaling.ts: 8× the size, well
 * under 64× the time): quadratic work, as a 50,000-key JSON-RPC object once cost, fails it.
 * First the parsers and checks themselves, then whole requests over real sockets.
 */

/** `make(size)` for the two sizes a family is timed at, built before any timing. */
function family<T>(size: number, make: (n: number) => T): (n: number) => T {
  const built = new Map([size, size * GROWTH].map((n) => [n, make(n)]));
  return (n) => built.get(n) as T;
}

/** Timings of each size, the least kept (test/support/scaling.ts). */
const REPS = sized(3, 7);

async function expectLinear(name: string, work: (n: number) => unknown, size: number, reps = REPS) {
  const growth = await growthOf(work, size, reps);
  const figures = `${name}: ${growth.small.toFixed(1)} ms at ${size}, ${growth.large.toFixed(1)} ms at ${size * GROWTH}`;
  expect(growth.ratio, figures).toBeLessThan(LINEAR_RATIO_MAX);
}

const rpc = (member: "id" | "params" | "extra", value: unknown) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: member === "id" ? value : 1,
    method: "getrawtransaction",
    params: member === "params" ? value : ["00"],
    ...(member === "extra" ? { extra: value } : {}),
  });

const graphRequest = (query: string, variables: Record<string, unknown> = {}): GraphRequest => {
  const parsed = parseGraphRequest(JSON.stringify({ query, variables }));
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.request;
};

describe("parsers and checks of client input: linear in its size", () => {
  it("the measure tells quadratic work from linear: a loop over every pair of n fails it", async () => {
    const pairs = (n: number) => {
      let sum = 0;
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) sum += i ^ j;
      return sum;
    };
    expect((await growthOf(pairs, 1_000, 3)).ratio).toBeGreaterThanOrEqual(LINEAR_RATIO_MAX);
  });

  it("JSON-RPC bodies with an object of n keys in id, params or another member, compact or spaced", async () => {
    for (const member of ["id", "params", "extra"] as const) {
      const compact = family(6_250, (n) => rpc(member, wideObject(n)));
      await expectLinear(`compact ${member}`, (n) => parseRequestBody(compact(n)), 6_250);
      const spaced = family(6_250, (n) => rpc(member, wideObject(n)).replaceAll(",", ", "));
      await expectLinear(`spaced ${member}`, (n) => parseRequestBody(spaced(n)), 6_250);
    }
  });

  it("JSON-RPC bodies with a key of n characters, nested n deep; an upstream answer with n keys", async () => {
    const key = family(
      125_000,
      (n) => `{ "id": 1, "method": "m", "params": { "${"k".repeat(n)}": 1 } }`,
    );
    await expectLinear("long key", (n) => parseRequestBody(key(n)), 125_000);
    const deep = family(50_000, (n) => `{"id":1,"method":"m","params":[${nestedList(n)}]}`);
    await expectLinear("deep", (n) => parseRequestBody(deep(n)), 50_000);
    const answer = family(
      12_500,
      (n) => `[{"result":${JSON.stringify(wideObject(n))},"error":null,"id":1}]`,
    );
    await expectLinear("batch answer", (n) => scanBatchAnswer(answer(n)), 12_500);
  });

  it("graph queries: nested past the bound, or wide within it (siblings, lists, variables)", async () => {
    const schema = indexerSchema();
    const block = (where: string) => `{ block(limit: 1, where: ${where}) { height } }`;
    const heights = "query ($h: [Int!]) { block(limit: 1, where: {height: {_in: $h}}) { height } }";
    const families: [string, number, (n: number) => GraphRequest][] = [
      ["nested _and", 2_000, (n) => graphRequest(block(nestedAndLiteral(n)))],
      ["nested list", 5_000, (n) => graphRequest(block(`{height: {_in: ${nestedList(n)}}}`))],
      [
        "nested variable",
        5_000,
        (n) => ({
          query: heights,
          variables: { h: JSON.parse(nestedList(n)) },
          operationName: undefined,
        }),
      ],
      [
        "_and siblings",
        125,
        (n) => graphRequest(block(`{_and: [${"{height: {_gt: 1}} ".repeat(n)}]}`)),
      ],
      [
        "_in variable",
        2_500,
        (n) => graphRequest(heights, { h: Array.from({ length: n }, (_, i) => i) }),
      ],
      [
        "unexpected variables",
        6_250,
        (n) => graphRequest("{ block(limit: 1) { height } }", wideObject(n)),
      ],
    ];
    for (const [name, size, make] of families) {
      const request = family(size, make);
      await expectLinear(name, (n) => checkGraphQuery(schema, request(n)), size);
    }
  });

  it("the nesting checks read to the end of what is not too deep, and follow every spread", async () => {
    const strings = family(
      125_000,
      (n) => `{ a(s: "${"[".repeat(n)}", t: ${"[1] ".repeat(n / 4)}) }`,
    );
    await expectLinear("document", (n) => documentNesting(strings(n)), 125_000);
    const wide = family(25_000, (n) => ({ v: Array.from({ length: n }, (_, i) => ({ i: [i] })) }));
    await expectLinear("variables", (n) => variablesNesting(wide(n)), 25_000);
    const chains = family(5_000, (n) => parse(fragmentChain(n, "Query")));
    await expectLinear("fragment chain", (n) => selectionNesting(chains(n)), 5_000);
  });
});

describe("whole requests over real sockets: linear in their size, on every route", () => {
  let t: TestGateway;
  let origin: URL;
  let token: string;
  beforeAll(async () => {
    t = await startTestGateway();
    origin = new URL(t.url);
    ({ token } = await t.account("scaling", 1_000_000_000));
  });
  afterAll(() => t?.close());

  const routesOf = (shape: HostileShape) =>
    shape.startsWith("rpc-") ? (["node", "electrum"] as const) : (["graph", "gateway"] as const);

  // From a sixteenth of each shape's largest size to half of it: large enough that quadratic
  // work shows; the largest sizes are sent in hostile-shapes.security.test.ts and bench/.
  it("every hostile shape on each of its routes, from a sixteenth of its largest size to half of it", async () => {
    for (const shape of HOSTILE_SHAPES) {
      for (const route of routesOf(shape)) {
        const largest = HOSTILE_SIZES[shape][1];
        const size = Math.floor(largest / (2 * GROWTH));
        const cases = family(size, (n) => hostileCase(shape, route, n));
        await expectLinear(
          `${shape} on ${route}`,
          (n) => send(origin, cases(n), token, 20_000),
          size,
          sized(2, 3),
        );
      }
    }
  }, 240_000);
});
