import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import websocket from "@fastify/websocket";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { WebSocket } from "ws";
import { SettleAbandoned } from "../billing/ledger/credits.ts";
import { LedgerError } from "../billing/ledger/ledger.ts";
import type { BackendKind } from "../billing/metering/context.ts";
import type { NetworkName } from "../config/schema.ts";
import { AddressConnections, httpRefusal } from "../http/connection-limit.ts";
import { countInFlight, type DrainOutcome, drain } from "../http/drain.ts";
import {
  createFramework,
  isClientAbort,
  isTooLarge,
  notFoundBeforeBody,
  type OtherMethod,
  pathParts,
} from "../http/framework.ts";
import { type HttpsFront, startHttpsFront } from "../http/https-front.ts";
import { CallCut, InFlight } from "../http/in-flight.ts";
import { plainFailure, sendReply } from "../http/reply.ts";
import { gatewayError } from "../protocol/errors/codes.ts";
import { operatorRoutes } from "../routes/admin/routes.ts";
import { catalogueRoutes } from "../routes/catalogue/routes.ts";
import { dashboardRoutes } from "../routes/dashboard/routes.ts";
import { signedInAs } from "../routes/dashboard/signed-in.ts";
import { type ElectrumTlsListener, startElectrumTls } from "../routes/electrum/tls-listener.ts";
import { readiness } from "../routes/health/readiness.ts";
import { homeRoutes } from "../routes/home/routes.ts";
import { backendRoutes, type SocketRegistry } from "./backend-routes.ts";
import { notFound, type Served, servedBy } from "./not-found.ts";
import type { App } from "./services.ts";

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
  /** HTTPS on the same routes (config server.tls), when configured. */
  https: { port: number; url: string } | null;
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
  const served = servedBy(app.config, (network) => app.indexers.has(network as NetworkName));
  const otherMethods = ownRoutes(http, app, served);
  otherMethods.push(backendRoutes(http, app, served, { requests, sockets }));

  await http.ready();
  const server = http.server;
  const url = await listen(server, host, port);
  // Its sessions share the server's count of work in flight (drain waits for them) and the
  // per-address connection limit.
  const tls = app.config.server.tls;
  const https: HttpsFront | null = tls
    ? await startHttpsFront(server, { host, ...tls }).catch((err: unknown) => {
        server.close();
        throw err;
      })
    : null;
  const electrumTls: ElectrumTlsListener | null = await startElectrumTls(app, {
    requests,
    connections,
  }).catch(async (err: unknown) => {
    server.close();
    await https?.destroy();
    throw err;
  });
  // Loaded now, not at the first request (and a first request waits for the same load).
  app
    .unifiedApi()
    .catch((err: unknown) => app.log.error({ err }, "loading the unified API failed"));
  return {
    server,
    url,
    drain: drainer(server, { requests, sockets }, { electrumTls, https }),
    inFlight: () => requests.size,
    electrumTls: electrumTls ? { port: electrumTls.port } : null,
    https: https ? { port: https.port, url: https.url } : null,
  };
}

/**
 * Everything but the backends: wrong paths, metrics, errors, health, the operator's surfaces,
 * the dashboard, the catalogue and the front door. Returns what answers the methods routes are
 * not registered for, before a wrong path's answer: the backends' are to be added.
 */
function ownRoutes(http: FastifyInstance, app: App, served: Served): OtherMethod[] {
  const otherMethods: OtherMethod[] = [];
  notFoundBeforeBody(http, otherMethods, async (request, reply) => {
    const parts = pathParts(request);
    // The gateway's own surfaces keep the plain answer; a backend's path gets its protocol's.
    if (OWN_ROUTES.has(parts[0] ?? "")) {
      return sendReply(reply, plainFailure(gatewayError("ROUTE_NOT_FOUND", "no such route")));
    }
    return sendReply(reply, notFound(served, parts));
  });
  // Segment → backend kind, and the networks: what the metrics' labels may say.
  const labels = { backends: served.backends, networks: new Set<string>(app.config.networks) };
  http.addHook("onResponse", (request, reply, done) => {
    observe(app, labels, request, reply);
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
  otherMethods.push(operatorRoutes(http, app), dashboardRoutes(http, app));
  catalogueRoutes(http, app.config, signedInAs(app.db));
  const backends = [...served.backends].map(([segment, kind]) => {
    return { segment, kind, networks: served.networks.get(kind) ?? [] };
  });
  homeRoutes(http, { backends });
  return otherMethods;
}

/**
 * Listens as node:http does, on one socket (fastify.listen binds `localhost` twice), which drain
 * closes. Returns the server's URL.
 */
async function listen(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
}

function drainer(
  server: Server,
  { requests, sockets }: SocketRegistry,
  { electrumTls, https }: { electrumTls: ElectrumTlsListener | null; https: HttpsFront | null },
): RunningServer["drain"] {
  return async (timeoutMs, stopped) => {
    const outcome = await drain(server, requests, timeoutMs, {
      stopListening: async () => {
        await Promise.all([electrumTls?.stopListening(), https?.stopListening()]);
      },
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
    await Promise.all([electrumTls?.destroy(), https?.destroy()]);
    return outcome;
  };
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
function observe(
  app: App,
  labels: RouteLabels,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const [first = "", second = ""] = pathParts(request);
  const kind = labels.backends.get(first);
  const route = kind ?? (OWN_ROUTES.has(first) ? first : "unknown");
  const network = kind && labels.networks.has(second) ? second : "";
  app.metrics.requests.inc({ route, network, status: String(reply.statusCode) });
  app.metrics.latency.observe({ route }, reply.elapsedTime / 1000);
  const charged = Number(reply.getHeader("x-credits-charged") ?? 0);
  if (charged > 0) app.metrics.credits.inc({ route, network }, charged);
}

const OWN_ROUTES = new Set([
  "dashboard",
  "healthz",
  "readyz",
  "metrics",
  "admin",
  "methods",
  "methods.json",
]);

/** What the metrics' labels may say: backend segments and the configured networks. */
interface RouteLabels {
  backends: ReadonlyMap<string, BackendKind>;
  networks: Set<string>;
}
