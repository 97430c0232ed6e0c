import { createRequire } from "node:module";
import type * as GraphQL from "graphql";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { indexerSchema } from "../../src/protocol/hasura/schema.ts";
import { viaGateway } from "../graph/support.ts";
import { gql } from "../support/graphql.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";

/**
 * A delegated indexer query is validated once. Every call of graphql-js's `validate` made in this
 * process (the gateway's Hasura checks, devnet's indexer, which runs here, Yoga's) is counted with
 * the schema it validated against; graphql-js itself is not changed. The graph route is the
 * control: it checks a query as Hasura would and devnet's indexer checks it again on arrival, two
 * validations against the indexer schema. A block query in the unified API, validated by Yoga
 * against the unified schema and checked by the cost estimate, reaches the indexer schema's
 * validation only at the indexer.
 */
const validated = { schemas: [] as unknown[] };
// graphql's own module that defines validate: the package's exports read it from there at each
// call, so a spy on it sees every caller in this process (the file shares its worker: restored
// after the file).
const defining = createRequire(import.meta.url)("graphql/validation/validate.js") as {
  validate: typeof GraphQL.validate;
};
const { validate } = defining;
const spy = vi.spyOn(defining, "validate").mockImplementation((...args) => {
  validated.schemas.push(args[0]);
  return validate(...args);
});

let t: TestGateway;
let token: string;
beforeAll(async () => {
  t = await startTestGateway();
  ({ token } = await t.account("validated", 10_000_000));
});
afterAll(async () => {
  spy.mockRestore();
  await t.close();
});

const indexerRequests = () => t.devnet.indexers.get("mainnet")!.stats.httpRequests;

/** Validations against the indexer schema and indexer requests while `run` ran. */
async function counting(
  run: () => Promise<void>,
): Promise<{ validations: number; requests: number }> {
  validated.schemas.length = 0;
  const requests = indexerRequests();
  await run();
  return {
    validations: validated.schemas.filter((s) => s === indexerSchema()).length,
    requests: indexerRequests() - requests,
  };
}

const QUERY = `query ($n: Int!) { block(limit: $n, order_by: {height: desc}) { ...B
  transactions(limit: 2) { hash } } latest: block_by_pk(hash: "${"0".repeat(64)}") { height } }
  fragment B on Block { hash height }`;

describe("validation of delegated indexer queries", () => {
  it("the graph route (control): checked by the gateway, then by the indexer", async () => {
    const query = QUERY.replace("on Block", "on block");
    const counted = await counting(async () => {
      const answer = await viaGateway(t, token, { query, variables: { n: 2 } });
      expect(answer.status).toBe(200);
    });
    expect(counted).toEqual({ validations: 2, requests: 1 });
  });

  it("the unified API: validated by the indexer alone, once per indexer request", async () => {
    const counted = await counting(async () => {
      const answer = await gql(`${t.url}/gateway/mainnet/${token}`, QUERY, { n: 2 });
      expect(answer.body.errors).toBeUndefined();
      expect((answer.body.data as { block: unknown[] }).block).toHaveLength(2);
    });
    // Both root fields leave in one batched indexer request.
    expect(counted).toEqual({ validations: 1, requests: 1 });
  });
});
