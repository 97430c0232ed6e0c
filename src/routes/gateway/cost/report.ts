import { GraphQLError } from "graphql";
import { graphPrice } from "../../../billing/pricing/prices.ts";
import type { HttpReply } from "../../../http/reply.ts";
import { type GatewayError, httpStatusOf } from "../../../protocol/errors/codes.ts";
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

/** A result as Yoga writes one with no error: its data, then extensions.cost. */
export function resultText(dataText: string, report: CostReport): string {
  return `{"data":${dataText},"extensions":{"cost":${JSON.stringify(report)}}}`;
}

/**
 * What `extensions.cost` holds in an answer written before its request settled (a planned
 * request executed by Yoga: query-plans/serve.ts); `writeCost` puts the report in its place. A string
 * no answer of ours holds (JSON writes its NUL escaped), and the last member Yoga writes.
 */
export const COST_MARK = "\u0000blockgate:cost";
const COST_MARK_JSON = JSON.stringify(COST_MARK);

/** The answer with its cost report where COST_MARK was; null if it has no mark. */
export function writeCost(text: string, report: CostReport): string | null {
  const at = text.lastIndexOf(COST_MARK_JSON);
  if (at < 0) return null;
  return `${text.slice(0, at)}${JSON.stringify(report)}${text.slice(at + COST_MARK_JSON.length)}`;
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
  if (graph.answered > 0) lines.push(graphLine(ctx, graph.answered, graph.complexity));
  return lines;
}

/** The indexer's share: `answered` sites, one graph price over their complexity. */
export function graphLine(
  ctx: Pick<GraphQLContext, "services" | "network">,
  answered: number,
  complexity: number,
): CostLine {
  return {
    method: "graph",
    count: answered,
    subtotal: graphPrice(ctx.services.config, ctx.network, complexity),
  };
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

/**
 * A refusal as Yoga writes it (refusalError's body, its status), with `headers`: for answers
 * given without Yoga (answers/serve.ts, query-plans/serve.ts).
 */
export function refusalReply(cost: Refusal, headers: Record<string, string>): HttpReply {
  const raw = new TextEncoder().encode(refusalText(cost));
  return { status: httpStatusOf(cost.error.code), body: null, raw, headers };
}

/** The body Yoga writes for refusalError. */
export function refusalText(cost: Refusal): string {
  const { http: _http, ...extensions } = refusalExtensions(cost);
  return JSON.stringify({ errors: [{ message: cost.error.message, extensions }] });
}
