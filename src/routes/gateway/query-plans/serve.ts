import { GraphQLError } from "graphql";
import { type CallOutcome, type Metered, meter } from "../../../billing/metering/pipeline.ts";
import { graphPrice } from "../../../billing/pricing/prices.ts";
import type { HttpReply } from "../../../http/reply.ts";
import { gatewayError } from "../../../protocol/errors/codes.ts";
import type { IndexerOutcome } from "../../../upstreams/indexer/pool.ts";
import { keepPlannedIfFinal } from "../answers/keep.ts";
import type { PendingAnswer } from "../answers/pending.ts";
import type { GraphQLContext } from "../context.ts";
import { executedFigures } from "../cost/figures.ts";
import { METHOD } from "../cost/plugin.ts";
import {
  costLines,
  costReport,
  graphLine,
  refusalReply,
  resultText,
  writeCost,
} from "../cost/report.ts";
import type { CostLine, CostReport } from "../cost/report-types.ts";
import { requestEstimate } from "../cost/request-estimate.ts";
import { indexerTrip } from "../indexer.ts";
import type { ExecutorParts } from "../parts.ts";
import { literalsFit } from "../plugins/document-shape.ts";
import { gatewayContext, runYoga } from "../run.ts";
import { gatewaySchema } from "../schema.ts";
import type { GatewayCallContext, GraphQLRequest } from "../services.ts";
import { noteRoot } from "../types/transaction-queries.ts";
import type { Passthrough } from "./candidate.ts";
import { loadAsked, type NodeData, nodeAsks, nodeData, nodePlanOf } from "./node-plan.ts";
import { dataText, fits, indexerRequest, passthroughOf } from "./passthrough.ts";
import type { Plan, PlanRequest } from "./plans.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The indexer's data as the answer's `data`, or null when it does not fit. Callers who shared a
 * trip share its data object: checked and written once for all of them. What is written depends
 * on the passthrough's shape alone, which documents of one shape share (passthrough.ts).
 */
const written = new WeakMap<object, { passthrough: Passthrough; text: string | null }>();
function writable(data: object, passthrough: Passthrough): string | null {
  const seen = written.get(data);
  if (
    seen?.passthrough.shape === passthrough.shape &&
    seen.passthrough.renamesTypes === passthrough.renamesTypes
  ) {
    return seen.text;
  }
  const text = fits(data, passthrough.shape) ? dataText(data, passthrough) : null;
  written.set(data, { passthrough, text });
  return text;
}

/** A planned request's reply, and the answer to keep once the route has it (node plans). */
export interface Served {
  reply: HttpReply;
  pending?: PendingAnswer;
}

/** What a planned request answered, before its settle's figures are written in. */
interface Answered {
  /** The whole answer, once the settle's report is known. */
  render(report: CostReport): string;
  status: number;
  headers: Record<string, string>;
  actual: number;
  complexity: number | null;
  lines: CostLine[];
}

/**
 * Serves a request by its indexer plan (plans.ts): the document goes to the indexer as written,
 * without Yoga, through the metering pipeline with the same estimate and charge the executor would
 * make, and the indexer's `data` is written with this call's `extensions.cost`, byte for byte what
 * Yoga writes (checked when learnt). null, before anything is reserved, when the executor must
 * answer; once reserved, an answer that does not fit or a failed trip goes to the executor under
 * the same reservation (the trip is not repeated).
 */
