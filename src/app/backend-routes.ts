import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import type { WebSocket } from "ws";
import { authenticateCall } from "../access/authenticate.ts";
import { originAllowed, requestOutOfScope } from "../access/scope.ts";
import { checkScope } from "../access/scope-errors.ts";
import { type PresentedToken, presentedToken } from "../access/token-source.ts";
import { type TokenOwner, tokenHint } from "../access/tokens.ts";
import { admitCall } from "../billing/metering/admit.ts";
import type { BackendKind, CallContext } from "../billing/metering/context.ts";
import { idempotent } from "../billing/metering/idempotency.ts";
import { auditOnly } from "../billing/metering/pipeline.ts";
import type { SocketSession } from "../billing/metering/socket-session.ts";
import type { NetworkName } from "../config/schema.ts";
import { corsHeaders, crossOrigin, preflightHeaders } from "../http/cors.ts";
import { bodyText, isTooLarge, type OtherMethod, pathParts } from "../http/framework.ts";
import type { InFlight } from "../http/in-flight.ts";
import {
  graphqlFailure,
  type HttpReply,
  jsonRpcFailure,
  plainFailure,
  sendReply,
  textFailure,
} from "../http/reply.ts";
import type { CapTicket } from "../limits/cap-ticket.ts";
import { type GatewayError, gatewayError } from "../protocol/errors/codes.ts";
import {
  REQUIRE_VERIFIED_HEADER,
  requiresVerified,
  VERIFIED_HEADER,
} from "../protocol/verified.ts";
import { handleElectrumRpc } from "../routes/electrum/route.ts";
import { serveElectrumSocket } from "../routes/electrum/socket.ts";
import { handleEsplora } from "../routes/esplora/route.ts";
import { handleGraphQuery } from "../routes/graph/route.ts";
import { handleNodeRpc } from "../routes/node/route.ts";
import type { Served } from "./not-found.ts";
import type { App } from "./services.ts";

/**
 * What a backend route gets: its context, the body read within limits, the request itself, and
 * (a route with a path below it) that path.
 */
export type RouteHandler = (
  ctx: CallContext<App>,
  body: string,
  req: IncomingMessage,
  tail: string,
) => Promise<HttpReply>;

interface Route {
  handler: RouteHandler;
  methods: readonly string[];
  /** How failures before the handler (401, 405, 413) are worded: the route's own protocol. */
  protocol: "jsonrpc" | "graphql" | "text";
  /**
   * The route is a REST API below `<token>/api/` (or `api/` with the token in a header), so a
   * client given that URL as its base calls it unchanged.
   */
  api?: true;
  /**
   * The route also takes a WebSocket upgrade (GET): its session, once the upgrade is admitted.
   * Returns how a drain ends the session: once the messages it has been sent are answered.
   */
  webSocket?: (socket: WebSocket, session: SocketSession<App>) => () => void;
}

/** graphql-ws (the graphql-transport-ws protocol) on the unified API: operations per message. */
function unifiedApiSocket(socket: WebSocket, session: SocketSession<App>): () => void {
  // A client speaks at once (connection_init), maybe before a fresh gateway has loaded the API:
  // the socket is read only once its handler listens, or that first message is lost.
  socket.pause();
  // Until the API is loaded nothing has been read: a drain closes the session at once.
  let shutdown = () => socket.close(1001, "server shutting down");
  session.ctx.services.unifiedApi().then(
    (api) => {
      if (socket.readyState !== socket.OPEN) return;
      shutdown = api.serveSocket(socket, session);
      socket.resume();
    },
    () => socket.close(1011, "the unified API could not be loaded"),
  );
  return () => shutdown();
}

/** Backends served so far; a configured segment without a route answers 404 like any unknown. */
const ROUTES: Partial<Record<BackendKind, Route>> = {
  node: { handler: handleNodeRpc, methods: ["POST"], protocol: "jsonrpc" },
  electrum: {
    handler: handleElectrumRpc,
    methods: ["POST"],
    protocol: "jsonrpc",
    webSocket: serveElectrumSocket,
  },
  // GET serves GraphiQL to browsers and runs queries per the GraphQL-over-HTTP spec.
  gateway: {
    handler: async (ctx, body, req) =>
      (await ctx.services.unifiedApi()).execute(ctx, {
        req,
        body,
        publicPath: new URL(req.url ?? "/", "http://gateway").pathname,
      }),
    methods: ["GET", "POST"],
    protocol: "graphql",
    webSocket: unifiedApiSocket,
  },
  graph: { handler: handleGraphQuery, methods: ["POST"], protocol: "graphql" },
  esplora: {
    handler: (ctx, body, req, tail) =>
      handleEsplora(ctx, body, req.method ?? "GET", `/${tail}`, req.headers.accept),
    methods: ["GET", "POST"],
    protocol: "text",
    api: true,
  },
};

