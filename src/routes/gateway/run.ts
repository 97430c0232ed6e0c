import type { IncomingMessage } from "node:http";
import type { Readable } from "node:stream";
import { graphqlFailure, type HttpReply } from "../../http/reply.ts";
import { gatewayError } from "../../protocol/errors/codes.ts";
import { jsonDepthOver } from "../../protocol/json/json-depth.ts";
import { Cancel, type CancelSignal } from "../../util/cancel.ts";
import type { LruMap } from "../../util/lru.ts";
import type { GraphQLContext, RequestState } from "./context.ts";
import { electrumTransactionLoader, nodeTransactionLoader } from "./loaders.ts";
import type { ExecutorParts } from "./parts.ts";
import type { GatewayCallContext, GatewayServices, GraphQLRequest } from "./services.ts";
import { electrumCallLoader, nodeCallLoader } from "./upstream-calls.ts";
import { YOGA_PATH } from "./yoga.ts";

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
  api: Pick<ExecutorParts, "yoga" | "seenAtHex">,
  ctx: GatewayCallContext,
  call: GraphQLRequest,
  prepare: (state: RequestState) => void = () => {},
  /** A context made already (a planned request's, its loaders holding what it fetched). */
  made?: GraphQLContext,
): Promise<YogaRun> {
  const { req } = call;
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
      seenAtHex: api.seenAtHex,
    });
  prepare(context.state);
  const method = req.method ?? "GET";
  // URL and init rather than a Request: Yoga then builds its own fetch API's Request, a few
  // microseconds where Node's built-in Request and Headers cost a share of a request's CPU.
  let response: Response;
  try {
    response = await api.yoga.fetch(
      `http://gateway${YOGA_PATH}${url.search}`,
      {
        method,
        headers: flatHeaders(req),
        ...(method === "GET" || method === "HEAD"
          ? {}
          : { body: readableBody(ctx.services, call.body) }),
      },
      // The server context with nothing of its own: Yoga's server adapter copies every own
      // property of the one it is given into a fresh object (property descriptors one by one)
      // on each request, where this reads through to the context itself.
      Object.create(context) as GraphQLContext,
    );
  } catch (err) {
    // A keep-alive socket serves many requests: no listener of a failed one is left on it.
    req.socket?.off("close", onClose);
    throw err;
  }
  const done = () => req.socket?.off("close", onClose);
  return { reply: await replyOf(response, done, context.state.events), context };
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers[name] = value;
    else if (Array.isArray(value)) headers[name] = value.join(", ");
  }
  return headers;
}

/**
 * Yoga's response as an HttpReply; `done` once nothing more streams from the request. `events`:
 * the subscription's Server-Sent Events, written by the gateway (plugins/sse-events.ts).
 */
async function replyOf(
  response: Response,
  done: () => void,
  events?: Readable,
): Promise<HttpReply> {
  const out: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (name !== "content-length") out[name] = value;
  });
  if (events) return { status: response.status, body: null, headers: out, stream: events };
  // A subscription over Server-Sent Events: its events are written as they come.
  if (
    response.body &&
    (response.headers.get("content-type") ?? "").startsWith("text/event-stream")
  ) {
    return { status: response.status, body: null, headers: out, stream: response.body };
  }
  done();
  const raw = new Uint8Array(await response.arrayBuffer());
  // Yoga refuses a POST body of a type it does not read (none, text/plain, a form) with a bare
  // 415: no body, no type. Every refusal of a route is in its protocol (docs/users/errors.md), so
  // the client gets GraphQL's errors array with our code.
  if (response.status === 415 && raw.byteLength === 0) {
    return graphqlFailure(
      gatewayError(
        "UNSUPPORTED_MEDIA_TYPE",
        "send the request as application/json (or the query in the URL, with GET)",
      ),
    );
  }
  return { status: response.status, body: null, raw, headers: out };
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
  opts: {
    publicPath: string;
    dryRun: boolean;
    closed?: CancelSignal;
    /** The executor's note of transactions asked lately at verbosity 0 (loaders.ts). */
    seenAtHex: LruMap<string, true>;
  },
): GraphQLContext {
  const app = ctx.services;
  const state: RequestState = {
    meter: {
      calls: new Map(),
      graph: { answered: 0, complexity: 0 },
      cacheHits: 0,
      verified: [],
    },
    asks: { prevouts: false, position: true, graphSites: new Map(), joinBudget: new Map() },
    keep: {},
    plan: {},
  };
  const context: GraphQLContext = {
    ...ctx,
    publicPath: opts.publicPath,
    dryRun: opts.dryRun,
    state,
    nodeTransactions: nodeTransactionLoader(app, ctx.network, state, opts.seenAtHex),
    electrumTransactions: electrumTransactionLoader(app, ctx.network, state.meter),
    nodeCalls: nodeCallLoader(ctx, state.meter),
    electrumCalls: electrumCallLoader(ctx, state.meter),
    blocksBySite: new Map(),
    ...(opts.closed ? { closed: opts.closed } : {}),
  };
  return context;
}
