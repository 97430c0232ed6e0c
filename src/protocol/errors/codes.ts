/**
 * The closed list of gateway error codes: every failure answered and every audit record's
 * `error_code` is one of these, written once with each protocol's spelling (docs/users/errors.md).
 * The functions below are the only way from a code to a status or protocol code. Upstreams' native
 * codes are kept apart (`GatewayError.upstreamCode`, the audit log's `upstream_code`).
 * - `http`: the status when the failure is the whole answer (the mirrors keep Core's and Hasura's);
 * - `jsonRpc`: JSON-RPC's standard code where one fits, else one in -32000..-32099;
 * - `graphql`: the unified API's `extensions.code`, one per code so it reads back from an answer;
 * - `hasura`: the graph mirror's, in Hasura's words for the refusals Hasura would make.
 */
const LIST = {
  UNAUTHENTICATED: {
    http: 401,
    jsonRpc: -32001,
    graphql: "UNAUTHENTICATED",
    hasura: ["UNAUTHENTICATED"],
    meaning: "missing, unknown, expired or revoked token",
  },
  ROUTE_NOT_FOUND: {
    http: 404,
    jsonRpc: -32002,
    graphql: "ROUTE_NOT_FOUND",
    hasura: ["ROUTE_NOT_FOUND"],
    meaning: "unknown backend, network or path",
  },
  METHOD_NOT_ALLOWED: {
    http: 405,
    jsonRpc: -32003,
    graphql: "METHOD_NOT_ALLOWED",
    hasura: ["METHOD_NOT_ALLOWED"],
    meaning: "HTTP method the route does not take",
  },
  UNSUPPORTED_MEDIA_TYPE: {
    http: 415,
    jsonRpc: -32004,
    graphql: "UNSUPPORTED_MEDIA_TYPE",
    hasura: ["UNSUPPORTED_MEDIA_TYPE"],
    meaning: "request body of a content type the route does not read",
  },
  PAYLOAD_TOO_LARGE: {
    http: 413,
    jsonRpc: -32005,
    graphql: "PAYLOAD_TOO_LARGE",
    hasura: ["PAYLOAD_TOO_LARGE"],
    meaning: "request body over the size limit",
  },
  INVALID_JSON: {
    http: 400,
    jsonRpc: -32700,
    graphql: "INVALID_JSON",
    hasura: ["invalid-json"],
    meaning: "the request body is not valid JSON",
  },
  BAD_REQUEST: {
    http: 400,
    jsonRpc: -32600,
    graphql: "BAD_REQUEST",
    hasura: ["bad-request"],
    meaning:
      "valid JSON, but not a request of the protocol (envelope, missing query, notification)",
  },
  METHOD_NOT_FOUND: {
    http: 404,
    jsonRpc: -32601,
    graphql: "METHOD_NOT_FOUND",
    hasura: ["not-supported"],
    meaning: "JSON-RPC method the upstream does not have or the gateway does not serve",
  },
  INVALID_PARAMS: {
    http: 400,
    jsonRpc: -32602,
    graphql: "BAD_USER_INPUT",
    hasura: ["bad-request"],
    meaning: "arguments refused before anything was forwarded (not charged)",
  },
  GRAPHQL_PARSE_FAILED: {
    http: 400,
    jsonRpc: -32600,
    graphql: "GRAPHQL_PARSE_FAILED",
    hasura: ["parse-failed"],
    meaning: "the GraphQL document does not parse",
  },
  GRAPHQL_VALIDATION_FAILED: {
    http: 400,
    jsonRpc: -32600,
    graphql: "GRAPHQL_VALIDATION_FAILED",
    hasura: ["validation-failed"],
    meaning: "the document does not match the schema",
  },
  LIMIT_EXCEEDED: {
    http: 400,
    jsonRpc: -32006,
    graphql: "LIMIT_EXCEEDED",
    hasura: [
      "depth-limit-exceeded",
      "page-size-exceeded",
      "alias-limit-exceeded",
      "complexity-limit-exceeded",
      "token-limit-exceeded",
      "list-items-exceeded",
    ],
    meaning: "over a gateway limit: depth, aliases, tokens, list or page size, complexity, batch",
  },
  RESPONSE_TOO_LARGE: {
    // 400, not 413 (RFC 9110 keeps 413 for the request's own content) nor a 5xx: nothing failed
    // upstream; the client asked for more in one request than the gateway answers, and can ask
    // for less (fewer calls, a lower verbosity).
    http: 400,
    jsonRpc: -32008,
    graphql: "RESPONSE_TOO_LARGE",
    hasura: ["RESPONSE_TOO_LARGE"],
    meaning:
      "the answer would be over server.responseBytesMax: refused before any upstream call when the gateway knows (not charged), else charged once the upstream has answered",
  },
  NOT_FOUND: {
    http: 404,
    jsonRpc: -32007,
    graphql: "NOT_FOUND",
    hasura: ["not-found"],
    meaning: "the thing asked for does not exist (a transaction, a block)",
  },
  INSUFFICIENT_CREDITS: {
    http: 429,
    jsonRpc: -32010,
    graphql: "INSUFFICIENT_CREDITS",
    hasura: ["INSUFFICIENT_CREDITS"],
    meaning: "balance below the request's estimate; nothing ran",
  },
  RATE_LIMITED: {
    http: 429,
    jsonRpc: -32013,
    graphql: "RATE_LIMITED",
    hasura: ["RATE_LIMITED"],
    meaning:
      "over a rate or connection limit; nothing ran, nothing charged (Retry-After says when)",
  },
  CREDIT_CAP_REACHED: {
    http: 429,
    jsonRpc: -32014,
    graphql: "CREDIT_CAP_REACHED",
    hasura: ["CREDIT_CAP_REACHED"],
    meaning:
      "the plan's credit cap per day or per billing cycle is spent; nothing ran (Retry-After says when it resets)",
  },
  SCOPE_BACKEND: {
    http: 403,
    jsonRpc: -32030,
    graphql: "SCOPE_BACKEND",
    hasura: ["SCOPE_BACKEND"],
    meaning: "the token may not call this backend (its scope lists others)",
  },
  SCOPE_NETWORK: {
    http: 403,
    jsonRpc: -32031,
    graphql: "SCOPE_NETWORK",
    hasura: ["SCOPE_NETWORK"],
    meaning: "the token may not call this network (its scope lists others)",
  },
  SCOPE_METHOD: {
    http: 403,
    jsonRpc: -32032,
    graphql: "SCOPE_METHOD",
    hasura: ["SCOPE_METHOD"],
    meaning: "the token may not call this method (its scope lists others); nothing ran",
  },
  SCOPE_ORIGIN: {
    http: 403,
    jsonRpc: -32033,
    graphql: "SCOPE_ORIGIN",
    hasura: ["SCOPE_ORIGIN"],
    meaning: "the token may not be used from this browser origin (its scope lists others)",
  },
  SCOPE_ADDRESS: {
    http: 403,
    jsonRpc: -32034,
    graphql: "SCOPE_ADDRESS",
    hasura: ["SCOPE_ADDRESS"],
    meaning: "the token may not be used from this client address (its scope lists ranges)",
  },
  IDEMPOTENCY_IN_PROGRESS: {
    http: 409,
    jsonRpc: -32011,
    graphql: "IDEMPOTENCY_IN_PROGRESS",
    hasura: ["IDEMPOTENCY_IN_PROGRESS"],
    meaning: "a request with this Idempotency-Key is still being answered; retry later",
  },
  IDEMPOTENCY_KEY_REUSED: {
    http: 422,
    jsonRpc: -32012,
    graphql: "IDEMPOTENCY_KEY_REUSED",
    hasura: ["IDEMPOTENCY_KEY_REUSED"],
    meaning: "this Idempotency-Key was used for a different request (route, network or body)",
  },
  UPSTREAM_ERROR: {
    http: 502,
    jsonRpc: -32023,
    graphql: "UPSTREAM_ERROR",
    hasura: ["UPSTREAM_ERROR"],
    meaning: "the upstream answered with an error of its own (charged); its code is kept apart",
  },
  UPSTREAM_UNAVAILABLE: {
    // 503, not 502: nothing bad came from an upstream; none could serve (down, or its breaker open).
    http: 503,
    jsonRpc: -32020,
    graphql: "UPSTREAM_UNAVAILABLE",
    hasura: ["UPSTREAM_UNAVAILABLE"],
    meaning: "no healthy upstream could be reached (not charged)",
  },
  UPSTREAM_TIMEOUT: {
    http: 504,
    jsonRpc: -32021,
    graphql: "UPSTREAM_TIMEOUT",
    hasura: ["UPSTREAM_TIMEOUT"],
    meaning: "the upstream did not answer in time (not charged)",
  },
  UPSTREAM_BAD_RESPONSE: {
    http: 502,
    jsonRpc: -32022,
    graphql: "UPSTREAM_BAD_RESPONSE",
    hasura: ["UPSTREAM_BAD_RESPONSE"],
    meaning: "the upstream's answer could not be used (not charged)",
  },
  UNVERIFIED: {
    http: 422,
    jsonRpc: -32024,
    graphql: "UNVERIFIED",
    hasura: ["UNVERIFIED"],
    meaning:
      "the answer could not be verified against the chain and the request required it (X-Blockgate-Require-Verified); not charged",
  },
  INTERNAL: {
    http: 500,
    jsonRpc: -32603,
    graphql: "INTERNAL",
    hasura: ["INTERNAL"],
    meaning: "a fault of the gateway; details only in its log",
  },
} as const satisfies Record<
  string,
  {
    http: number;
    jsonRpc: number;
    graphql: string;
    hasura: readonly [string, ...string[]];
    meaning: string;
  }
