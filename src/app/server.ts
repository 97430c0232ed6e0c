import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { handleOperator } from "../admin/routes.ts";
import { tokenHint } from "../auth/tokens.ts";
import type { NetworkName } from "../config/schema.ts";
import { handleDashboard } from "../dashboard/routes.ts";
import { gatewayError } from "../errors/codes.ts";
import { unifiedApi, warmUnifiedApi } from "../graphql/load.ts";
import { BodyTooLarge, readBody } from "../http/body.ts";
import { type DrainOutcome, drain, InFlight } from "../http/drain.ts";
import {
  graphqlFailure,
  type HttpReply,
  jsonRpcFailure,
  plainFailure,
  sendJson,
} from "../http/reply.ts";
import { LedgerError } from "../ledger/ledger.ts";
import { authenticateCall } from "../metering/authenticate.ts";
import type { App, BackendKind, CallContext } from "../metering/context.ts";
import { idempotent } from "../metering/idempotency.ts";
import { auditOnly } from "../metering/pipeline.ts";
import { handleElectrumRpc } from "../mirror/electrum-route.ts";
import { handleGraphQuery } from "../mirror/graph-route.ts";
import { handleNodeRpc } from "../mirror/node-route.ts";
import { readiness } from "./readiness.ts";

/** What a backend route gets: its context, the body read within limits, and the request itself. */
export type RouteHandler = (
  ctx: CallContext,
  body: string,
  req: IncomingMessage,
) => Promise<HttpReply>;

interface Route {
  handler: RouteHandler;
  methods: readonly string[];
  /** How failures before the handler (401, 405, 413) are worded: the route's own protocol. */
  protocol: "jsonrpc" | "graphql";
}

/** Backends served so far; a configured segment without a route answers 404 like any unknown. */
const ROUTES: Partial<Record<BackendKind, Route>> = {
  node: { handler: handleNodeRpc, methods: ["POST"], protocol: "jsonrpc" },
  electrum: { handler: handleElectrumRpc, methods: ["POST"], protocol: "jsonrpc" },
  // GET serves GraphiQL to browsers and runs queries per the GraphQL-over-HTTP spec.
  gateway: {
    handler: async (ctx, body, req) => (await unifiedApi()).handleGateway(ctx, body, req),
    methods: ["GET", "POST"],
    protocol: "graphql",
  },
  graph: { handler: handleGraphQuery, methods: ["POST"], protocol: "graphql" },
};

export interface RunningServer {
  server: Server;
  url: string;
  /**
   * Shutdown: no new connections from the moment it is called, idle keep-alive connections
   * closed, requests in flight answered (with `connection: close`) for up to `timeoutMs`, then
   * every connection left is closed (see drain.ts).
   */
  drain(timeoutMs: number): Promise<DrainOutcome>;
  /** Requests being handled now. */
  inFlight(): number;
}

export async function startHttpServer(
  app: App,
  host: string,
  port: number,
): Promise<RunningServer> {
  const server = createServer((req, res) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => observe(app, req, res, started));
    requests.track(res, () =>
      handle(app, req, res).catch((err: unknown) => {
        // A body over its limit, wherever it was read (the dashboard's forms and queries too):
        // the client's mistake, answered 413, and the rest of the body is not read.
        if (err instanceof BodyTooLarge && !res.headersSent) {
          res.setHeader("connection", "close");
          return sendJson(
            res,
            plainFailure(gatewayError("PAYLOAD_TOO_LARGE", "request body over the limit")),
          );
        }
        // The edge of the process: log the cause, answer without a stack trace.
        if (err instanceof LedgerError) app.metrics.ledgerFailures.inc();
        app.log.error({ err }, "unhandled error");
        if (!res.headersSent)
          sendJson(res, plainFailure(gatewayError("INTERNAL", "internal error")));
        else res.destroy();
      }),
    );
  });
  const requests = new InFlight(server);
  server.requestTimeout = 60_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  warmUnifiedApi(app);
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
  return {
    server,
    url,
    drain: (timeoutMs) => drain(server, requests, timeoutMs),
    inFlight: () => requests.size,
  };
}

