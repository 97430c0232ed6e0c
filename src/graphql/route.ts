import type { IncomingMessage } from "node:http";
import type { CallContext } from "../app/context.ts";
import type { HttpReply } from "../http/reply.ts";
import { insertAudit } from "../ledger/audit.ts";
import type { GraphQLContext, RequestState } from "./context.ts";
import { graphqlAudit } from "./cost/plugin.ts";
import { nodeTransactionLoader } from "./loaders.ts";
import { createGatewayYoga, YOGA_PATH } from "./yoga.ts";

/** One Yoga per running gateway (its limits come from that gateway's config). */
const yogas = new WeakMap<CallContext["app"], ReturnType<typeof createGatewayYoga>>();

/**
 * The unified GraphQL API at /<gateway>/<network>/<token>: the request is handed to Yoga on its
 * fixed path with this call's context (account, meter, loaders); whatever Yoga answers is sent
 * with the credits headers the cost plugin settled.
 */
export async function handleGateway(
  ctx: CallContext,
  body: string,
  req: IncomingMessage,
): Promise<HttpReply> {
  let yoga = yogas.get(ctx.app);
  if (!yoga) {
    yoga = createGatewayYoga(ctx.app.config);
    yogas.set(ctx.app, yoga);
  }
  const url = new URL(req.url ?? "/", "http://gateway");
  const state: RequestState = {
    meter: { calls: new Map() },
    wantsPrevouts: false,
    audited: false,
    creditHeaders: {},
  };
  const context: GraphQLContext = {
    app: ctx.app,
    owner: ctx.owner,
    network: ctx.network,
    requestId: ctx.requestId,
    startedAt: ctx.startedAt,
    publicPath: url.pathname,
    backendSegment: ctx.backendSegment,
    dryRun: req.headers["x-dry-run"] === "true" || req.headers["x-dry-run"] === "1",
    state,
    nodeTransactions: nodeTransactionLoader(
      ctx.app,
      ctx.network,
      state.meter,
      () => state.wantsPrevouts,
    ),
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
      ...(method === "GET" || method === "HEAD" ? {} : { body }),
    }),
    context,
  );
  // Requests that never reached execution (parse or validation errors, GraphiQL, bad HTTP) are
  // audited here, uncharged, so that every request has its record.
  if (!state.audited && !isGraphiQL(response)) {
    await insertAudit(
      ctx.app.db,
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

function isGraphiQL(response: Response): boolean {
  return (response.headers.get("content-type") ?? "").startsWith("text/html");
}
