import { randomUUID } from "node:crypto";
import { METHODS } from "node:http";
import { createRequire } from "node:module";
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  type HTTPMethods,
} from "fastify";

/**
 * The HTTP framework as the gateway uses it: Fastify, set up so that what a client sees is what the
 * hand-written node:http router it replaced answered (docs/decisions/0006-fastify.md). Routes are composed in
 * src/app/backend-routes.ts; this file holds only conventions that hold for every route.
 */

/**
 * Every method node:http parses (CONNECT never reaches a request handler): the framework takes
 * them all, so that a method no route is registered for still reaches the not-found handler,
 * which answers it as the path's route would (`OtherMethod`).
 */
export const ALL_METHODS = METHODS.filter((m) => m !== "CONNECT") as HTTPMethods[];

/**
 * What a family of routes answers, from the not-found handler, to a method they are not
 * registered for on a path they hold (a 405 in their protocol, or a 401 where the credential is
 * checked first); undefined for a path they do not hold. Routes are registered for the methods
 * they take alone: the router builds each method's tree apart at every start, and node parses
 * some thirty methods.
 */
export type OtherMethod = (
  request: FastifyRequest,
  reply: FastifyReply,
) => Promise<FastifyReply> | undefined;

export interface FrameworkOptions {
  /** Whole request, headers and body (node's server.requestTimeout). */
  requestTimeoutMs: number;
  /** Headers alone (node's server.headersTimeout). */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** Largest body any route reads, unless the route says less. */
  bodyBytesMax: number;
}

type Compilers = NonNullable<
  NonNullable<FastifyServerOptions["schemaController"]>["compilersFactory"]
>;
type ValidatorFactory = NonNullable<Compilers["buildValidator"]>;
type SerializerFactory = NonNullable<Compilers["buildSerializer"]>;

/** Fastify's own dependencies, resolved as Fastify resolves them. */
const fromFastify = createRequire(createRequire(import.meta.url).resolve("fastify"));

type Build = (schemas: unknown, options: unknown) => unknown;
const atFirstUse = (name: string) =>
  ((schemas, options) => (fromFastify(name) as () => Build)()(schemas, options)) as Build;
/**
 * Fastify's JSON-schema compilers (ajv, fast-json-stringify), loaded only if a route declares a
 * schema, which none does: Fastify loads them when it is created, a noticeable part of a
 * process's start. The same default compilers, built at their first use.
 */
const compilersFactory: Compilers = {
  buildValidator: atFirstUse("@fastify/ajv-compiler") as unknown as ValidatorFactory,
  buildSerializer: atFirstUse(
    "@fastify/fast-json-stringify-compiler",
  ) as unknown as SerializerFactory,
};

export function createFramework(options: FrameworkOptions): FastifyInstance {
  const http = Fastify({
    schemaController: { compilersFactory },
    // Our own request line (src/app/backend-routes.ts) logs the path with the token's hint only; the
    // framework's request logging and serializers would log the URL, token included.
    logger: false,
    requestTimeout: options.requestTimeoutMs,
    // node enforces headersTimeout and requestTimeout only when it checks its connections, every
    // 30 s by default: a 10 s header bound held a trickling client for up to 40 s. A quarter of
    // the header bound (within 0.1–1 s) keeps each bound within a quarter of itself.
    http: {
      connectionsCheckingInterval: Math.max(
        100,
        Math.min(1_000, Math.floor(options.headersTimeoutMs / 4)),
      ),
    },
    // node's default is 5 s (Fastify's 72 s): idle keep-alive connections are a slow client's
    // cheapest way to hold a socket.
    keepAliveTimeout: options.keepAliveTimeoutMs,
    bodyLimit: options.bodyBytesMax,
    // Routing sees the canonical path (canonicalUrl): the same segments the old splitting saw.
    rewriteUrl: (req) => canonicalUrl(req.url ?? "/"),
    // Tokens are path parameters; a long one is an unknown token (401), not an unknown route.
    routerOptions: { maxParamLength: 16 * 1024 },
    // HEAD is a method a route takes or refuses (405), not GET without the body.
    exposeHeadRoutes: false,
    genReqId: () => randomUUID(),
  });
  for (const method of ALL_METHODS) {
    if (!http.supportedMethods.includes(method)) http.addHttpMethod(method);
  }
  http.server.headersTimeout = options.headersTimeoutMs;
  // Malformed HTTP (bad request line, headers too large, timeouts) is answered by node itself, as
  // before: Fastify's handler would answer it with a JSON body of its own.
  http.server.removeAllListeners("clientError");
  // Bodies reach routes as the bytes sent, decoded as UTF-8, whatever the content type says or
  // whether it says anything (Core's clients send text/plain or none); each route parses its own
  // JSON, so its parse errors are worded in its protocol (Core's, GraphQL's).
  http.removeAllContentTypeParsers();
  http.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => done(null, body));
  http.addHook("onRequest", (request, _reply, done) => {
    // Fastify refuses a content type it cannot parse (415) before any parser runs; no route
    // reads the header through the framework (request.raw.headers keep it), so it is hidden
    // from the framework's body handling and the catch-all parser above reads every body.
    if (request.raw.headers["content-type"] !== undefined) {
      request.headers = { "content-type": undefined };
    }
    done();
  });
  return http;
}

