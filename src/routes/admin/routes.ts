import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { operatorAuthorized } from "../../access/operator-token.ts";
import type { Config } from "../../config/schema.ts";
import type { Database } from "../../db/database.ts";
import { bodyText, type OtherMethod, pathParts } from "../../http/framework.ts";
import { plainFailure, sendReply, sendText } from "../../http/reply.ts";
import type { Metrics } from "../../log/metrics.ts";
import { gatewayError } from "../../protocol/errors/codes.ts";
import { jsonDepthOver } from "../../protocol/json/json-depth.ts";
import { adminAuthorized } from "./admin-file.ts";
import { type DevnetAction, type DevnetProducers, runDevnetAction } from "./devnet-control.ts";

/** What the operator's routes use of a running gateway. */
export interface AdminServices {
  config: Config;
  db: Database;
  log: Logger;
  metrics: Metrics;
  /**
   * What /metrics answers: this process's registry, or in a worker of `blockgate start
   * --workers N` every worker's, gathered by the primary (src/cluster).
   */
  metricsText(): Promise<string>;
  /** Set while the gateway holds a PGlite store: the CLI's commands come in at /admin/cli. */
  adminSecret?: string;
  /**
   * Runs one CLI command line against this process's store (the CLI's own commands), parsed as
   * the CLI parses it. A mistake in the line is an answer too (200, exit code 2), never an HTTP
   * error, so the CLI can tell a refused command from a gateway that did not run it. `view` is
   * what a table-printing command shows on the CLI's terminal.
   */
  runCommand(argv: string[]): Promise<{ text: string; code: number; view?: unknown }>;
  /** devnet's block producers, while devnet runs beside this gateway. */
  devnetProducers: DevnetProducers;
}

/** Largest body /admin/cli reads: a command line. */
const CLI_BODY_BYTES_MAX = 64 * 1024;

const DEVNET_ACTIONS: readonly DevnetAction[] = ["mine", "reorg", "pay"];

/**
 * /metrics and /admin/*: for operators only. The credential is checked before anything else —
 * the path, the method, the body (so in `onRequest`, before the body is read) — so a caller
 * without one learns nothing, not even which admin paths exist: every such request gets the
 * same 401. Only what is served is registered; every other method on /metrics, and every other
 * /admin path and method, meets the same gate (401, 404 or 405) from the not-found handler: the
 * `OtherMethod` returned.
 */
export function operatorRoutes(http: FastifyInstance, app: AdminServices): OtherMethod {
  const gate = (request: FastifyRequest, reply: FastifyReply) => operatorGate(app, request, reply);
  http.route({
    method: "GET",
    url: "/metrics",
    onRequest: gate,
    handler: async (_request, reply) => metricsReply(app, reply),
  });
  // /admin/cli exists while this gateway holds a PGlite store; with PostgreSQL the CLI talks to
  // the database itself, so there is nothing to hand off (the gate answers 404).
  http.route({
    method: "POST",
    url: "/admin/cli",
    onRequest: gate,
    bodyLimit: CLI_BODY_BYTES_MAX,
    // A body over the limit is answered 413 at the edge (server.ts), as on every other route.
    handler: async (request, reply) => runCli(app, bodyText(request), reply),
  });
  // /admin/devnet/mine, /reorg and /pay exist while devnet runs beside this gateway (devnet-control.ts).
  for (const action of DEVNET_ACTIONS) {
    http.route({
      method: "POST",
      url: `/admin/devnet/${action}`,
      onRequest: gate,
      bodyLimit: CLI_BODY_BYTES_MAX,
      handler: async (request, reply) =>
        runDevnetAction(
          { producers: app.devnetProducers, log: app.log },
          action,
          bodyText(request),
          reply,
        ),
    });
  }
  return (request, reply) => {
    const [first, ...rest] = pathParts(request);
    if (first !== "admin" && (first !== "metrics" || rest.length > 0)) return undefined;
    // What the gate lets through is registered above, so it answers everything here.
    return gate(request, reply).then(() => (reply.sent ? reply : noSuchRoute(reply)));
  };
}

/** The metrics; when the workers' cannot be gathered, a 503 that says so (scrapes retry). */
async function metricsReply(app: AdminServices, reply: FastifyReply) {
  let text: string;
  try {
    text = await app.metricsText();
  } catch (err) {
    app.log.warn({ err }, "gathering the workers' metrics");
    return sendText(reply, 503, "text/plain; charset=utf-8", "metrics unavailable: try again\n");
  }
  return sendText(reply, 200, app.metrics.registry.contentType, text);
}

async function operatorGate(app: AdminServices, request: FastifyRequest, reply: FastifyReply) {
  const parts = pathParts(request);
  const header = request.headers.authorization;
  const isCli = parts.length === 2 && parts[0] === "admin" && parts[1] === "cli";
  const isDevnet =
    parts.length === 3 &&
    parts[0] === "admin" &&
    parts[1] === "devnet" &&
    (DEVNET_ACTIONS as readonly string[]).includes(parts[2]!) &&
    app.devnetProducers.size > 0;
  const operator = operatorAuthorized(header, app.config.operator.tokenSha256);
  // The per-start secret the PGlite hand-off writes (app/admin.ts) is a credential for the CLI's
  // own endpoints only (its commands, devnet's blocks): it lives in a file on this machine,
  // readable by the gateway's user.
  const cliSecret =
    (isCli || isDevnet) &&
    app.adminSecret !== undefined &&
    adminAuthorized(header, app.adminSecret);
  if (!operator && !cliSecret) {
    app.log.warn({ route: parts[0] }, "operator credential missing or refused");
    return sendReply(reply, {
      ...plainFailure(gatewayError("UNAUTHENTICATED", "operator credential required")),
      headers: { "www-authenticate": "Bearer" },
    });
  }
  if (parts.length === 1 && parts[0] === "metrics") {
    return request.method === "GET" ? undefined : methodNotAllowed(reply, "GET");
  }
  if ((isCli && app.adminSecret !== undefined) || isDevnet) {
    return request.method === "POST" ? undefined : methodNotAllowed(reply, "POST");
  }
  return noSuchRoute(reply);
}

function noSuchRoute(reply: FastifyReply) {
  return sendReply(reply, plainFailure(gatewayError("ROUTE_NOT_FOUND", "no such route")));
}

/** The CLI's commands, run against the store this process holds (see app/admin.ts). */
async function runCli(app: AdminServices, body: string, reply: FastifyReply) {
  let argv: string[];
  // String() of an array is a recursive join: nested deep enough, it overflows the stack.
  if (jsonDepthOver(body, app.config.server.jsonDepthMax)) return notACommand(reply);
  try {
    const parsed = JSON.parse(body) as { argv?: unknown };
    argv = Array.isArray(parsed.argv) ? parsed.argv.map(String) : [];
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return notACommand(reply);
  }
  return sendReply(reply, { status: 200, body: await app.runCommand(argv) });
}

function notACommand(reply: FastifyReply) {
  return sendReply(reply, plainFailure(gatewayError("BAD_REQUEST", 'expected {"argv": [...]}')));
}

function methodNotAllowed(reply: FastifyReply, allow: string) {
  return sendReply(reply, {
    ...plainFailure(gatewayError("METHOD_NOT_ALLOWED", `use ${allow}`)),
    headers: { allow },
  });
}
