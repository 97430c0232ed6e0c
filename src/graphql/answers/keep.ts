import type { DocumentNode, ExecutionResult, GraphQLSchema } from "graphql";
import type { GraphQLContext } from "../context.ts";
import type { CostReport } from "../cost/report-types.ts";
import { finalBlocksOf } from "./final-blocks.ts";

/**
 * After a request the route may cache (state.answerKey) executed and settled: when its answer came
 * from the indexer alone — no call to a full node or Electrum server, whose fields (confirmations)
 * move with the tip — with no error, and is about final blocks only, it is left in
 * state.pending for the route.
 */
export function keepIfFinal(
  ctx: GraphQLContext,
  args: {
    schema: GraphQLSchema;
    document: DocumentNode;
    operationName?: string | null | undefined;
    variableValues?: unknown;
  },
  result: ExecutionResult,
  figures: {
    estimated: number;
    estimatedComplexity: number | null;
    actual: number;
    complexity: number | null;
    report: CostReport;
    creditHeaders: string[];
  },
): void {
  const { meter } = ctx.state;
  if (result.errors?.length || !result.data) return;
  if (result.extensions && Object.keys(result.extensions).length > 0) return;
  if (meter.calls.size > 0 || meter.graph.answered === 0) return;
  const variables = (args.variableValues ?? {}) as Record<string, unknown>;
  const blocks = finalBlocksOf(
    args.schema,
    args.document,
    args.operationName,
    variables,
    result.data,
  );
  if (!blocks) return;
  const { report } = figures;
  ctx.state.pending = {
    answer: {
      dataText: JSON.stringify(result.data),
      estimated: figures.estimated,
      estimatedComplexity: figures.estimatedComplexity,
      actual: figures.actual,
      complexity: figures.complexity,
      lines: report.calls,
      answered: meter.graph.answered,
    },
    blocks,
    report,
    creditHeaders: figures.creditHeaders,
  };
}
