import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import websocket from "@fastify/websocket";
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from "fastify";
import type { WebSocket } from "ws";
import { authenticateCall } from "../access/authenticate.ts";
import { originAllowed, requestOutOfScope } from "../access/scope.ts";
import { checkScope } from "../access/scope-errors.ts";
import { presentedToken } from "../access/token-source.ts";
import { type TokenOwner, tokenHint } from "../access/tokens.ts";
import { SettleAbandoned } from "../billing/ledger/credits.ts";
import { LedgerError } from "../billing/ledger/ledger.ts";
import { admitCall } from "../billing/metering/admit.ts";
import type { BackendKind, CallContext } from "../billing/metering/context.ts";
import { idempotent } from "../billing/metering/idempotency.ts";
import { auditOnly } from "../billing/metering/pipeline.ts";
import type { SocketSession } from "../billing/metering/socket-session.ts";
import type { NetworkName } from "../config/schema.ts";
import { AddressConnections, httpRefusal } from "../http/connection-limit.ts";
import { corsHeaders, crossOrigin, preflightHeaders } from "../http/cors.ts";
import { countInFlight, type DrainOutcome, drain } from "../http/drain.ts";
import {
  ALL_METHODS,
  bodyText,
  createFramework,
  isClientAbort,
  isTooLarge,
  notFoundBeforeBody,
  pathParts,
} from "../http/framework.ts";
import { CallCut, InFlight } from "../http/in-flight.ts";
import {
  graphqlFailure,
  type HttpReply,
  jsonRpcFailure,
  plainFailure,
  sendReply,
} from "../http/reply.ts";
import { type GatewayError, gatewayError } from "../protocol/errors/codes.ts";
import { operatorRoutes } from "../routes/admin/routes.ts";
import { catalogueRoutes } from "../routes/catalogue/routes.ts";
import { dashboardRoutes } from "../routes/dashboard/routes.ts";
import { handleElectrumRpc } from "../routes/electrum/route.ts";
import { serveElectrumSocket } from "../routes/electrum/socket.ts";
import { type ElectrumTlsListener, startElectrumTls } from "../routes/electrum/tls-listener.ts";
import { unifiedApi, warmUnifiedApi } from "../routes/gateway/load.ts";
import { handleGraphQuery } from "../routes/graph/route.ts";
import { readiness } from "../routes/health/readiness.ts";
import { handleNodeRpc } from "../routes/node/route.ts";
import type { App } from "./services.ts";

/** What a backend route gets: its context, the body read within limits, and the request itself. */
export type RouteHandler = (
  ctx: CallContext<App>,
  body: string,
  req: IncomingMessage,
) => Promise<HttpReply>;

interface Route {
  handler: RouteHandler;
  methods: readonly string[];
  /** How failures before the handler (401, 405, 413) are worded: the route's own protocol. */
  protocol: "jsonrpc" | "graphql";
  /**
   * The route also takes a WebSocket upgrade (GET): its session, once the upgrade is admitted.
   * Returns how a drain ends the session: once the messages it has been sent are answered.
   */
  webSocket?: (socket: WebSocket, session: SocketSession<App>) => () => void;
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
    handler: async (ctx, body, req) => (await unifiedApi()).handleGateway(ctx, body, req),
    methods: ["GET", "POST"],
    protocol: "graphql",
    // graphql-ws (the graphql-transport-ws protocol): operations and subscriptions per message.
    webSocket: (socket, session) => {
      // A client speaks at once (connection_init), maybe before a fresh gateway has loaded the
      // API: the socket is read only once its handler listens, or that first message is lost.
      socket.pause();
      // Until the API is loaded nothing has been read: a drain closes the session at once.
      let shutdown = () => socket.close(1001, "server shutting down");
      unifiedApi().then(
        (api) => {
          if (socket.readyState !== socket.OPEN) return;
          shutdown = api.serveGraphQLSocket(socket, session);
          socket.resume();
        },
        () => socket.close(1011, "the unified API could not be loaded"),
      );
      return () => shutdown();
    },
  },
  graph: { handler: handleGraphQuery, methods: ["POST"], protocol: "graphql" },
};

/** Paths the gateway's own surfaces hold, whatever a backend's configured segment says. */
const OWN_SEGMENTS = new Set(["dashboard", "admin"]);

export interface RunningServer {
  server: Server;
  url: string;
  /**
   * Shutdown: the connections clients have made are accepted, then no new ones; idle keep-alive
   * connections closed, requests in flight answered (with `connection: close`) for up to
   * `timeoutMs`, then every connection left is closed (see drain.ts). `stopped`: the listeners
   * are closed and the requests that had arrived are counted in flight.
   */
  drain(timeoutMs: number, stopped?: () => void): Promise<DrainOutcome>;
  /** Requests being handled now. */
  inFlight(): number;
  /** The Electrum TLS listener for stock wallets (config electrum.tls), when configured. */
  electrumTls: { port: number } | null;
}