/** What WebSocket sessions share with the server: in-flight work (drain waits) and the open set. */
export interface SocketRegistry {
  requests: InFlight;
  /** Each open session, and how a drain ends it. */
  sockets: Map<WebSocket, () => void>;
}

/**
 * One route per backend and network served: `/<segment>/<network>/<token>`. Returns the 405 of
 * these routes for the methods they are not registered for (`OtherMethod`).
 */
export function backendRoutes(
  http: FastifyInstance,
  app: App,
  served: Served,
  registry: SocketRegistry,
): OtherMethod {
  http.decorateRequest("call", null);
  const routes = new Map<string, RouteSetup>();
  for (const [segment, backend] of served.backends) {
    const route = ROUTES[backend];
    if (!route) continue;
    for (const network of served.networks.get(backend) ?? []) {
      const routed = { ...route, backend, segment, network: network as NetworkName };
      const setup = { app, route: routed, registry };
      backendRoute(http, setup);
      routes.set(`${segment}/${network}`, setup);
    }
  }
  return (request, reply) => {
    const [segment, network] = pathParts(request);
    const setup = routes.get(`${segment}/${network}`);
    if (!setup) return undefined;
    // Every backend route takes OPTIONS (preflights): routed for it, the path is the route's,
    // with the parameters the route would have been given.
    const found = http.findRoute({ method: "OPTIONS", url: request.url });
    if (!found) return undefined;
    return otherMethod(setup, request, reply, (found.params as { token?: string }).token);
  };
}

interface BackendRoute extends Route {
  backend: BackendKind;
  segment: string;
  network: NetworkName;
}

/** One backend route of one network, with what its hooks share. */
interface RouteSetup {
  app: App;
  route: BackendRoute;
  registry: SocketRegistry;
}

/** What the hooks before the body learn of a backend call, for the handler. */
interface PendingCall {
  token: string;
  /** Whether the token came in the path (the request line logs its hint there). */
  tokenInPath: boolean;
  started: number;
  owner: TokenOwner | null;
  /** The response the request is tracked in flight by (a WebSocket session's messages too). */
  response?: ServerResponse;
  /** What admission took of the plan's credit caps, for the cap phase (meter) to claim. */
  caps?: CapTicket | null;
}

/** The request's context, once authenticated (onRequest refuses everyone else). */
function contextOf(
  { app, route, registry }: RouteSetup,
  request: FastifyRequest,
): CallContext<App> {
  const call = request.getDecorator<PendingCall>("call");
  return {
    services: app,
    requestId: request.id,
    owner: call.owner as TokenOwner,
    backend: route.backend,
    backendSegment: route.segment,
    network: route.network,
    startedAt: call.started,
    requireVerified: requiresVerified(request.headers[REQUIRE_VERIFIED_HEADER]),
    // The drain may cut the call before it is charged, never after.
    charge: (settle) => registry.requests.charge(call.response ?? request.raw, settle),
    caps: call.caps ?? null,
  };
}

function fromOf(route: BackendRoute, request: FastifyRequest) {
  return {
    source: request.socket.remoteAddress ?? "unknown",
    backendSegment: route.segment,
    network: route.network,
    route: route.backend,
  };
}

/** How a route words a failure of the gateway's own: in its protocol. */
function failureOf(route: Route): (error: GatewayError) => HttpReply {
  if (route.protocol === "graphql") return graphqlFailure;
  return route.protocol === "text" ? textFailure : jsonRpcFailure;
}

function failWith(route: BackendRoute) {
  const failure = failureOf(route);
  return (reply: FastifyReply, error: GatewayError) => sendReply(reply, failure(error));
}

