import type { ExecutionResult } from "graphql";
import type { CallOutcome } from "../../../billing/metering/pipeline.ts";
import { graphPrice } from "../../../billing/pricing/prices.ts";
import { type ErrorCode, fromGraphQLCode } from "../../../protocol/errors/codes.ts";
import { combineVerified } from "../../../protocol/verified.ts";
import type { GraphQLContext } from "../context.ts";
import type { CostEstimate } from "./estimate.ts";
import type { ExecutedFigures } from "./report-types.ts";

/**
 * The charge of an executed request, from what its resolvers metered: each priced call answered
 * at its price, and the indexer's share — one graph price over the sites answered, if any was.
 */
export function executedFigures(
  ctx: GraphQLContext,
  estimate: CostEstimate,
  result: ExecutionResult,
): ExecutedFigures {
  const { calls, graph, cacheHits } = ctx.state.meter;
  let actual = 0;
  for (const { count, price } of calls.values()) actual += count * price;
  if (graph.answered > 0) actual += graphPrice(ctx.services.config, ctx.network, graph.complexity);
  const complexity = estimate.graph ? graph.complexity : null;
  const outcome: CallOutcome = {
    kind: "answered",
    // Errors and no data: graphql-js refused the request (variables it could not coerce) before
    // any resolver ran, as validation would have.
    outcome: !result.errors?.length
      ? "ok"
      : result.data === undefined
        ? "rejected"
        : "upstream_error",
    ...firstCode(result),
    httpStatus: 200,
    chargedCc: actual,
    complexity,
    cacheHits,
    verified: combineVerified(ctx.state.meter.verified),
  };
  return { outcome, actual, complexity };
}

export type Codes = { errorCode: ErrorCode | null; upstreamCode?: string | null };

/**
 * The audit codes of a result: its first error's, as a list code (`extensions.code` is that code's
 * GraphQL spelling), and the node's own JSON-RPC code when a node error is the cause.
 */
export function firstCode(result: ExecutionResult): Codes {
  const first = result.errors?.[0];
  if (!first) return { errorCode: null };
  const rpcCode = first.extensions?.rpcCode;
  return {
    errorCode: fromGraphQLCode(first.extensions?.code),
    upstreamCode: typeof rpcCode === "number" ? String(rpcCode) : null,
  };
}