/**
 * The HTTP server composed from the routes. A backend request meets, in order: onRequest (counted
 * in flight; request id, CORS preflight, method, authenticate, scope, plan rates: each refusal
 * audited before the body is read), the body (within the route's limit), the route's handler
 * (parse, price, reserve, execute, settle, render), onResponse (metrics, the request log line).
 */
export async function startHttpServer(
  app: App,
  host: string,
  port: number,
): Promise<RunningServer> {
  const http = createFramework({
    requestTimeoutMs: app.config.server.requestTimeoutMs,
    headersTimeoutMs: app.config.server.headersTimeoutMs,
    keepAliveTimeoutMs: app.config.server.keepAliveTimeoutMs,
    bodyBytesMax: app.config.server.bodyBytesMax,
  });
  const connections = new AddressConnections(app.config.server.connectionsPerAddressMax, () =>
    app.metrics.connectionsRefused.inc(),
  );
  connections.watch(http.server, httpRefusal());
  const requests = new InFlight(http.server);
  countInFlight(http, requests);
  // WebSocket upgrades are routed like requests (their onRequest hooks authenticate them) before
  // `ws` takes the socket; a message may be as large as a body.
  await http.register(websocket, { options: { maxPayload: app.config.server.bodyBytesMax } });
  const sockets = new Map<WebSocket, () => void>();
  notFoundBeforeBody(http, async (_request, reply) =>
    sendReply(reply, plainFailure(gatewayError("ROUTE_NOT_FOUND", "no such route"))),
  );
  http.addHook("onResponse", (request, reply, done) => {
    observe(app, request, reply);
    done();
  });
  http.setErrorHandler((err, _request, reply) => unhandled(app, err, reply));

  // Liveness: the process answers. Nothing else is asked, so a slow database or upstream can
  // never get a live gateway restarted; that is /readyz's business.
  http.get("/healthz", async (_request, reply) =>
    sendReply(reply, { status: 200, body: { status: "ok" } }),
  );
  http.get("/readyz", async (_request, reply) =>
    sendReply(reply, { ...(await readiness(app)), headers: { "cache-control": "no-store" } }),
  );
  operatorRoutes(http, app);
  dashboardRoutes(http, app);
  catalogueRoutes(http, app.config);
  backendRoutes(http, app, { requests, sockets });

  await http.ready();
  // Listening as node:http does, on one socket (fastify.listen binds `localhost` twice), which
  // drain closes.
  const server = http.server;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  // Its sessions share the server's count of work in flight (drain waits for them) and the
  // per-address connection limit.
  const electrumTls: ElectrumTlsListener | null = await startElectrumTls(app, {
    requests,
    connections,
  }).catch((err: unknown) => {
    server.close();
    throw err;
  });
  warmUnifiedApi(app);
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
  return {
    server,
    url,
    drain: async (timeoutMs, stopped) => {
      const outcome = await drain(server, requests, timeoutMs, {
        stopListening: async () => electrumTls?.stopListening(),
        // Once what had arrived is read: WebSocket sessions are told the server is going away
        // (1001) and TLS sessions are ended, each once the messages it was sent are answered.
        stopped: () => {
          for (const shutdown of sockets.values()) shutdown();
          electrumTls?.endSessions();
          stopped?.();
        },
        closeAll: () => {
          for (const socket of sockets.keys()) socket.terminate();
        },
      });
      await electrumTls?.destroy();
      return outcome;
    },
    inFlight: () => requests.size,
    electrumTls: electrumTls ? { port: electrumTls.port } : null,
  };
}

/** One route per backend and network: `/<segment>/<network>/<token>`. */
/** What WebSocket sessions share with the server: in-flight work (drain waits) and the open set. */
interface SocketRegistry {
  requests: InFlight;
  /** Each open session, and how a drain ends it. */
  sockets: Map<WebSocket, () => void>;
}

function backendRoutes(http: FastifyInstance, app: App, registry: SocketRegistry): void {
  http.decorateRequest("call", null);
  const taken = new Set<string>();
  for (const backend of Object.keys(app.config.backends) as BackendKind[]) {
    const segment = app.config.backends[backend];
    // As the path matcher this replaces did: the first backend given a segment has it.
    if (taken.has(segment) || OWN_SEGMENTS.has(segment)) continue;
    taken.add(segment);
    const route = ROUTES[backend];
    if (!route) continue;
    for (const network of app.config.networks) {
      // A network without an indexer has no graph route, as one without the backend has none.
      if (backend === "graph" && !app.indexers.has(network)) continue;
      backendRoute(http, app, { ...route, backend, segment, network }, registry);
    }
  }
}

