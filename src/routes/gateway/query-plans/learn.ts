import type { ExecutionResult } from "graphql";
import { graphPrice } from "../../../billing/pricing/prices.ts";
import type { GatewayAnswer } from "../../../cache/gateway-answers.ts";
import type { ExecutedDocument, GraphQLContext } from "../context.ts";
import type { CostEstimate } from "../cost/estimate.ts";
import { resultText } from "../cost/report.ts";
import type { CostReport } from "../cost/report-types.ts";
import { literalRule } from "../plugins/document-shape.ts";
import type { PlanCandidate } from "./candidate.ts";
import { loadAsked, nodeAsks, nodeData, nodePlanOf } from "./node-plan.ts";
import { fits, passthroughOf } from "./passthrough.ts";
import type { PlanRequest, Plans } from "./plans.ts";

/**
 * After a request the route may plan (state.plan.learning) executed and settled: when it asked the
 * indexer alone — its document a passthrough (passthrough.ts), no call to the node or Electrum,
 * every root field answered — and answered without error, what learning a plan from it needs.
 * The charge must be the one a plan would make of the estimate (every site answered, at the
 * complexity estimated), or the plan would bill differently from the executor.
 */
export function planCandidate(
  ctx: GraphQLContext,
  args: ExecutedDocument,
  result: ExecutionResult,
  estimate: CostEstimate,
  figures: {
    actual: number;
    complexity: number | null;
    report: CostReport;
    creditHeaders: string[];
  },
): PlanCandidate | undefined {
  if (result.errors?.length || !result.data) return undefined;
  if (result.extensions && Object.keys(result.extensions).length > 0) return undefined;
  const { meter } = ctx.state;
  if (meter.calls.size > 0 || meter.cacheHits > 0 || !estimate.graph) return undefined;
  if (estimate.items.length > 0) return undefined;
  const operationName = args.operationName ?? undefined;
  const variables = (args.variableValues ?? {}) as Record<string, unknown>;
  const passthrough = passthroughOf(args.schema, args.document, operationName, variables);
  // The executor's data has the shape compiled for it (its keys in that order, its types'
  // names): what the plan's check will hold the indexer's answers to is what graphql-js wrote.
  if (!passthrough || !fits(result.data, passthrough.shape, "unified")) return undefined;
  const { complexity } = estimate.graph;
  if (
    meter.graph.answered !== passthrough.sites ||
    figures.complexity !== complexity ||
    figures.actual !== graphPrice(ctx.services.config, ctx.network, complexity)
  ) {
    return undefined;
  }
  return {
    schema: args.schema,
    document: args.document,
    operationName,
    variables,
    dataText: JSON.stringify(result.data),
    report: figures.report,
    creditHeaders: figures.creditHeaders,
  };
}

/**
 * After a request the route may plan executed and settled: when it asked transactions by txid
 * alone — its document a node plan (node-plan.ts), no indexer site — and answered without error,
 * what learning a plan from it needs, once the plan writes the very data Yoga did from the very
 * models the executor had (read back from the request's loaders, which hold them: no second
 * trip). Its charge is the executor's by construction: a planned request goes through the same
 * loaders, so the same calls are metered.
 */
export async function nodePlanCandidate(
  ctx: GraphQLContext,
  args: ExecutedDocument,
  result: ExecutionResult,
  figures: { report: CostReport; creditHeaders: string[] },
): Promise<PlanCandidate | undefined> {
  if (result.errors?.length || !result.data) return undefined;
  if (result.extensions && Object.keys(result.extensions).length > 0) return undefined;
  const { meter } = ctx.state;
  if (meter.graph.answered > 0) return undefined;
  const operationName = args.operationName ?? undefined;
  const variables = (args.variableValues ?? {}) as Record<string, unknown>;
  const plan = nodePlanOf(args.schema, args.document, operationName);
  const asks = plan && nodeAsks(args.schema, plan, variables);
  if (!plan || !asks) return undefined;
  const metered = () => [...meter.calls.values()].reduce((n, c) => n + c.count, 0);
  const before = metered();
  const text = nodeData(plan, await loadAsked(ctx, asks), false)?.dataText ?? null;
  // Every transaction was the executor's already: had one not been, it was asked again, uncharged.
  if (text === null || metered() !== before || text !== JSON.stringify(result.data)) {
    return undefined;
  }
  return {
    schema: args.schema,
    document: args.document,
    operationName,
    variables,
    dataText: text,
    report: figures.report,
    creditHeaders: figures.creditHeaders,
  };
}

/**
 * Learns a plan from a candidate once Yoga has written its answer: kept when Yoga's bytes are
 * exactly what a planned answer with the same data and figures would write. With the candidate's
 * own checks (planCandidate: the data has the compiled shape, the charge is the plan's), that is
 * the proof the execution gives; no query of its own is made (an earlier version asked the
 * indexer once more per document learnt, which a test counting upstream requests would see).
 */
export function learnPlan(
  plans: Plans,
  request: PlanRequest,
  candidate: PlanCandidate,
  reply: { status: number; raw: Uint8Array; headers: Record<string, string> },
): void {
  if (plans.get(request.key)) return;
  const same =
    reply.status === 200 &&
    decoder.decode(reply.raw) === resultText(candidate.dataText, candidate.report);
  const headers: GatewayAnswer["headers"] = Object.fromEntries(
    Object.entries(reply.headers).filter(([name]) => !candidate.creditHeaders.includes(name)),
  );
  // What makes the plan's other documents (of the executed one's shape) valid as it was.
  const literals = same ? literalRule(candidate.schema, candidate.document) : null;
  plans.learnt(
    request.key,
    literals ? { operationName: candidate.operationName, literals, headers } : null,
  );
}

const decoder = new TextDecoder();
