// The baseline of bench/node-route.ts: the hand-written node:http router the gateway had before
// Fastify (commit 3d5d7e8, src/app/server.ts), kept here to measure against in the same run.
// It is that code for the backend routes — URL parsing, metrics, request id and log line, method
// check, token look-up with the 401 audit row, body read within the limit, the route, the reply,
// in-flight tracking — with the health, operator and dashboard branches reduced to their checks
// (the bench does not call them). Not used by the gateway.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { authenticate, tokenHint } from "../../src/auth/tokens.ts";
import type { NetworkName } from "../../src/config/schema.ts";
import { gatewayError } from "../../src/errors/codes.ts";
import { BodyTooLarge, readBody } from "../../src/http/body.ts";
import { type HttpReply, jsonRpcFailure, plainFailure } from "../../src/http/reply.ts";
import { stringifyJson } from "../../src/jsonrpc/json.ts";
import { insertAudit } from "../../src/ledger/audit.ts";
import type { App, BackendKind, CallContext } from "../../src/metering/context.ts";
import { handleElectrumRpc } from "../../src/mirror/electrum-route.ts";
import { handleNodeRpc } from "../../src/mirror/node-route.ts";

type RouteHandler = (ctx: CallContext, body: string, req: IncomingMessage) => Promise<HttpReply>;

const ROUTES: Partial<Record<BackendKind, { handler: RouteHandler; methods: readonly string[] }>> =
  {
    node: { handler: handleNodeRpc, methods: ["POST"] },
    electrum: { handler: handleElectrumRpc, methods: ["POST"] },
  };

function sendJson(res: ServerResponse, reply: HttpReply): void {
  if (reply.raw) {
    res.writeHead(reply.status, { "content-length": reply.raw.byteLength, ...reply.headers });
    res.end(reply.raw);
    return;
  }
  const text = stringifyJson(reply.body);
  res.writeHead(reply.status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...reply.headers,
  });
  res.end(text);
}

/** The old InFlight.track: a request counts until its handler returned and its response ended. */
class InFlight {
  readonly open = new Set<ServerResponse>();
  track(res: ServerResponse, handle: () => Promise<void>): void {
    this.open.add(res);
    const handled = handle();
    const ended = new Promise<void>((resolve) => res.once("close", resolve));
    void Promise.all([handled, ended]).then(() => {
      this.open.delete(res);
    });
  }
}

export async function startBaselineServer(
  app: App,
  host: string,
  port: number,
): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const started = process.hrtime.bigint();
    res.on("finish", () => observe(app, req, res, started));
    requests.track(res, () =>
      handle(app, req, res).catch((err: unknown) => {
        if (err instanceof BodyTooLarge && !res.headersSent) {
          res.setHeader("connection", "close");
          return sendJson(
            res,
            plainFailure(gatewayError("PAYLOAD_TOO_LARGE", "request body over the limit")),
          );
        }
        app.log.error({ err }, "unhandled error");
        if (!res.headersSent)
          sendJson(res, plainFailure(gatewayError("INTERNAL", "internal error")));
        else res.destroy();
      }),
    );
  });
  const requests = new InFlight();
  server.requestTimeout = 60_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve) => server.listen(port, host, () => resolve()));
  const address = server.address() as AddressInfo;
  return { server, url: `http://${host}:${address.port}` };
}

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
    return sendJson(res, { status: 200, body: { status: "ok" } });
  }
  if (
    (parts.length === 1 && (parts[0] === "readyz" || parts[0] === "metrics")) ||
    parts[0] === "admin" ||
    parts[0] === "dashboard"
  ) {
    return sendJson(res, plainFailure(gatewayError("ROUTE_NOT_FOUND", "not in the baseline")));
  }
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
  const failure = jsonRpcFailure;
  if (!route.methods.includes(req.method ?? "")) {
    res.setHeader("allow", route.methods.join(", "));
    return sendJson(
      res,
      failure(gatewayError("METHOD_NOT_ALLOWED", `use ${route.methods.join(" or ")}`)),
    );
  }
  const owner = await authenticate(app.db, route.token);
  if (!owner) {
    await insertAudit(app.db, {
      requestId,
      accountId: null,
      tokenId: null,
      backend: route.segment,
      network: route.network,
      method: "(unauthenticated)",
      outcome: "unauthenticated",
      errorCode: "UNAUTHENTICATED",
      httpStatus: 401,
      estimatedCc: 0,
      chargedCc: 0,
    });
    return sendJson(
      res,
      failure(gatewayError("UNAUTHENTICATED", "missing, unknown or revoked access token")),
    );
  }
  let body: string;
  try {
    body = await readBody(req, app.config.server.bodyBytesMax);
  } catch (err) {
    if (err instanceof BodyTooLarge) {
      res.setHeader("connection", "close");
      return sendJson(
        res,
        failure(
          gatewayError("PAYLOAD_TOO_LARGE", `body over ${app.config.server.bodyBytesMax} bytes`),
        ),
      );
    }
    throw err;
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
  return sendJson(res, await route.handler(ctx, body, req));
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
  return { backend, segment, network: network as NetworkName, token, ...route };
}