/**
 * Answers a path or method no route has, before any body is read: as the first of `others` that
 * holds the path answers it, else with `notFound`. `others` may be added to until the first request.
 */
export function notFoundBeforeBody(
  http: FastifyInstance,
  others: readonly OtherMethod[],
  fallback: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>,
): void {
  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    for (const other of others) {
      const answered = other(request, reply);
      if (answered) return answered;
    }
    return fallback(request, reply);
  };
  http.setNotFoundHandler(notFound);
  http.addHook("onRequest", (request, reply, done) => {
    // Answered, the request goes no further (done is not called).
    if (request.is404) notFound(request, reply).catch(done);
    else done();
  });
}

/**
 * A route family whose requests carry no body it reads (sign-out, pages, fallbacks): a body sent
 * anyway is left unread, as it always was, rather than read up to a limit and refused.
 */
export function withoutBodies(http: FastifyInstance, routes: (scope: FastifyInstance) => void) {
  http.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
    routes(scope);
  });
}

/**
 * The path as the gateway reads it: the URL's pathname split on `/` with empty segments dropped
 * (so `//a/b/` is `/a/b`), each segment kept as sent. `%` is escaped once more because the router
 * decodes percent-escapes in paths and parameters: routing and parameters then see the segments
 * exactly as sent (`%41` stays `%41`, as it always did, and an invalid escape is no error).
 */
export function canonicalUrl(url: string): string {
  // Already canonical (the usual case: no empty, dot or escaped segment, no query): as it is.
  if (PLAIN_PATH.test(url)) return url;
  // A target that starts with `/` is a path, however many slashes lead it (`//x` names no host):
  // read after an origin. Anything else (absolute-form `http://h/p`, `*`) as a URL of its own;
  // what cannot be read at all goes to routing as sent (404), never as an exception.
  let parsed: URL;
  try {
    parsed = url.startsWith("/") ? new URL(`http://gateway${url}`) : new URL(url, "http://gateway");
  } catch {
    return url.startsWith("/") ? url : `/${url}`;
  }
  let path = "";
  for (const part of parsed.pathname.split("/")) {
    if (part !== "") path += `/${part.includes("%") ? part.replaceAll("%", "%25") : part}`;
  }
  return (path || "/") + parsed.search;
}

/** Segments of unreserved characters, none empty or starting with a dot: what URL would keep. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+$/;

/** The path's segments, as canonicalUrl left them in `request.url`. */
export function pathParts(request: FastifyRequest): string[] {
  const url = request.url;
  const query = url.indexOf("?");
  const path = query === -1 ? url : url.slice(0, query);
  return path === "/" ? [] : path.slice(1).split("/");
}

/** The body a route received: the text of the catch-all parser, or none. */
export function bodyText(request: FastifyRequest): string {
  return typeof request.body === "string" ? request.body : "";
}

/**
 * The client closed its connection before its request was read to the end (node's "aborted"):
 * nothing to answer, and nothing for an operator to do.
 */
export function isClientAbort(err: unknown, request: FastifyRequest): boolean {
  return (
    err instanceof Error && "code" in err && err.code === "ECONNRESET" && request.raw.destroyed
  );
}

/** A body over the route's limit, as the framework reports it. */
export function isTooLarge(err: unknown): boolean {
  return err instanceof Error && "code" in err && err.code === "FST_ERR_CTP_BODY_TOO_LARGE";
}
