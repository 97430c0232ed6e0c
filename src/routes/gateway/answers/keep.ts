import type { ExecutionResult } from "graphql";
import { CONFIRMATIONS_MARK } from "../../../cache/answer-template.ts";
import type { AnswerAbout, MinedAt } from "../../../cache/gateway-answers.ts";
import { combineVerified } from "../../../protocol/verified.ts";
import type { ExecutedDocument, GraphQLContext } from "../context.ts";
import type { CostReport } from "../cost/report-types.ts";
import { finalBlocksOf } from "./final-blocks.ts";
import { fixedTransactionSelection, joinsSelectOnlyBytes } from "./final-transactions.ts";

/** The look-ups of a transaction by txid, by source: all a kept answer about transactions calls. */
const LOOKUPS = new Set(["getrawtransaction", "blockchain.transaction.get"]);

/**
 * After a request the route may cache (state.keep.key) executed and settled, with no error: when
 * its answer cannot change while some blocks stay on the best chain, it is left in state.keep.pending
 * for the route. Two kinds, never mixed in one answer:
 *  - about final blocks (final-blocks.ts): from the indexer, and from the look-ups of their
 *    transactions where the joins select only what the bytes say (no confirmations, no placement:
 *    those move with the tip or another upstream);
 *  - about mined transactions: root `transaction(s)` selecting only fixed fields
 *    (final-transactions.ts), every one mined (the resolvers noted where), whose calls were those
 *    look-ups only; the blocks are placed and checked to be deep and on the best chain when kept
 *    (GatewayAnswers), as the transaction cache's entries are.
 */
export function keepIfFinal(
  ctx: GraphQLContext,
  args: ExecutedDocument,
  result: ExecutionResult,
  figures: KeepFigures,
): void {
  if (result.errors?.length || !result.data) return;
  if (result.extensions && Object.keys(result.extensions).length > 0) return;
  const data = result.data;
  const found =
    aboutBlocks(args, data, ctx) ??
    aboutTransactions(args, ctx, (keys) => confirmationsTemplate(data, keys));
  if (found) pend(ctx, found, figures, () => JSON.stringify(data));
}

/**
 * keepIfFinal for a node plan's answer (query-plans/serve.ts), which has no result object: its
 * data as written, and that text with its root transactions' confirmations as placeholders when it
 * has any (the plan writes both at once: node-plan.ts). Only an answer about transactions.
 */
export function keepPlannedIfFinal(
  ctx: GraphQLContext,
  args: ExecutedDocument,
  written: { dataText: string; template: ConfirmationsTemplate | null },
  figures: KeepFigures,
): void {
  const found = aboutTransactions(args, ctx, () => written.template);
  if (found) pend(ctx, found, figures, () => written.dataText);
}

interface KeepFigures {
  estimated: number;
  estimatedComplexity: number | null;
  actual: number;
  complexity: number | null;
  report: CostReport;
  creditHeaders: string[];
}

/** The data with a placeholder for each root transaction's confirmations, and the numbers. */
export interface ConfirmationsTemplate {
  dataText: string;
  confirmations: number[];
}

function pend(ctx: GraphQLContext, found: Found, figures: KeepFigures, text: () => string): void {
  const { report } = figures;
  ctx.state.keep.pending = {
    answer: {
      dataText: found.template?.dataText ?? text(),
      ...(found.template ? { confirmations: found.template.confirmations } : {}),
      estimated: figures.estimated,
      estimatedComplexity: figures.estimatedComplexity,
      actual: figures.actual,
      complexity: figures.complexity,
      lines: report.calls,
      answered: found.answered,
      verified: combineVerified(ctx.state.meter.verified),
    },
    about: found.about,
    report,
    creditHeaders: figures.creditHeaders,
  };
}

type Found = {
  about: AnswerAbout;
  answered: number;
  /** The data with placeholders for its confirmations, and the numbers answered there. */
  template?: ConfirmationsTemplate;
};

type Args = ExecutedDocument;

function aboutBlocks(args: Args, data: Record<string, unknown>, ctx: GraphQLContext): Found | null {
  const { meter } = ctx.state;
  if (meter.graph.answered === 0) return null;
  // The upstream answers a hit stands for (its audit row's cacheHits): rows and look-ups.
  let answered = meter.graph.answered;
  for (const [method, { count }] of meter.calls) {
    if (!LOOKUPS.has(method)) return null;
    answered += count;
  }
  if (
    meter.calls.size > 0 &&
    !joinsSelectOnlyBytes(args.schema, args.document, args.operationName)
  ) {
    return null;
  }
  const variables = (args.variableValues ?? {}) as Record<string, unknown>;
  const blocks = finalBlocksOf(args.schema, args.document, args.operationName, variables, data);
  return blocks ? { about: { blocks }, answered } : null;
}

function aboutTransactions(
  args: Args,
  ctx: GraphQLContext,
  /** The answer's template for these response keys of confirmations; null: not well formed. */
  templateOf: (keys: ReadonlySet<string>) => ConfirmationsTemplate | null,
): Found | null {
  const { meter } = ctx.state;
  const rootTransactions = ctx.state.keep.roots;
  if (!rootTransactions || rootTransactions.size === 0 || meter.graph.answered > 0) return null;
  let lookups = 0;
  for (const [method, { count }] of meter.calls) {
    if (!LOOKUPS.has(method)) return null;
    lookups += count;
  }
  const mined: MinedAt[] = [];
  for (const block of rootTransactions.values()) {
    // In the mempool: its answer (and confirmations, status) changes with the next block.
    if (!block) return null;
    mined.push({ blockhash: block.hash.toLowerCase(), confirmations: block.confirmations });
  }
  if (lookups === 0) return null;
  const selection = fixedTransactionSelection(args.schema, args.document, args.operationName);
  if (!selection) return null;
  if (selection.confirmations.size === 0) return { about: { mined }, answered: lookups };
  const template = templateOf(selection.confirmations);
  return template ? { about: { mined }, answered: lookups, template } : null;
}

/**
 * The data with each root transaction's confirmations replaced by a placeholder, and the numbers
 * that were there, in the order JSON writes them (the hit writes in tip − height + 1 for each).
 * Root fields are transactions (lists or one) and `__typename`; null if a confirmations is not a
 * number where the selection put one.
 */
function confirmationsTemplate(
  data: Record<string, unknown>,
  keys: ReadonlySet<string>,
): ConfirmationsTemplate | null {
  const confirmations: number[] = [];
  let wellFormed = true;
  const marked = (tx: unknown): unknown => {
    if (typeof tx !== "object" || tx === null) return tx;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(tx)) {
      if (!keys.has(k)) out[k] = v;
      else if (typeof v === "number" && Number.isInteger(v)) {
        confirmations.push(v);
        out[k] = CONFIRMATIONS_MARK;
      } else wellFormed = false;
    }
    return out;
  };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    out[k] = Array.isArray(v) ? v.map(marked) : typeof v === "string" ? v : marked(v);
  }
  return wellFormed ? { dataText: JSON.stringify(out), confirmations } : null;
}
