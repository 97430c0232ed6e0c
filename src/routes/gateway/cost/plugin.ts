import { type ExecutionResult, GraphQLError } from "graphql";
import type { Plugin } from "graphql-yoga";
import { auditOnly, type CallOutcome, meter } from "../../../billing/metering/pipeline.ts";
import { fromGraphQLCode, gatewayError } from "../../../protocol/errors/codes.ts";
import { complete, type Verified } from "../../../protocol/verified.ts";
import { keepIfFinal } from "../answers/keep.ts";
import type { GraphQLContext, RequestState } from "../context.ts";
import { codedError } from "../errors.ts";
import { nodePlanCandidate, planCandidate } from "../query-plans/learn.ts";
import type { EstimateMemo } from "./estimate-memo.ts";
import { type Codes, executedFigures, firstCode } from "./figures.ts";
import { COST_MARK, costLines, costReport, refusalError } from "./report.ts";
import { requestEstimate } from "./request-estimate.ts";

/** The audit log's method for every request of the unified API. */
export const METHOD = "graphql";

/**
 * Prices a request before it runs and meters it through the pipeline (src/billing/metering/pipeline.ts):
 * estimate from the document (memoised: request-estimate.ts), reserve the estimate (HTTP 429
 * before any body when the balance is short — nothing executes), execute, then charge the upstream calls actually answered, write the
 * one audit record, and report it all in `extensions.cost` and the X-Credits-* headers. A request
 * that costs nothing reserves nothing and is never blocked. Requests that never reach execution
 * (parse or validation errors, bad HTTP) get their uncharged record once Yoga has answered them.
 */
export function costPlugin(estimates: EstimateMemo): Plugin<GraphQLContext, GraphQLContext> {
  // What the response hook needs of a request the execute hook metered, keyed by the request's
  // own state object (the one both contexts share); kept here, so the route reads nothing back.
  const metered = new WeakMap<RequestState, Record<string, string>>();
  const refusals = new WeakMap<RequestState, Codes>();
  return {
    async onExecute(payload) {
      const { args, setExecuteFn, setResultAndStopExecution: stop } = payload;
      const ctx = args.contextValue;
      const variables = (args.variableValues ?? {}) as Record<string, unknown>;
      const estimate = requestEstimate(
        estimates,
        ctx.services,
        ctx.network,
        args.schema,
        args.document,
        args.operationName,
        variables,
      );
      const { reserved } = ctx.state.plan;
      if (estimate instanceof GraphQLError) {
        metered.set(ctx.state, {});
        return refuse(ctx, estimate, stop);
      }
      noteEstimate(ctx.state, estimate);
      if (ctx.dryRun) {
        metered.set(ctx.state, {});
        return answerDryRun(ctx, estimate, stop);
      }
      if (reserved) {
        // A planned request's fallback (query-plans/serve.ts): already reserved, settled by it.
        setExecuteFn(async (executeArgs) => {
          const result = await payload.executeFn(executeArgs);
          if (!isSingleResult(result)) return result;
          reserved.figures = executedFigures(ctx, estimate, result);
          metered.set(ctx.state, {});
          return { ...result, extensions: { ...result.extensions, cost: COST_MARK } };
        });
        return;
      }
      // Execution runs inside the pipeline, between its reserve and its settle.
      setExecuteFn(async (executeArgs) => {
        const cost = await meterExecution(ctx, estimate, () => payload.executeFn(executeArgs));
        metered.set(ctx.state, cost.headers);
        if (!cost.ok) return { errors: [refusalError(cost)] };
        if (cost.value === null) return { errors: [codedError("INTERNAL", "internal error")] };
        return answered(ctx, args, estimate, cost, cost.value);
      });
    },
    // What a request that never executed was refused with (Yoga's request parsing, parse and
    // validation errors), read from the result once masked, for its audit record.
    onResultProcess({ result, serverContext: ctx }) {
      if (metered.has(ctx.state) || Array.isArray(result) || !isSingleResult(result)) return;
      if (result.errors?.length) refusals.set(ctx.state, firstCode(result));
    },
    async onResponse({ response, serverContext: ctx }) {
      const headers = metered.get(ctx.state);
      // A planned request's fallback: its own record is written by the planned request.
      if (ctx.state.plan.reserved) return;
      if (headers) {
        for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
        return;
      }
      await auditUnexecuted(ctx, response, refusals.get(ctx.state));
    },
  };
}