interface BackendRoute extends Route {
  backend: BackendKind;
  segment: string;
  network: NetworkName;
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
}

function backendRoute(
  http: FastifyInstance,
  app: App,
  route: BackendRoute,
  registry: SocketRegistry,
): void {
  /** The request's context, once authenticated (onRequest refuses everyone else). */
  const contextOf = (request: FastifyRequest): CallContext<App> => {
    const call = request.getDecorator<PendingCall>("call");
    return {
      services: app,
      requestId: request.id,
      owner: call.owner as TokenOwner,
      backend: route.backend,
      backendSegment: route.segment,
      network: route.network,
      startedAt: call.started,
      // The drain may cut the call before it is charged, never after.
      charge: (settle) => registry.requests.charge(call.response ?? request.raw, settle),
    };
  };
  const fromOf = (request: FastifyRequest) => ({
    source: request.socket.remoteAddress ?? "unknown",
    backendSegment: route.segment,
    network: route.network,
    route: route.backend,
  });
  const failure = route.protocol === "graphql" ? graphqlFailure : jsonRpcFailure;
  const fail = (reply: FastifyReply, error: GatewayError) => sendReply(reply, failure(error));
  const bodyBytesMax = app.config.server.bodyBytesMax;
  const onRequest = async (request: FastifyRequest, reply: FastifyReply) => {
    const presented = presentedToken((request.params as { token?: string }).token, request.headers);
    const call: PendingCall = {
      token: presented.token,
      tokenInPath: presented.inPath,
      started: Date.now(),
      owner: null,
    };
    request.setDecorator<PendingCall>("call", call);
    reply.header("x-request-id", request.id);
    const origin = crossOrigin(request.headers);
    if (request.method === "OPTIONS" && origin !== null) {
      return preflight(app, route, reply, origin, presented.inPath ? presented.token : null);
    }
    const upgrade = route.webSocket !== undefined && request.ws;
    if (!route.methods.includes(request.method) && !upgrade) {
      reply.header("allow", route.methods.join(", "));
      return fail(reply, gatewayError("METHOD_NOT_ALLOWED", `use ${route.methods.join(" or ")}`));
    }
    const from = fromOf(request);
    const authenticated = await authenticateCall(app, call.token, from);
    if (!authenticated.ok) {
      reply.headers(authenticated.headers);
      return fail(reply, authenticated.error);
    }
    call.owner = authenticated.owner;
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
    const admission = await admitCall(app, call.owner, from);
    reply.headers(admission.headers);
    if (!admission.ok) return fail(reply, admission.error);
    // The call's slot goes back when its answer is done, or its connection is gone. A WebSocket
    // session is no call: each of its messages is admitted (and takes a slot) on its own.
    if (admission.release) {
      if (upgrade) admission.release();
      else reply.raw.once("close", admission.release);
    }
    call.response = reply.raw;
  };
  // The token in the path, as the interface gives it, or in a header on the same path without it.
  for (const url of [
    `/${route.segment}/${route.network}/:token`,
    `/${route.segment}/${route.network}`,
  ]) {
    const options = {
      url,
      bodyLimit: bodyBytesMax,
      onRequest,
      handler: async (request, reply) => {
        const ctx = contextOf(request);
        // The route sees the URL as the client sent it (GraphiQL posts back to it).
        request.raw.url = request.originalUrl;
        const body = bodyText(request);
        // A retry with the same Idempotency-Key gets the first answer, not a second charge.
        const answer = await idempotent(
          ctx,
          request.headers["idempotency-key"],
          body,
          (c) => route.handler(c, body, request.raw),
          failure,
        );
        return sendReply(reply, answer);
      },
      errorHandler: async (err, request, reply) => {
        if (!isTooLarge(err)) throw err;
        // Refused before anything was read or priced: audited like any refusal, not charged. The
        // rest of the body is not read; the connection closes after the answer.
        const audited = await auditOnly(contextOf(request), [
          {
            method: "(invalid)",
            outcome: "rejected",
            errorCode: "PAYLOAD_TOO_LARGE",
            httpStatus: 413,
          },
        ]);
        reply.headers(audited.headers);
        return fail(reply, gatewayError("PAYLOAD_TOO_LARGE", `body over ${bodyBytesMax} bytes`));
      },
      // The request line: the token only as its hint.
      onResponse: async (request, reply) => {
        // Built only when it is written: at wire speed the line's object is a cost of its own.
        if (!app.log.isLevelEnabled("info")) return;
        const call = request.getDecorator<PendingCall>("call");
        app.log.info(
          {
            requestId: request.id,
            method: request.method,
            path: `/${route.segment}/${route.network}${call.tokenInPath ? `/${tokenHint(call.token)}` : ""}`,
            ...(call.tokenInPath || !call.token ? {} : { tokenHint: tokenHint(call.token) }),
            status: reply.statusCode,
            ms: Date.now() - call.started,
          },
          "request",
        );
      },
    } satisfies Omit<RouteOptions, "method">;
    const serveSocket = route.webSocket;
    if (!serveSocket) {
      http.route({ ...options, method: ALL_METHODS });
      continue;
    }
    // GET apart, for the plugin's upgrade (a plain GET still meets the route's 405).
    http.route({ ...options, method: ALL_METHODS.filter((m) => m !== "GET") });
    http.route({
      ...options,
      method: "GET",
      exposeHeadRoute: false,
      wsHandler: (socket, request) => {
        const call = request.getDecorator<PendingCall>("call");
        const from = fromOf(request);
        socket.once("close", () => registry.sockets.delete(socket));
        const shutdown = serveSocket(socket, {
          ctx: contextOf(request),
          stillValid: () => app.tokens.authenticate(call.token),
          admit: (owner) => admitCall(app, owner, from),
          // Each message's work counts in flight on the opening request: drain waits for it.
          inFlight: (work) => registry.requests.run(call.response!, work),
        });
        if (socket.readyState === socket.OPEN) registry.sockets.set(socket, shutdown);
      },
    });
  }
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

/**
 * The edge of the process. A body over its limit, wherever it was read (the dashboard's forms and
 * queries too), is the client's mistake: 413, the rest of the body unread and the connection
 * closed. A client that went away, or a call cut at shutdown, is left unanswered at debug level.
 * Anything else is logged with its cause and answered 500 without a stack trace.
 */
function unhandled(app: App, err: unknown, reply: FastifyReply) {
  // Cut by the drain, its connection already closed: nothing to answer, nothing gone wrong.
  if (err instanceof CallCut) {
    reply.raw.destroy();
    return reply;
  }
  if (isTooLarge(err) && !reply.raw.headersSent) {
    reply.header("connection", "close");
    return sendReply(
      reply,
      plainFailure(gatewayError("PAYLOAD_TOO_LARGE", "request body over the limit")),
    );
  }
  // Neither is the operator's to act on: a client gone mid-body, a call cut by a drain that
  // timed out (counted once by the shutdown). Nobody is left to answer.
  if (isClientAbort(err, reply.request) || err instanceof SettleAbandoned) {
    app.log.debug(
      { reqId: reply.request.id, why: (err as Error).message },
      "request ended unanswered",
    );
    reply.raw.destroy();
    return reply;
  }
  if (err instanceof LedgerError) app.metrics.ledgerFailures.inc();
  app.log.error({ err }, "unhandled error");
  if (!reply.raw.headersSent) {
    return sendReply(reply, plainFailure(gatewayError("INTERNAL", "internal error")));
  }
  reply.raw.destroy();
  return reply;
}

/** Metrics of one answered request: labels are route kinds and configured names only. */
function observe(app: App, request: FastifyRequest, reply: FastifyReply): void {
  const [first = "", second = ""] = pathParts(request);
  const labels = routeLabels(app);
  const kind = labels.backends.get(first);
  const route = kind ?? (OWN_ROUTES.has(first) ? first : "unknown");
  const network = kind && labels.networks.has(second) ? second : "";
  app.metrics.requests.inc({ route, network, status: String(reply.statusCode) });
  app.metrics.latency.observe({ route }, reply.elapsedTime / 1000);
  const charged = Number(reply.getHeader("x-credits-charged") ?? 0);
  if (charged > 0) app.metrics.credits.inc({ route, network }, charged);
}

const OWN_ROUTES = new Set(["dashboard", "healthz", "readyz", "metrics", "admin"]);

/** Segment → backend kind and the networks, made once per app (config does not change). */
const labelsOf = new WeakMap<App, { backends: Map<string, BackendKind>; networks: Set<string> }>();
function routeLabels(app: App) {
  let labels = labelsOf.get(app);
  if (!labels) {
    const backends = new Map<string, BackendKind>();
    for (const k of Object.keys(app.config.backends) as BackendKind[]) {
      // The first backend given a segment has it, as in routing.
      if (!backends.has(app.config.backends[k])) backends.set(app.config.backends[k], k);
    }
    labels = { backends, networks: new Set(app.config.networks) };
    labelsOf.set(app, labels);
  }
  return labels;
}
