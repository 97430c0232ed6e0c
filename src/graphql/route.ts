import type { IncomingMessage } from "node:http";
import type { App, CallContext } from "../app/context.ts";
import type { HttpReply } from "../http/reply.ts";
import { insertAudit } from "../ledger/audit.ts";
import type { GraphQLContext, RequestState } from "./context.ts";
import { graphqlAudit } from "./cost/plugin.ts";
import { electrumTransactionLoader, nodeTransactionLoader } from "./loaders.ts";
import { createGatewayYoga, YOGA_PATH } from "./yoga.ts";

/** One Yoga per running gateway (its limits come from that gateway's config). */
const yogas = new WeakMap<App, ReturnType<typeof createGatewayYoga>>();

/** The gateway's Yoga, built on first use (also by the warm-up right after the server listens). */
export function gatewayYoga(app: App): ReturnType<typeof createGatewayYoga> {
  let yoga = yogas.get(app);
  if (!yoga) {
    yoga = createGatewayYoga(app.config);
    yogas.set(app, yoga);
  }
  return yoga;
}

/** Who calls and how: the context's fixed part, plus the request to hand to Yoga. */
export type GraphQLCall = Pick<
  GraphQLContext,
  "app" | "owner" | "network" | "requestId" | "startedAt" | "publicPath" | "backendSegment"
> & { req: IncomingMessage; body: string };

/**
 * Runs one request through the unified API: Yoga on its fixed path with this call's context
 * (account, meter, loaders); whatever Yoga answers is returned with the credits headers the cost
 * plugin settled. Used by the gateway route and by the dashboard.
 */
export async function executeGraphQL(call: GraphQLCall): Promise<HttpReply> {
  const { app, req } = call;
  const yoga = gatewayYoga(app);
  const url = new URL(req.url ?? "/", "http://gateway");
  const state: RequestState = {
    meter: { calls: new Map(), graph: { answered: 0, complexity: 0 } },
    wantsPrevouts: false,
    graphSites: new Map(),
    joinBudget: new Map(),
    audited: false,
    creditHeaders: {},
  };
  const context: GraphQLContext = {
    app,
    owner: call.owner,
    network: call.network,
    requestId: call.requestId,
    startedAt: call.startedAt,
    publicPath: call.publicPath,
    backendSegment: call.backendSegment,
    dryRun: req.headers["x-dry-run"] === "true" || req.headers["x-dry-run"] === "1",
    state,
    nodeTransactions: nodeTransactionLoader(
      app,
      call.network,
      state.meter,
      () => state.wantsPrevouts,
    ),
    electrumTransactions: electrumTransactionLoader(app, call.network, state.meter),
    blocksBySite: new Map(),
  };
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(", "));
  }
  const method = req.method ?? "GET";
  const response = await yoga.fetch(
    new Request(`http://gateway${YOGA_PATH}${url.search}`, {
      method,
      headers,
      ...(method === "GET" || method === "HEAD" ? {} : { body: call.body }),
    }),
    context,
  );
  // Requests that never reached execution (parse or validation errors, bad HTTP) are audited
  // here, uncharged, so that every request has its record. Serving GraphiQL's page is not a call.
  if (!state.audited && !(response.headers.get("content-type") ?? "").startsWith("text/html")) {
    await insertAudit(
      app.db,
      graphqlAudit(context, "rejected", {
        errorCode: response.status >= 400 ? `HTTP_${response.status}` : null,
        httpStatus: response.status,
        estimatedCc: 0,
        chargedCc: 0,
      }),
    );
  }
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "content-length") out[name] = value;
  });
  return {
    status: response.status,
    body: null,
    raw: new Uint8Array(await response.arrayBuffer()),
    headers: { ...out, ...state.creditHeaders },
  };
}

/** The unified GraphQL API at /<gateway>/<network>/<token>. */
export function handleGateway(
  ctx: CallContext,
  body: string,
  req: IncomingMessage,
): Promise<HttpReply> {
  return executeGraphQL({
    app: ctx.app,
    owner: ctx.owner,
    network: ctx.network,
    requestId: ctx.requestId,
    startedAt: ctx.startedAt,
    publicPath: new URL(req.url ?? "/", "http://gateway").pathname,
    backendSegment: ctx.backendSegment,
    req,
    body,
  });
}
