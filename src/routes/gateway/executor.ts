import type { WebSocket } from "ws";
import type { SocketSession } from "../../billing/metering/socket-session.ts";
import type { HttpReply } from "../../http/reply.ts";
import { LruMap } from "../../util/lru.ts";
import type { PendingAnswer } from "./answers/pending.ts";
import { answerKey, keepAnswer, serveAnswer } from "./answers/serve.ts";
import { EstimateMemo } from "./cost/estimate-memo.ts";
import type { ExecutorParts } from "./parts.ts";
import { DocumentCache } from "./plugins/document-cache.ts";
import { learnPlan } from "./query-plans/learn.ts";
import { Plans, planRequest } from "./query-plans/plans.ts";
import { servePlanned } from "./query-plans/serve.ts";
import { gatewayContext, runYoga } from "./run.ts";
import type {
  GatewayCallContext,
  GatewayServices,
  GraphQLRequest,
  UnifiedApi,
} from "./services.ts";
import { serveGraphQLOverSocket } from "./socket.ts";
import { createGatewayYoga } from "./yoga.ts";

/** Transactions remembered as asked at verbosity 0 (loaders.ts), across networks. */
const SEEN_AT_HEX_MAX = 16_384;

/**
 * The unified API of one running gateway: the one way a request is run, and what is kept from one
 * request to the next (Yoga, parsed documents, plans, estimates). Made once per gateway by the
 * composition root, on first use (its modules take a moment to load).
 */
export class GatewayExecutor implements UnifiedApi, ExecutorParts {
  readonly documents: DocumentCache;
  readonly estimates = new EstimateMemo();
  readonly yoga: ExecutorParts["yoga"];
  readonly plans: Plans;
  readonly seenAtHex = new LruMap<string, true>(SEEN_AT_HEX_MAX);

  constructor(services: GatewayServices) {
    this.documents = new DocumentCache(services.config.graphql.documentCacheBytesMax);
    this.yoga = createGatewayYoga(services.config, services.log, this.documents, this.estimates);
    this.plans = new Plans(services.config.graphql.queryPlansMax);
  }

  /**
   * Runs one request; the first that answers: a kept answer about final blocks or transactions
   * (answers/); a plan learnt from an earlier execution (query-plans/); else Yoga with this
   * call's context, whose answer (metered by the cost plugin) is returned as is and kept or
   * learnt from when it qualifies. Used by the gateway route and the dashboard.
   */
  async execute(ctx: GatewayCallContext, call: GraphQLRequest): Promise<HttpReply> {
    // Kept answers and plans do not keep how far each answer was verified: a request that
    // requires it is executed, and what it answers is neither kept nor learnt from.
    if (ctx.requireVerified) return (await runYoga(this, ctx, call, () => {})).reply;
    const app = ctx.services;
    const { req } = call;
    const key = answerKey(app, ctx.network, req, call.body);
    if (key !== null) {
      const kept = await app.gatewayAnswers.get(ctx.network, key);
      if (kept) return serveAnswer(ctx, kept);
    }
    const planned = planRequest(this, app, ctx.network, req, call.body);
    const plan = planned ? this.plans.get(planned.key) : undefined;
    if (planned && plan) {
      const served = await servePlanned(this, ctx, call, planned, plan, key);
      if (served) {
        if (key !== null) keptOrNot(ctx, key, served.pending, served.reply);
        return served.reply;
      }
    }
    const { reply, context } = await runYoga(this, ctx, call, (state) => {
      if (key !== null) state.keep.key = key;
      if (planned && !plan && this.plans.worthLearning(planned.key)) state.plan.learning = true;
    });
    if (reply.raw === undefined) return reply;
    const { pending } = context.state.keep;
    const planCandidate = context.state.plan.candidate;
    const answer = { status: reply.status, raw: reply.raw, headers: reply.headers ?? {} };
    if (key !== null) keptOrNot(ctx, key, pending, reply);
    if (planned && planCandidate) learnPlan(this.plans, planned, planCandidate, answer);
    return reply;
  }

  /** The unified API over WebSocket (graphql-ws), on the same path as its HTTP route. */
  serveSocket(socket: WebSocket, session: SocketSession<GatewayServices>): () => void {
    return serveGraphQLOverSocket(socket, session, {
      yoga: this.yoga,
      contextFor: (ctx) =>
        gatewayContext(ctx, { publicPath: "", dryRun: false, seenAtHex: this.seenAtHex }),
    });
  }
}

/** Keeps an answer found final (answers/serve.ts), or notes that this key's was not kept. */
function keptOrNot(
  ctx: GatewayCallContext,
  key: string,
  pending: PendingAnswer | undefined,
  { status, raw, headers = {} }: HttpReply,
): void {
  const app = ctx.services;
  if (pending && raw) keepAnswer(app, ctx.network, key, pending, { status, raw, headers });
  else app.gatewayAnswers.executed(key);
}
