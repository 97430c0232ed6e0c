import { GraphQLError } from "graphql";
import { type GatewayError, httpStatusOf } from "../../errors/codes.ts";
import { graphPrice } from "../../pricing/prices.ts";
import type { GraphQLContext } from "../context.ts";
import type { CostLine, CostReport } from "./report-types.ts";

export function costReport(figures: {
  estimated: number;
  actual: number;
  charged: number;
  balance: number;
  complexity: number | null;
  calls: CostLine[];
}): CostReport {
  const { estimated, actual, charged, balance, complexity, calls } = figures;
  return {
    estimated,
    actual,
    charged,
    balance,
    ...(complexity === null ? {} : { complexity }),
    calls,
  };
}

/**
 * The actual charge line by line: each priced method's calls at its price, then the indexer's
 * share (one graph price over the answered sites' complexity), as `extensions.cost.calls`.
 */
export function costLines(ctx: GraphQLContext): CostLine[] {
  const { calls, graph } = ctx.state.meter;
  const lines: CostLine[] = [...calls].map(([method, { count, price }]) => ({
    method,
    count,
    unitPrice: price,
    subtotal: count * price,
  }));
  if (graph.answered > 0) {
    lines.push({
      method: "graph",
      count: graph.answered,
      subtotal: graphPrice(ctx.app.config, ctx.network, graph.complexity),
    });
  }
  return lines;
}

/** What the metering pipeline says of a request it refused before anything ran. */
export interface Refusal {
  error: GatewayError;
  available: number;
  required: number;
}

/**
 * The GraphQL error of a refused request: the balance and what was required, and the HTTP
 * status — 429 for credits and caps, 403 for a method outside the token's scope — in
 * `extensions.http`, which Yoga turns into the response's status and leaves out of its body.
 */
export function refusalError(cost: Refusal): GraphQLError {
  return new GraphQLError(cost.error.message, { extensions: refusalExtensions(cost) });
}

function refusalExtensions(cost: Refusal) {
  return {
    ...cost.error.data,
    code: cost.error.code,
    balance: cost.available,
    required: cost.required,
    http: { status: httpStatusOf(cost.error.code) },
  };
}

/** The body Yoga writes for refusalError, for an answer given without Yoga (answers/serve.ts). */
export function refusalText(cost: Refusal): string {
  const { http: _http, ...extensions } = refusalExtensions(cost);
  return JSON.stringify({ errors: [{ message: cost.error.message, extensions }] });
}
