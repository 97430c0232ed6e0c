import type { IncomingMessage, ServerResponse } from "node:http";
import { runDbCommand } from "../cli/commands.ts";
import { gatewayError } from "../errors/codes.ts";
import { readBody } from "../http/body.ts";
import { plainFailure, sendJson } from "../http/reply.ts";
import type { App } from "../metering/context.ts";
import { adminAuthorized } from "./admin-file.ts";
import { operatorAuthorized } from "./operator-token.ts";

/**
 * /metrics and /admin/*: for operators only. The credential is checked before anything else —
 * the path, the method, the body — so a caller without one learns nothing, not even which admin
 * paths exist: every such request gets the same 401.
 */
export async function handleOperator(
  app: App,
  req: IncomingMessage,
  res: ServerResponse,
  parts: readonly string[],
): Promise<void> {
  const header = req.headers.authorization;
  const isCli = parts.length === 2 && parts[0] === "admin" && parts[1] === "cli";
  const operator = operatorAuthorized(header, app.config.operator.tokenSha256);
  // The per-start secret the PGlite hand-off writes (app/admin.ts) is a credential for the CLI's
  // own endpoint only: it lives in a file on this machine, readable by the gateway's user.
  const cliSecret =
    isCli && app.adminSecret !== undefined && adminAuthorized(header, app.adminSecret);
  if (!operator && !cliSecret) {
    app.log.warn({ route: parts[0] }, "operator credential missing or refused");
    return sendJson(res, {
      ...plainFailure(gatewayError("UNAUTHENTICATED", "operator credential required")),
      headers: { "www-authenticate": "Bearer" },
    });
  }
  if (parts.length === 1 && parts[0] === "metrics") {
    if (req.method !== "GET") return methodNotAllowed(res, "GET");
    const text = await app.metrics.registry.metrics();
    res.writeHead(200, { "content-type": app.metrics.registry.contentType });
    res.end(text);
    return;
  }
  // /admin/cli exists while this gateway holds a PGlite store; with PostgreSQL the CLI talks to
  // the database itself, so there is nothing to hand off.
  if (isCli && app.adminSecret !== undefined) {
    if (req.method !== "POST") return methodNotAllowed(res, "POST");
    return runCli(app, req, res);
  }
  return sendJson(res, plainFailure(gatewayError("ROUTE_NOT_FOUND", "no such route")));
}

/** The CLI's commands, run against the store this process holds (see app/admin.ts). */
async function runCli(app: App, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let argv: string[];
  // A body over the limit (BodyTooLarge) is answered 413 at the edge, as everywhere.
  const text = await readBody(req, 64 * 1024);
  try {
    const body = JSON.parse(text) as { argv?: unknown };
    argv = Array.isArray(body.argv) ? body.argv.map(String) : [];
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return sendJson(res, plainFailure(gatewayError("BAD_REQUEST", 'expected {"argv": [...]}')));
  }
  return sendJson(res, { status: 200, body: await runDbCommand(app.db, argv, app.config) });
}

function methodNotAllowed(res: ServerResponse, allow: string): void {
  sendJson(res, {
    ...plainFailure(gatewayError("METHOD_NOT_ALLOWED", `use ${allow}`)),
    headers: { allow },
  });
}