type ExecutePayload = Parameters<NonNullable<Plugin<GraphQLContext>["onExecute"]>>[0];
type Stop = ExecutePayload["setResultAndStopExecution"];
type Estimate = Exclude<ReturnType<typeof requestEstimate>, GraphQLError>;
type Executed = { result: ExecutionResult; actual: number; complexity: number | null };

/** A request its estimate refuses: nothing runs, one uncharged record. */
async function refuse(ctx: GraphQLContext, estimate: GraphQLError, stop: Stop): Promise<void> {
  const errorCode = fromGraphQLCode(estimate.extensions.code);
  const { reserved } = ctx.state.plan;
  if (reserved) {
    // Reserved by a planned request whose estimate was this very one: cannot happen, and if it
    // did, its refusal is that request's one record.
    reserved.figures = {
      outcome: { kind: "answered", outcome: "rejected", errorCode, httpStatus: 200, chargedCc: 0 },
      actual: 0,
      complexity: null,
    };
    stop({ errors: [estimate], extensions: { cost: COST_MARK } });
    return;
  }
  await auditOnly(ctx, [{ method: METHOD, outcome: "rejected", errorCode, httpStatus: 200 }]);
  stop({ errors: [estimate] });
}

/** What execution reads of the estimate: how to ask the node, and each site's budget. */
function noteEstimate(state: RequestState, estimate: Estimate): void {
  state.asks.prevouts = estimate.wantsPrevouts;
  state.asks.position = estimate.wantsPosition;
  for (const site of estimate.graph?.sites ?? [])
    state.asks.graphSites.set(site.path, site.complexity);
  for (const item of estimate.items) {
    state.asks.joinBudget.set(item.path, (state.asks.joinBudget.get(item.path) ?? 0) + item.count);
  }
}

/** `x-dry-run`: the estimate and its breakdown, audited as a dry run, nothing executed. */
async function answerDryRun(ctx: GraphQLContext, estimate: Estimate, stop: Stop): Promise<void> {
  const audited = await auditOnly(ctx, [
    {
      method: METHOD,
      // Not an error: an outcome of its own, so usage tells estimates from calls.
      outcome: "dry_run",
      httpStatus: 200,
      estimatedCc: estimate.total,
      complexity: estimate.graph?.complexity ?? null,
    },
  ]);
  const { graph } = estimate;
  const cost = {
    dryRun: true,
    estimated: estimate.total,
    balance: audited.available,
    // Per-call items, then one line per indexer site; the indexer's share is priced once.
    breakdown: [
      ...estimate.items,
      ...(graph?.sites ?? []).map((site) => ({ ...site, method: "graph" })),
    ],
    ...(graph ? { graph: { complexity: graph.complexity, price: graph.price } } : {}),
  };
  stop({ data: null, extensions: { cost } });
}

/** Executes inside the metering pipeline: reserve the estimate, run, settle what was answered. */
function meterExecution(
  ctx: GraphQLContext,
  estimate: Estimate,
  execute: () => ReturnType<ExecutePayload["executeFn"]>,
) {
  return meter<Executed | null>(ctx, {
    calls: [
      {
        kind: "priced",
        method: METHOD,
        price: estimate.total,
        complexity: estimate.graph?.complexity ?? null,
      },
    ],
    execute: async () => {
      const result = await execute();
      if (!isSingleResult(result)) {
        // The schema has no subscriptions or @defer: not metered, so not charged.
        const error = gatewayError("INTERNAL", "streamed results are not metered");
        return { value: null, outcomes: [{ kind: "failed", error }] };
      }
      const { outcome, actual, complexity } = executedFigures(ctx, estimate, result);
      if (
        ctx.requireVerified &&
        outcome.kind === "answered" &&
        !complete(outcome.verified ?? "unchecked")
      ) {
        return unverifiedAnswer(outcome.verified ?? "unchecked", complexity);
      }
      return { value: { result, actual, complexity }, outcomes: [outcome] };
    },
  });
}