/** Metrics of one answered request: labels are route kinds and configured names only. */
function observe(app: App, req: IncomingMessage, res: ServerResponse, started: bigint): void {
  const [first = "", second = ""] = new URL(req.url ?? "/", "http://gateway").pathname
    .split("/")
    .filter((p) => p !== "");
  const kind = (Object.keys(app.config.backends) as BackendKind[]).find(
    (k) => app.config.backends[k] === first,
  );
  const route =
    kind ??
    (["dashboard", "healthz", "readyz", "metrics", "admin"].includes(first) ? first : "unknown");
  const network = kind && app.config.networks.includes(second as NetworkName) ? second : "";
  app.metrics.requests.inc({ route, network, status: String(res.statusCode) });
  app.metrics.latency.observe({ route }, Number(process.hrtime.bigint() - started) / 1e9);
  const charged = Number(res.getHeader("x-credits-charged") ?? 0);
  if (charged > 0) app.metrics.credits.inc({ route, network }, charged);
}

async function handle(app: App, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://gateway");
  const parts = url.pathname.split("/").filter((p) => p !== "");
  if (parts.length === 1 && parts[0] === "healthz" && req.method === "GET") {
    // Liveness: the process answers. Nothing else is asked, so a slow database or upstream can
    // never get a live gateway restarted; that is /readyz's business.
    return sendJson(res, { status: 200, body: { status: "ok" } });
  }
  if (parts.length === 1 && parts[0] === "readyz" && req.method === "GET") {
    return sendJson(res, { ...(await readiness(app)), headers: { "cache-control": "no-store" } });
  }
  if ((parts.length === 1 && parts[0] === "metrics") || parts[0] === "admin") {
    return handleOperator(app, req, res, parts);
  }
  if (parts[0] === "dashboard") return handleDashboard(app, req, res, parts.slice(1));
  const route = matchRoute(app, parts);
  if (!route) {
    return sendJson(res, plainFailure(gatewayError("ROUTE_NOT_FOUND", "no such route")));
  }
  const requestId = randomUUID();
  const started = Date.now();
  res.setHeader("x-request-id", requestId);
  const logPath = `/${route.segment}/${route.network}/${tokenHint(route.token)}`;
  res.on("finish", () => {
    app.log.info(
      {
        requestId,
        method: req.method,
        path: logPath,
        status: res.statusCode,
        ms: Date.now() - started,
      },
      "request",
    );
  });
  const failure = route.protocol === "graphql" ? graphqlFailure : jsonRpcFailure;
  if (!route.methods.includes(req.method ?? "")) {
    res.setHeader("allow", route.methods.join(", "));
    return sendJson(
      res,
      failure(gatewayError("METHOD_NOT_ALLOWED", `use ${route.methods.join(" or ")}`)),
    );
  }
  const owner = await authenticateCall(app, route.token, {
    source: req.socket.remoteAddress ?? "unknown",
    backendSegment: route.segment,
    network: route.network,
    route: route.backend,
  });
  if (!owner) {
    return sendJson(
      res,
      failure(gatewayError("UNAUTHENTICATED", "missing, unknown or revoked access token")),
    );
  }
  const ctx: CallContext = {
    app,
    requestId,
    owner,
    backend: route.backend,
    backendSegment: route.segment,
    network: route.network,
    startedAt: started,
  };
  let body: string;
  try {
    body = await readBody(req, app.config.server.bodyBytesMax);
  } catch (err) {
    if (err instanceof BodyTooLarge) {
      // Refused before anything was read or priced: audited like any refusal, not charged.
      const audited = await auditOnly(ctx, [
        {
          method: "(invalid)",
          outcome: "rejected",
          errorCode: "PAYLOAD_TOO_LARGE",
          httpStatus: 413,
        },
      ]);
      res.setHeader("connection", "close");
      return sendJson(res, {
        ...failure(
          gatewayError("PAYLOAD_TOO_LARGE", `body over ${app.config.server.bodyBytesMax} bytes`),
        ),
        headers: audited.headers,
      });
    }
    throw err;
  }
  // A retry with the same Idempotency-Key gets the first answer, not a second charge.
  return sendJson(
    res,
    await idempotent(
      ctx,
      req.headers["idempotency-key"],
      body,
      (c) => route.handler(c, body, req),
      failure,
    ),
  );
}

function matchRoute(app: App, parts: string[]) {
  if (parts.length !== 3) return null;
  const [segment, network, token] = parts as [string, string, string];
  const backend = (Object.keys(app.config.backends) as BackendKind[]).find(
    (kind) => app.config.backends[kind] === segment,
  );
  if (!backend) return null;
  const route = ROUTES[backend];
  if (!route || !app.config.networks.includes(network as NetworkName)) return null;
  // A network without an indexer has no graph route, as one without the backend has none at all.
  if (backend === "graph" && !app.indexers.has(network as NetworkName)) return null;
  return { backend, segment, network: network as NetworkName, token, ...route };
}
