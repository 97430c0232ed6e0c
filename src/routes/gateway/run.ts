import type { IncomingMessage } from "node:http";
import { graphqlFailure, type HttpReply } from "../../http/reply.ts";
import { gatewayError } from "../../protocol/errors/codes.ts";
import { jsonDepthOver } from "../../protocol/json/json-depth.ts";
import { Cancel, type CancelSignal } from "../../util/cancel.ts";
import type { GraphQLContext, RequestState } from "./context.ts";
import { electrumTransactionLoader, nodeTransactionLoader } from "./loaders.ts";
import { DocumentCache } from "./plugins/document-cache.ts";
import type { GatewayCallContext, GatewayServices } from "./services.ts";
import { electrumCallLoader, nodeCallLoader } from "./upstream-calls.ts";
import { createGatewayYoga, YOGA_PATH } from "./yoga.ts";

/** One Yoga per running gateway (its limits come from that gateway's config). */
const yogas = new WeakMap<GatewayServices, ReturnType<typeof createGatewayYoga>>();
/** Each Yoga's parsed documents (bounded in bytes), for its tests and the fuzz bench to read. */
const documentCaches = new WeakMap<GatewayServices, DocumentCache>();

/** The running gateway's document cache (undefined until its Yoga is built). */
export function documentCacheOf(app: GatewayServices): DocumentCache | undefined {
  return documentCaches.get(app);
}

/** The running gateway's document cache, its Yoga built first if need be. */
export function gatewayDocuments(app: GatewayServices): DocumentCache {
  gatewayYoga(app);
  return documentCaches.get(app) as DocumentCache;
}

/** The gateway's Yoga, built on first use (also by the warm-up right after the server listens). */
export function gatewayYoga(app: GatewayServices): ReturnType<typeof createGatewayYoga> {
  let yoga = yogas.get(app);
  if (!yoga) {
    const documents = new DocumentCache(app.config.graphql.documentCacheBytesMax);
    documentCaches.set(app, documents);
    yoga = createGatewayYoga(app.config, app.log, documents);
    yogas.set(app, yoga);
  }
  return yoga;
}

/** What executeGraphQL needs besides the call's context: the request to hand to Yoga. */
export interface GraphQLRequest {
  req: IncomingMessage;
  body: string;
  /** The path the caller used, token included, so GraphiQL posts back to it. */
  publicPath: string;
}

/** Yoga's reply to one request, and the context it ran with (its state says what happened). */
export interface YogaRun {
  reply: HttpReply;
  context: GraphQLContext;
}

/**
 * Runs one request through Yoga on its fixed path with a fresh context for this call (account,
 * meter, loaders); `prepare` sets what the caller wants of the request's state first. What Yoga
 * answers — metered by the cost plugin, audit and credit headers included — comes back as an
 * HttpReply: bytes, or a stream for a subscription.
 */
export async function runYoga(
  ctx: GatewayCallContext,
  call: GraphQLRequest,
  prepare: (state: RequestState) => void = () => {},
  /** A context made already (a planned request's, its loaders holding what it fetched). */
  made?: GraphQLContext,
): Promise<YogaRun> {
  const app = ctx.services;
  const { req } = call;
  const yoga = gatewayYoga(app);
  const url = new URL(req.url ?? "/", "http://gateway");
  // The client's connection closing ends what this request still streams (a subscription): told
  // directly, not through the stream, whose cancel need not reach the source before an event.
  const closed = new Cancel(); // not an AbortController: util/cancel.ts says why
  const onClose = () =>
    closed.abort(new DOMException("the client's connection closed", "AbortError"));
  req.socket?.once("close", onClose);
  const context =
    made ??
    gatewayContext(ctx, {
      publicPath: call.publicPath,
      dryRun: req.headers["x-dry-run"] === "true" || req.headers["x-dry-run"] === "1",
      closed,
    });
  prepare(context.state);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers[name] = value;
    else if (Array.isArray(value)) headers[name] = value.join(", ");
  }
  const method = req.method ?? "GET";
  // URL and init rather than a Request: Yoga then builds its own fetch API's Request, a few
  // microseconds where Node's built-in Request and Headers cost some 3% of a request's CPU.
  let response: Response;
  try {
    response = await yoga.fetch(
      `http://gateway${YOGA_PATH}${url.search}`,
      {
        method,
        headers,
        ...(method === "GET" || method === "HEAD" ? {} : { body: readableBody(app, call.body) }),
      },
      context,
    );
  } catch (err) {
    // A keep-alive socket serves many requests: no listener of a failed one is left on it.
    req.socket?.off("close", onClose);
    throw err;
  }
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "content-length") out[name] = value;
  });
  // A subscription over Server-Sent Events: its events are written as they come.
  if (
    response.body &&
    (response.headers.get("content-type") ?? "").startsWith("text/event-stream")
  ) {
    return {
      reply: { status: response.status, body: null, headers: out, stream: response.body },
      context,
    };
  }
  req.socket?.off("close", onClose);
  const raw = new Uint8Array(await response.arrayBuffer());
  // Yoga refuses a POST body of a type it does not read (none, text/plain, a form) with a bare
  // 415: no body, no type. Every refusal of a route is in its protocol (docs/users/errors.md), so the
  // client gets GraphQL's errors array with our code.
  if (response.status === 415 && raw.byteLength === 0) {
    return {
      reply: graphqlFailure(
        gatewayError(
          "UNSUPPORTED_MEDIA_TYPE",
          "send the request as application/json (or the query in the URL, with GET)",
        ),
      ),
      context,
    };
  }
  return { reply: { status: response.status, body: null, raw, headers: out }, context };
}

/**
 * The body Yoga is given. One nested past `server.jsonDepthMax` is given to it as text that is not
 * JSON, so it takes the very path of any unreadable body (400 INVALID_JSON, audited by the cost
 * plugin) without Yoga parsing, and our plugins walking, a value deep enough to stall the process.
 */
function readableBody(app: GatewayServices, body: string): string {
  return jsonDepthOver(body, app.config.server.jsonDepthMax) ? "{" : body;
}

/**
 * A request's GraphQL context: its GatewayCallContext, a fresh meter and the request's loaders (batched
 * and deduplicated within it). One per HTTP request, one per operation on a WebSocket.
 */
export function gatewayContext(
  ctx: GatewayCallContext,
  opts: { publicPath: string; dryRun: boolean; closed?: CancelSignal },
): GraphQLContext {
  const app = ctx.services;
  const state: RequestState = {
    meter: { calls: new Map(), graph: { answered: 0, complexity: 0 }, cacheHits: 0 },
    wantsPrevouts: false,
    wantsPosition: true,
    graphSites: new Map(),
    joinBudget: new Map(),
  };
  const context: GraphQLContext = {
    ...ctx,
    publicPath: opts.publicPath,
    dryRun: opts.dryRun,
    state,
    nodeTransactions: nodeTransactionLoader(app, ctx.network, state.meter, state),
    electrumTransactions: electrumTransactionLoader(app, ctx.network, state.meter),
    nodeCalls: nodeCallLoader(ctx, state.meter),
    electrumCalls: electrumCallLoader(ctx, state.meter),
    blocksBySite: new Map(),
    ...(opts.closed ? { closed: opts.closed } : {}),
  };
  return context;
}