/**
 * A request that required verified answers (X-Blockgate-Require-Verified) whose answers were not
 * all verified in full: its data withheld, not charged.
 */
function unverifiedAnswer(verified: Verified, complexity: number | null) {
  const message = `the answer could be verified ${verified === "partial" ? "only in part" : "not"}, and verification was required`;
  const outcome: CallOutcome = {
    kind: "answered",
    outcome: "rejected",
    errorCode: "UNVERIFIED",
    httpStatus: 200,
    chargedCc: 0,
    verified,
  };
  const result: ExecutionResult = { errors: [codedError("UNVERIFIED", message)] };
  return { value: { result, actual: 0, complexity }, outcomes: [outcome] };
}

/** A metered answer with its report; kept whole, or learnt from, when the route asked. */
async function answered(
  ctx: GraphQLContext,
  args: ExecutePayload["args"],
  estimate: Estimate,
  cost: Extract<Awaited<ReturnType<typeof meterExecution>>, { ok: true }>,
  { result, actual, complexity }: Executed,
): Promise<ExecutionResult> {
  const report = costReport({
    estimated: estimate.total,
    actual,
    charged: cost.charged,
    balance: cost.available,
    complexity,
    calls: costLines(ctx),
  });
  const creditHeaders = Object.keys(cost.headers);
  if (ctx.state.keep.key !== undefined) {
    const estimatedComplexity = estimate.graph?.complexity ?? null;
    keepIfFinal(ctx, args, result, {
      ...{ estimated: estimate.total, estimatedComplexity, actual, complexity },
      ...{ report, creditHeaders },
    });
  }
  if (ctx.state.plan.learning) {
    const figures = { actual, complexity, report, creditHeaders };
    // An indexer plan does not keep what it answers: a document whose answer is being kept stays
    // with Yoga. A node plan keeps answers as Yoga does (query-plans/serve.ts).
    ctx.state.plan.candidate =
      (ctx.state.keep.pending ? undefined : planCandidate(ctx, args, result, estimate, figures)) ??
      (await nodePlanCandidate(ctx, args, result, figures));
  }
  return { ...result, extensions: { ...result.extensions, cost: report } };
}

/**
 * A request that never executed, audited once Yoga has answered, uncharged, so that every request
 * has its record. Serving GraphiQL's page is not a call; a subscription's stream is audited event
 * by event (each delivery goes through the pipeline: src/routes/gateway/types/subscriptions.ts).
 */
async function auditUnexecuted(
  ctx: GraphQLContext,
  response: Response,
  refusal: Codes | undefined,
): Promise<void> {
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("text/html") || type.startsWith("text/event-stream")) return;
  await auditOnly(ctx, [
    {
      method: METHOD,
      outcome: "rejected",
      ...(refusal ?? bareRefusal(response.status)),
      httpStatus: response.status,
    },
  ]);
}

/**
 * The audit code of an answer Yoga gave without a GraphQL result: a body type it does not read
 * (415, refused before any parsing) is the client's; anything else unexplained is ours.
 */
function bareRefusal(status: number): Codes | Record<string, never> {
  if (status === 415) return { errorCode: "UNSUPPORTED_MEDIA_TYPE" };
  return status >= 400 ? { errorCode: "INTERNAL" } : {};
}

function isSingleResult(result: unknown): result is ExecutionResult {
  return typeof result === "object" && result !== null && !(Symbol.asyncIterator in result);
}
