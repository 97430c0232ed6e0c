import type { DocumentNode, ExecutionResult, GraphQLSchema } from "graphql";
import type { AnswerAbout, MinedAt } from "../../cache/gateway-answers.ts";
import type { GraphQLContext } from "../context.ts";
import type { CostReport } from "../cost/report-types.ts";
import { finalBlocksOf } from "./final-blocks.ts";
import { selectsFixedTransactionFields } from "./final-transactions.ts";

/** The look-ups of a transaction by txid, by source: all a kept answer about transactions calls. */
const LOOKUPS = new Set(["getrawtransaction", "blockchain.transaction.get"]);

/**
 * After a request the route may cache (state.answerKey) executed and settled, with no error: when
 * its answer cannot change while some blocks stay on the best chain, it is left in state.pending
 * for the route. Two kinds, never mixed in one answer:
 *  - about final blocks (final-blocks.ts): from the indexer alone — a join to the full node or
 *    Electrum (confirmations) moves with the tip;
 *  - about mined transactions: root `transaction(s)` selecting only fixed fields
 *    (final-transactions.ts), every one mined (the resolvers noted where), whose calls were those
 *    look-ups only; the blocks are placed and checked to be deep and on the best chain when kept
 *    (GatewayAnswers), as the transaction cache's entries are.
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
  if (result.errors?.length || !result.data) return;
  if (result.extensions && Object.keys(result.extensions).length > 0) return;
  const found = aboutBlocks(args, result.data, ctx) ?? aboutTransactions(args, ctx);
  if (!found) return;
  const { report } = figures;
  ctx.state.pending = {
    answer: {
      dataText: JSON.stringify(result.data),
      estimated: figures.estimated,
      estimatedComplexity: figures.estimatedComplexity,
      actual: figures.actual,
      complexity: figures.complexity,
      lines: report.calls,
      answered: found.answered,
    },
    about: found.about,
    report,
    creditHeaders: figures.creditHeaders,
  };
}

type Found = { about: AnswerAbout; answered: number };

type Args = Parameters<typeof keepIfFinal>[1];

function aboutBlocks(args: Args, data: Record<string, unknown>, ctx: GraphQLContext): Found | null {
  const { meter } = ctx.state;
  if (meter.calls.size > 0 || meter.graph.answered === 0) return null;
  const variables = (args.variableValues ?? {}) as Record<string, unknown>;
  const blocks = finalBlocksOf(args.schema, args.document, args.operationName, variables, data);
  return blocks ? { about: { blocks }, answered: meter.graph.answered } : null;
}

function aboutTransactions(args: Args, ctx: GraphQLContext): Found | null {
  const { meter, rootTransactions } = ctx.state;
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
  if (!selectsFixedTransactionFields(args.schema, args.document, args.operationName)) return null;
  return { about: { mined }, answered: lookups };
}
