import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { adminAuthorized } from "../app/admin.ts";
import type { App, BackendKind, CallContext } from "../app/context.ts";
import { authenticate, tokenHint } from "../auth/tokens.ts";
import { runDbCommand } from "../cli/commands.ts";
import type { NetworkName } from "../config/schema.ts";
import { gatewayError } from "../errors/codes.ts";
import { insertAudit } from "../ledger/audit.ts";
import { handleElectrumRpc } from "../mirror/electrum-route.ts";
import { handleNodeRpc } from "../mirror/node-route.ts";
import { BodyTooLarge, readBody } from "./body.ts";
import { type HttpReply, jsonRpcFailure, plainFailure, sendJson } from "./reply.ts";

type RouteHandler = (ctx: CallContext, body: string) => Promise<HttpReply>;

/** Backends served so far; a configured segment without a handler answers 404 like any unknown. */
const HANDLERS: Partial<Record<BackendKind, RouteHandler>> = {
  node: handleNodeRpc,
  electrum: handleElectrumRpc,
};

export interface RunningServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export async function startHttpServer(
  app: App,
  host: string,
  port: number,
): Promise<RunningServer> {
  const server = createServer((req, res) => {
    handle(app, req, res).catch((err: unknown) => {
      // The edge of the process: log the cause, answer without a stack trace.
      app.log.error({ err }, "unhandled error");
      if (!res.headersSent) sendJson(res, plainFailure(gatewayError("INTERNAL", "internal error")));
      else res.destroy();
    });
  });
  server.requestTimeout = 60_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;
  return {
    server,
    url,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(app: App, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://gateway");
  const parts = url.pathname.split("/").filter((p) => p !== "");
  if (parts.length === 1 && parts[0] === "healthz" && req.method === "GET") {
    await app.db.query("SELECT 1");
    return sendJson(res, { status: 200, body: { status: "ok" } });
  }
  if (parts.length === 2 && parts[0] === "admin" && parts[1] === "cli" && req.method === "POST") {
    return handleAdminCli(app, req, res);
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
  if (req.method !== "POST") {
    res.setHeader("allow", "POST");
    return sendJson(res, jsonRpcFailure(gatewayError("METHOD_NOT_ALLOWED", "use POST")));
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
      jsonRpcFailure(gatewayError("UNAUTHENTICATED", "missing, unknown or revoked access token")),
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
        jsonRpcFailure(
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
  return sendJson(res, await route.handler(ctx, body));
}

/** The CLI's commands, run against the store this process holds (see app/admin.ts). */
async function handleAdminCli(app: App, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!app.adminSecret || !adminAuthorized(req.headers.authorization, app.adminSecret)) {
    return sendJson(res, plainFailure(gatewayError("ROUTE_NOT_FOUND", "no such route")));
  }
  const body = JSON.parse(await readBody(req, 64 * 1024)) as { argv?: unknown };
  const argv = Array.isArray(body.argv) ? body.argv.map(String) : [];
  return sendJson(res, { status: 200, body: await runDbCommand(app.db, argv) });
}

function matchRoute(app: App, parts: string[]) {
  if (parts.length !== 3) return null;
  const [segment, network, token] = parts as [string, string, string];
  const backend = (Object.keys(app.config.backends) as BackendKind[]).find(
    (kind) => app.config.backends[kind] === segment,
  );
  if (!backend) return null;
  const handler = HANDLERS[backend];
  if (!handler || !app.config.networks.includes(network as NetworkName)) return null;
  return { backend, segment, network: network as NetworkName, token, handler };
}