>;

export type ErrorCode = keyof typeof LIST;
export const ERROR_CODES = Object.keys(LIST) as ErrorCode[];

/** The unified API's `extensions.code` values: derived from the list, one per code. */
export type GraphQLCode = (typeof LIST)[ErrorCode]["graphql"];
export const GRAPHQL_CODES: readonly GraphQLCode[] = ERROR_CODES.map((c) => LIST[c].graphql);

export type HasuraCode = (typeof LIST)[ErrorCode]["hasura"][number];

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(LIST, code);
}

export function httpStatusOf(code: ErrorCode): number {
  return LIST[code].http;
}

export function jsonRpcCodeOf(code: ErrorCode): number {
  return LIST[code].jsonRpc;
}

export function graphqlCodeOf(code: ErrorCode): GraphQLCode {
  return LIST[code].graphql;
}

/** The graph mirror's code; `variant` picks one of a code's Hasura spellings (which limit). */
export function hasuraCodeOf(code: ErrorCode, variant?: HasuraCode): HasuraCode {
  const spellings: readonly HasuraCode[] = LIST[code].hasura;
  return variant !== undefined && spellings.includes(variant) ? variant : spellings[0]!;
}

/** The list's description of a code, for documentation and the table in docs/users/errors.md. */
export function meaningOf(code: ErrorCode): string {
  return LIST[code].meaning;
}