function backendRoute(http: FastifyInstance, setup: RouteSetup): void {
  const { route } = setup;
  const options = {
    bodyLimit: setup.app.config.server.bodyBytesMax,
    onRequest: beforeBody(setup),
    handler: (request: FastifyRequest, reply: FastifyReply) => handle(setup, request, reply),
    errorHandler: (err: Error, request: FastifyRequest, reply: FastifyReply) =>
      tooLarge(setup, err, request, reply),
    onResponse: async (request: FastifyRequest, reply: FastifyReply) =>
      logRequest(setup, request, reply),
  } satisfies Omit<RouteOptions, "method" | "url">;
  // The token in the path, as the interface gives it, or in a header on the same path without it.
  const below = route.api ? "/api/*" : "";
  // The methods it serves, and OPTIONS for preflights; any other is answered 405 by the same
  // hooks from the not-found handler (backendRoutes).
  const methods = [...route.methods, "OPTIONS"];
  for (const url of [
    `/${route.segment}/${route.network}/:token${below}`,
    `/${route.segment}/${route.network}${below}`,
  ]) {
    if (!route.webSocket) {
      http.route({ ...options, url, method: methods });
      continue;
    }
    // GET apart, for the plugin's upgrade (a plain GET still meets the route's 405).
    http.route({ ...options, url, method: methods.filter((m) => m !== "GET") });
    http.route({
      ...options,
      url,
      method: "GET",
      exposeHeadRoute: false,
      wsHandler: (socket, request) => openSocket(setup, socket, request),
    });
  }
}

/** A backend request's call as the hooks begin it, and what every answer to it carries. */
function beginCall(
  request: FastifyRequest,
  reply: FastifyReply,
  pathToken: string | undefined,
): { call: PendingCall; presented: PresentedToken } {
  const presented = presentedToken(pathToken, request.headers);
  const call: PendingCall = {
    token: presented.token,
    tokenInPath: presented.inPath,
    started: Date.now(),
    owner: null,
  };
  request.setDecorator<PendingCall>("call", call);
  reply.header("x-request-id", request.id);
  // Nothing checked until a route says otherwise: refusals, and routes nothing verifies.
  reply.header(VERIFIED_HEADER, "unchecked");
  return { call, presented };
}

/** 405, before anything else is checked: the methods the route takes, in its protocol. */
function wrongMethod(route: BackendRoute, reply: FastifyReply) {
  reply.header("allow", route.methods.join(", "));
  return failWith(route)(
    reply,
    gatewayError("METHOD_NOT_ALLOWED", `use ${route.methods.join(" or ")}`),
  );
}

/**
 * A method the route is not registered for, from the not-found handler: the 405 its hooks give,
 * and its request line (the route's onResponse does not run there).
 */
async function otherMethod(
  setup: RouteSetup,
  request: FastifyRequest,
  reply: FastifyReply,
  pathToken: string | undefined,
) {
  beginCall(request, reply, pathToken);
  const sent = wrongMethod(setup.route, reply);
  logRequest(setup, request, reply);
  return sent;
}

/** The hooks before the body: each refusal answered in the route's protocol, unread body and all. */
function beforeBody(setup: RouteSetup) {
  const { app, route } = setup;
  const fail = failWith(route);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const pathToken = (request.params as { token?: string }).token;
    const { call, presented } = beginCall(request, reply, pathToken);
    const origin = crossOrigin(request.headers);
    if (request.method === "OPTIONS" && origin !== null) {
      return preflight(app, route, reply, origin, presented.inPath ? presented.token : null);
    }
    const upgrade = route.webSocket !== undefined && request.ws;
    // OPTIONS without an Origin, or a plain GET where only the upgrade is registered.
    if (!route.methods.includes(request.method) && !upgrade) return wrongMethod(route, reply);
    const from = fromOf(route, request);
    const authenticated = await authenticateCall(app, call.token, from, presented);
    if (!authenticated.ok) {
      reply.headers(authenticated.headers);
      return fail(reply, authenticated.error);
    }
    call.owner = authenticated.owner;
    // Authenticated backend requests alone tell how loaded the gateway is (RecentLoad): they are
    // audited, refusals included; a probe, a scrape or a failed authentication never settles, and
    // a statement must not wait for it.
    reply.raw.once("close", app.load.arrival());
    // Fields written out: V8 copies and extends a fresh literal (`{ ...from, … }`) far slower.
    const outside = checkScope(app, call.owner, {
      source: from.source,
      backendSegment: from.backendSegment,
      network: from.network,
      backend: route.backend,
      origin,
    });
    if (outside) return fail(reply, outside);
    // A page on an origin the token allows may read every answer from here on, refusals included.
    if (origin !== null && originAllowed(call.owner.scope ?? null, origin)) {
      reply.headers(corsHeaders(origin));
    }
    const admission = await admitCall(app, call.owner, from, !upgrade);
    reply.headers(admission.headers);
    if (!admission.ok) return fail(reply, admission.error);
    call.caps = admission.caps ?? null;
    // The call's slot goes back when its answer is done, or its connection is gone. A WebSocket
    // session is no call: each of its messages is admitted (and takes a slot) on its own.
    if (admission.release) {
      if (upgrade) admission.release();
      else reply.raw.once("close", admission.release);
    }
    call.response = reply.raw;
  };
}