export async function servePlanned(
  api: ExecutorParts,
  ctx: GatewayCallContext,
  call: GraphQLRequest,
  request: PlanRequest,
  plan: Plan,
  /** The request's key in the cache of whole answers (answers/), if it could be kept there. */
  key: string | null,
): Promise<Served | null> {
  const { plans } = api;
  // A document of the plan's shape is valid as the one it was learnt from was once its literals
  // fit; else Yoga validates it and says what is wrong.
  if (!literalsFit(plan.literals, request.shape)) return null;
  // The learnt variant, or another combination of the document's @skip/@include conditions;
  // null for variables the schema does not coerce.
  const passthrough = passthroughOf(
    gatewaySchema,
    request.document,
    plan.operationName,
    request.variables,
  );
  if (!passthrough) return serveNodePlanned(api, ctx, call, request, plan, key);
  const estimate = planEstimate(api, ctx, plan, request);
  if (estimate instanceof GraphQLError || !estimate.graph || estimate.items.length > 0) {
    return null;
  }
  const { complexity } = estimate.graph;
  const cost = await meter<Answered>(ctx, {
    calls: [{ kind: "priced", method: METHOD, price: estimate.total, complexity }],
    execute: async () => {
      // Its answer only read (written once per data object): an ended trip's may serve (0058).
      const trip = await indexerTrip(ctx, indexerRequest(passthrough, request.variables), true);
      const text = trip.ok ? writable(trip.data, passthrough) : null;
      if (text !== null) {
        plans.stats.served += 1;
        const actual = graphPrice(ctx.services.config, ctx.network, complexity);
        const outcome: CallOutcome = {
          kind: "answered",
          outcome: "ok",
          httpStatus: 200,
          chargedCc: actual,
          complexity,
          cacheHits: 0,
        };
        const lines = [graphLine(ctx, passthrough.sites, complexity)];
        return {
          value: {
            render: (report) => resultText(text, report),
            status: 200,
            headers: plan.headers,
            actual,
            complexity,
            lines,
          },
          outcomes: [outcome],
        };
      }
      plans.stats.executed += 1;
      // An answer that does not fit is the plan's fault, not the indexer's: it is dropped.
      if (trip.ok) plans.forget(request.key);
      return executeReserved(api, ctx, call, trip.ok ? undefined : trip);
    },
  });
  return { reply: plannedReply(cost, estimate.total, plan).reply };
}

/**
 * Serves a request by a node plan (node-plan.ts): through the metering pipeline with the estimate
 * Yoga's would reserve, its transactions from the executor's own loaders (same caches and charge),
 * written as graphql-js would write them (checked when learnt). A missing or failed transaction
 * hands the request to the executor under the same reservation. A keepable answer is checked for
 * finality as the executor's would be (answers/keep.ts). null, before anything is reserved, when
 * the executor must answer (variables that do not coerce, a refusal, an indexer field).
 */
async function serveNodePlanned(
  api: ExecutorParts,
  ctx: GatewayCallContext,
  call: GraphQLRequest,
  request: PlanRequest,
  plan: Plan,
  key: string | null,
): Promise<Served | null> {
  const node = nodePlanOf(gatewaySchema, request.document, plan.operationName);
  const asks = node && nodeAsks(gatewaySchema, node, request.variables);
  if (!node || !asks) return null;
  const estimate = planEstimate(api, ctx, plan, request);
  if (estimate instanceof GraphQLError || estimate.graph) return null;
  const context = gatewayContext(ctx, {
    publicPath: call.publicPath,
    dryRun: false,
    seenAtHex: api.seenAtHex,
  });
  context.state.asks.prevouts = estimate.wantsPrevouts;
  context.state.asks.position = estimate.wantsPosition;
  // Set before anything is loaded: the loaders ask what a kept answer needs (loaders.ts).
  if (key !== null) context.state.keep.key = key;
  // What the plan wrote, when it answered (not the executor).
  const planned: { written?: NodeData } = {};
  const cost = await meter<Answered>(ctx, {
    calls: [{ kind: "priced", method: METHOD, price: estimate.total, complexity: null }],
    execute: async () => {
      const found = await loadAsked(context, asks);
      // An answer that may be kept is written with its confirmations' placeholders too, once.
      const written = nodeData(node, found, key !== null);
      if (written === null) {
        api.plans.stats.executed += 1;
        return executeReserved(api, ctx, call, undefined, context);
      }
      api.plans.stats.served += 1;
      planned.written = written;
      const text = written.dataText;
      // As the root resolvers note them, for the answer to be kept (noteRoot: only with a key).
      for (const model of found.flat())
        if (model && !(model instanceof Error)) noteRoot(context, model);
      const { outcome, actual } = executedFigures(context, estimate, { data: {} });
      return {
        value: {
          render: (report) => resultText(text, report),
          status: 200,
          headers: plan.headers,
          actual,
          complexity: null,
          lines: costLines(context),
        },
        outcomes: [outcome],
      };
    },
  });
  const { reply, report } = plannedReply(cost, estimate.total, plan);
  const { written } = planned;
  if (key === null || !written || !cost.ok || !report) return { reply };
  keepPlannedIfFinal(
    context,
    {
      schema: gatewaySchema,
      document: request.document,
      operationName: plan.operationName,
      variableValues: request.variables,
    },
    written,
    {
      estimated: estimate.total,
      estimatedComplexity: null,
      actual: cost.value.actual,
      complexity: null,
      report,
      creditHeaders: Object.keys(cost.headers),
    },
  );
  return { reply, ...(context.state.keep.pending ? { pending: context.state.keep.pending } : {}) };
}

