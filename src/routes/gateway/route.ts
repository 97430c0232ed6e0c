import type { IncomingMessage } from "node:http";
import type { WebSocket } from "ws";
import type { SocketSession } from "../../billing/metering/socket-session.ts";
import type { HttpReply } from "../../http/reply.ts";
import type { PendingAnswer } from "./answers/pending.ts";
import { answerKey, keepAnswer, serveAnswer } from "./answers/serve.ts";
import { learnPlan } from "./query-plans/learn.ts";
import { planRequest, plansOf } from "./query-plans/plans.ts";
import { servePlanned } from "./query-plans/serve.ts";
import {
  type GraphQLRequest,
  gatewayContext,
  gatewayDocuments,
  gatewayYoga,
  runYoga,
} from "./run.ts";
import type { GatewayCallContext, GatewayServices } from "./services.ts";
import { serveGraphQLOverSocket } from "./socket.ts";

export { documentCacheOf, type GraphQLRequest, gatewayYoga } from "./run.ts";

/**
 * Runs one request through the unified API; the first that answers: a kept answer about final
 * blocks or transactions (answers/); a plan learnt from an earlier execution (query-plans/); else
 * Yoga with this call's context, whose answer (metered by the cost plugin) is returned as is and
 * kept or learnt from when it qualifies. Used by the gateway route and the dashboard.
 */
export async function executeGraphQL(
  ctx: GatewayCallContext,
  call: GraphQLRequest,
): Promise<HttpReply> {
  const app = ctx.services;
  const { req } = call;
  const key = answerKey(app, ctx.network, req, call.body);
  if (key !== null) {
    const kept = await app.gatewayAnswers.get(ctx.network, key);
    if (kept) return serveAnswer(ctx, kept);
  }
  const plans = plansOf(app);
  const planned = planRequest(app, ctx.network, req, call.body, gatewayDocuments(app));
  const plan = planned ? plans.get(planned.key) : undefined;
  if (planned && plan) {
    const served = await servePlanned(ctx, call, planned, plan, key);
    if (served) {
      if (key !== null) keptOrNot(ctx, key, served.pending, served.reply);
      return served.reply;
    }
  }
  const { reply, context } = await runYoga(ctx, call, (state) => {
    if (key !== null) state.answerKey = key;
    if (planned && !plan && plans.worthLearning(planned.key)) state.planning = true;
  });
  if (reply.raw === undefined) return reply;
  const { pending, planCandidate } = context.state;
  const answer = { status: reply.status, raw: reply.raw, headers: reply.headers ?? {} };
  if (key !== null) keptOrNot(ctx, key, pending, reply);
  if (planned && planCandidate) learnPlan(context, planned, planCandidate, answer);
  return reply;
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

/** The unified GraphQL API at /<gateway>/<network>/<token>. */
export function handleGateway(
  ctx: GatewayCallContext,
  body: string,
  req: IncomingMessage,
): Promise<HttpReply> {
  return executeGraphQL(ctx, {
    req,
    body,
    publicPath: new URL(req.url ?? "/", "http://gateway").pathname,
  });
}

/** The unified API over WebSocket (graphql-ws), on the same path as its HTTP route. */
export function serveGraphQLSocket(
  socket: WebSocket,
  session: SocketSession<GatewayServices>,
): () => void {
  return serveGraphQLOverSocket(socket, session, {
    yoga: gatewayYoga(session.ctx.services),
    contextFor: (ctx) => gatewayContext(ctx, { publicPath: "", dryRun: false }),
  });
}