const BY_GRAPHQL = new Map<string, ErrorCode>(ERROR_CODES.map((c) => [LIST[c].graphql, c]));

/** The list code of a unified API `extensions.code`; a code from elsewhere is INTERNAL. */
export function fromGraphQLCode(code: unknown): ErrorCode {
  return (typeof code === "string" && BY_GRAPHQL.get(code)) || "INTERNAL";
}

// The first code in list order that spells it so wins: validation-failed is schema validation.
const BY_HASURA = new Map<string, ErrorCode>();
for (const c of ERROR_CODES)
  for (const h of LIST[c].hasura) if (!BY_HASURA.has(h)) BY_HASURA.set(h, c);

/** The list code of a Hasura `extensions.code` the graph mirror answered with. */
export function fromHasuraCode(code: string): ErrorCode {
  return BY_HASURA.get(code) ?? "INTERNAL";
}

/**
 * The list code of a JSON-RPC error the gateway answered with on a mirror, refusing a call as the
 * upstream would before forwarding it: the standard codes by meaning, the gateway's own bound on a
 * list param by LIMIT_EXCEEDED's code; any other (Core's -8, -3 and -1, ElectrumX's 1) is a
 * parameter check, the only other refusal a mirror makes.
 */
export function fromRpcRefusal(code: number): ErrorCode {
  if (code === -32700) return "INVALID_JSON";
  if (code === -32600) return "BAD_REQUEST";
  if (code === -32601) return "METHOD_NOT_FOUND";
  if (code === LIST.LIMIT_EXCEEDED.jsonRpc) return "LIMIT_EXCEEDED";
  return "INVALID_PARAMS";
}

/**
 * A failure as a value: `code` is public, `message` is safe to show, `detail` is for logs only,
 * `upstreamCode` is the upstream's native code (Core's -5, Hasura's `validation-failed`), kept
 * for the audit log and never rendered by itself.
 */
export interface GatewayError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly detail?: string;
  readonly data?: Record<string, unknown>;
  readonly upstreamCode?: string;
}

export function gatewayError(
  code: ErrorCode,
  message: string,
  extra: { detail?: string; data?: Record<string, unknown>; upstreamCode?: string } = {},
): GatewayError {
  return { code, message, ...extra };
}

/** Thrown only at the edges (HTTP handlers), where it is turned into a response. */
export class GatewayFailure extends Error {
  constructor(readonly error: GatewayError) {
    super(error.message);
    this.name = "GatewayFailure";
  }
}