/** The estimate Yoga would make of the request (one memo for both: request-estimate.ts). */
function planEstimate(
  api: ExecutorParts,
  ctx: GatewayCallContext,
  plan: Plan,
  request: PlanRequest,
) {
  return requestEstimate(
    api.estimates,
    ctx.services,
    ctx.network,
    gatewaySchema,
    request.document,
    plan.operationName,
    request.variables,
  );
}

/**
 * A planned request's reply, once settled: its answer with the settle's figures written in; and
 * those figures (none for a refusal).
 */
function plannedReply(
  cost: Metered<Answered>,
  estimated: number,
  plan: Plan,
): { reply: HttpReply; report?: CostReport } {
  if (!cost.ok) return { reply: refusalReply(cost, { ...plan.headers, ...cost.headers }) };
  const answered = cost.value;
  const report = costReport({
    estimated,
    actual: answered.actual,
    charged: cost.charged,
    balance: cost.available,
    complexity: answered.complexity,
    calls: answered.lines,
  });
  return {
    reply: {
      status: answered.status,
      body: null,
      raw: encoder.encode(answered.render(report)),
      headers: { ...answered.headers, ...cost.headers },
    },
    report,
  };
}

/**
 * The executor's answer to a planned request that its plan could not answer, under the planned
 * request's reservation: the cost plugin executes without metering (state.plan.reserved) and leaves
 * the outcome, which the planned request settles.
 */
async function executeReserved(
  api: ExecutorParts,
  ctx: GatewayCallContext,
  call: GraphQLRequest,
  failedTrip: FailedTrip | undefined,
  made?: GraphQLContext,
): Promise<{ value: Answered; outcomes: CallOutcome[] }> {
  const { reply, context } = await runYoga(
    api,
    ctx,
    call,
    (state) => {
      state.plan.reserved = {};
      if (failedTrip) state.plan.failedTrip = failedTrip;
    },
    made,
  );
  const figures = context.state.plan.reserved?.figures;
  const text = reply.raw ? decoder.decode(reply.raw) : "";
  const outcome: CallOutcome = figures?.outcome ?? {
    kind: "failed",
    error: gatewayError("INTERNAL", "the planned request was not executed"),
  };
  return {
    value: {
      // Yoga wrote COST_MARK where the report goes.
      render: (report) => writeCost(text, report) ?? text,
      status: reply.status,
      headers: reply.headers ?? {},
      actual: figures?.actual ?? 0,
      complexity: figures?.complexity ?? null,
      lines: costLines(context),
    },
    outcomes: [outcome],
  };
}

type FailedTrip = Extract<IndexerOutcome, { ok: false }>;
