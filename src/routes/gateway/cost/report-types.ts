// The shapes of `extensions.cost` (report.ts), apart: the request state names them, and
// report.ts reads the request's context.

import type { CallOutcome } from "../../../billing/metering/pipeline.ts";
import type { AnswerCostLine } from "../../../cache/gateway-answers.ts";

/**
 * One line of `extensions.cost.calls`: a priced method's calls, or the indexer's share. Declared
 * with the cache that keeps it (below the routes), so the shape is written once.
 */
export type CostLine = AnswerCostLine;

/** `extensions.cost` of an executed request, its keys in the order clients have always seen. */
export interface CostReport {
  estimated: number;
  actual: number;
  charged: number;
  balance: number;
  complexity?: number;
  calls: CostLine[];
}

/** What an executed request came to: its outcome for the pipeline, its charge and complexity. */
export interface ExecutedFigures {
  outcome: CallOutcome;
  actual: number;
  complexity: number | null;
}
