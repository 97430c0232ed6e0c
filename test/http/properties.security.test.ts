import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  electrumCase,
  type FuzzCase,
  gatewayCase,
  graphCase,
  hostileShapeCase,
  largeCase,
  nodeCase,
  pathCase,
} from "../support/arbitraries.ts";
import { auditTotals } from "../support/audit.ts";
import { problemsOf, refused, send } from "../support/fuzz-checks.ts";
import { startTestGateway, type TestGateway } from "../support/harness.ts";
import { expectWholeLedgerOk } from "../support/ledger.ts";

/**
 * Properties over generated inputs to every backend route (JSON-RPC envelopes
 * and Core parameters, GraphQL documents and variables on the unified API, Hasura arguments on
 * the graph route, mangled paths). For every input: an answer in the route's protocol, well
 * formed, never a 5xx but the documented ones, within the bound, and no charge when the gateway
 * refused it (the account's audit records are summed before and after each case: cases run one
 * at a time). fast-check prints the seed and the shrunk case of a failure; `FC_SEED` replays one.
 * bench/fuzz.ts sends the same arbitraries by the ten thousand.
 */

const RUNS = Number(process.env.FC_RUNS ?? 60);
const ANSWER_MS = 10_000;
const seed = process.env.FC_SEED === undefined ? undefined : Number(process.env.FC_SEED);

describe("properties of generated inputs on every route", () => {
  let t: TestGateway;
  let token: string;
  let accountId: number;
  let origin: URL;

  beforeAll(async () => {
    t = await startTestGateway();
    ({ token, id: accountId } = await t.account("properties", 1_000_000_000));
    origin = new URL(t.url);
  });
  afterAll(() => t?.close());

  const chargedSoFar = async (): Promise<number> =>
    (await auditTotals(t.gateway.app.db, { accountId }, ["charged"])).charged;

  const holds = (arb: fc.Arbitrary<FuzzCase>, runs = RUNS) =>
    fc.assert(
      fc.asyncProperty(arb, async (c) => {
        const before = await chargedSoFar();
        const answer = await send(origin, c, token, ANSWER_MS);
        const problems = problemsOf(c, answer);
        if (refused(c, answer)) {
          const charged = (await chargedSoFar()) - before;
          if (charged !== 0) problems.push(`refused, yet charged ${charged} CC`);
        }
        if (problems.length > 0) {
          throw new Error(
            `${problems.join("; ")}\n→ ${answer.status} ${answer.text.slice(0, 300)}`,
          );
        }
      }),
      { numRuns: runs, ...(seed === undefined ? {} : { seed }) },
    );

  it("node route: JSON-RPC envelopes and getrawtransaction parameters", () => holds(nodeCase));
  it("electrum route: JSON-RPC envelopes and blockchain.transaction.get parameters", () =>
    holds(electrumCase));
  it("unified API: documents from the schema, wrong-typed arguments and variables", () =>
    holds(gatewayCase));
  it("graph route: Hasura arguments of every type", () => holds(graphCase));
  it("paths: unknown backends and networks, odd tokens, percent-escapes", () => holds(pathCase));
  it("large inputs: long literals and parameters, big variables and lists, past the body limit", () =>
    holds(largeCase, Math.ceil(RUNS / 6)));
  it("hostile shapes: wide objects, long keys, nesting past every bound, answered in milliseconds", () =>
    holds(hostileShapeCase, Math.ceil(RUNS / 6)));

  it("the gateway is alive and the ledger checks out afterwards", async () => {
    expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
    await expectWholeLedgerOk(t.gateway.app.db);
  });
});