async function handle(setup: RouteSetup, request: FastifyRequest, reply: FastifyReply) {
  const ctx = contextOf(setup, request);
  // The route sees the URL as the client sent it (GraphiQL posts back to it).
  request.raw.url = request.originalUrl;
  const body = bodyText(request);
  const tail = (request.params as { "*"?: string })["*"] ?? "";
  // A retry with the same Idempotency-Key gets the first answer, not a second charge.
  const answer = await idempotent(
    ctx,
    request.headers["idempotency-key"],
    body,
    (c) => setup.route.handler(c, body, request.raw, tail),
    failureOf(setup.route),
  );
  return sendReply(reply, answer);
}

/**
 * A body over the limit, refused before anything was read or priced: audited like any refusal,
 * not charged. The rest of the body is not read; the connection closes after the answer.
 */
async function tooLarge(
  setup: RouteSetup,
  err: Error,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  if (!isTooLarge(err)) throw err;
  const audited = await auditOnly(contextOf(setup, request), [
    { method: "(invalid)", outcome: "rejected", errorCode: "PAYLOAD_TOO_LARGE", httpStatus: 413 },
  ]);
  reply.headers(audited.headers);
  const bodyBytesMax = setup.app.config.server.bodyBytesMax;
  return failWith(setup.route)(
    reply,
    gatewayError("PAYLOAD_TOO_LARGE", `body over ${bodyBytesMax} bytes`),
  );
}

/** The request line: the token only as its hint. */
function logRequest({ app, route }: RouteSetup, request: FastifyRequest, reply: FastifyReply) {
  // Built only when it is written: at wire speed the line's object is a cost of its own.
  if (!app.log.isLevelEnabled("info")) return;
  const call = request.getDecorator<PendingCall>("call");
  const hint = call.tokenInPath ? `/${tokenHint(call.token)}` : "";
  app.log.info(
    {
      requestId: request.id,
      method: request.method,
      path: `/${route.segment}/${route.network}${hint}`,
      ...(call.tokenInPath || !call.token ? {} : { tokenHint: tokenHint(call.token) }),
      status: reply.statusCode,
      ms: Date.now() - call.started,
    },
    "request",
  );
}

/** A WebSocket session on the route, once its upgrade was admitted by the hooks before the body. */
function openSocket(setup: RouteSetup, socket: WebSocket, request: FastifyRequest): void {
  const { app, route, registry } = setup;
  const call = request.getDecorator<PendingCall>("call");
  const from = fromOf(route, request);
  socket.once("close", () => registry.sockets.delete(socket));
  const serve = route.webSocket as NonNullable<Route["webSocket"]>;
  const shutdown = serve(socket, {
    ctx: contextOf(setup, request),
    stillValid: () => app.tokens.authenticate(call.token),
    admit: (owner) => admitCall(app, owner, from),
    // Each message's work counts in flight on the opening request: drain waits for it.
    inFlight: (work) => registry.requests.run(call.response as ServerResponse, work),
  });
  if (socket.readyState === socket.OPEN) registry.sockets.set(socket, shutdown);
}

/**
 * A browser's CORS preflight (OPTIONS with an Origin). With the token in the path it is answered
 * per token: the allowed headers only for an origin the token's scope lists (and a token in scope
 * for this route, network and address); anything else gets a 403 without them, so the browser
 * never sends the call. A preflight cannot carry the Authorization or X-Api-Key header, so with
 * the token in a header the preflight is allowed for any origin and the call itself is refused
 * 403 SCOPE_ORIGIN (not run, not charged, unreadable to the page) when its origin is not listed.
 */
async function preflight(
  app: App,
  route: BackendRoute,
  reply: FastifyReply,
  origin: string,
  pathToken: string | null,
) {
  const allowed = [...route.methods, "OPTIONS"];
  if (pathToken !== null) {
    const owner = await app.tokens.authenticate(pathToken);
    const inScope =
      owner !== null &&
      originAllowed(owner.scope ?? null, origin) &&
      requestOutOfScope(owner.scope ?? null, {
        backend: route.backend,
        network: route.network,
        address: reply.request.socket.remoteAddress ?? "",
        origin,
      }) === null;
    if (!inScope) {
      return sendReply(reply, plainFailure(gatewayError("SCOPE_ORIGIN", "origin not allowed")));
    }
  }
  reply.headers(preflightHeaders(origin, allowed));
  return reply.code(204).send();
}
