/**
 * The closed set of gateway error codes. Every failure the gateway itself produces is one of these;
 * each upstream maps its native failures onto them. One function gives the HTTP status.
 */
export const ERROR_CODES = [
  "UNAUTHENTICATED",
  "ROUTE_NOT_FOUND",
  "METHOD_NOT_ALLOWED",
  "UNSUPPORTED_MEDIA_TYPE",
  "PAYLOAD_TOO_LARGE",
  "BAD_REQUEST",
  "INSUFFICIENT_CREDITS",
  "UPSTREAM_UNAVAILABLE",
  "UPSTREAM_TIMEOUT",
  "UPSTREAM_BAD_RESPONSE",
  "INTERNAL",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

const STATUS: Record<ErrorCode, number> = {
  UNAUTHENTICATED: 401,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PAYLOAD_TOO_LARGE: 413,
  BAD_REQUEST: 400,
  INSUFFICIENT_CREDITS: 429,
  UPSTREAM_UNAVAILABLE: 502,
  UPSTREAM_TIMEOUT: 504,
  UPSTREAM_BAD_RESPONSE: 502,
  INTERNAL: 500,
};

export function httpStatusOf(code: ErrorCode): number {
  return STATUS[code];
}

/**
 * JSON-RPC error codes used when a gateway error has to travel inside a JSON-RPC envelope.
 * They sit in the -32000..-32099 range JSON-RPC 2.0 reserves for implementation-defined server
 * errors, away from every code Bitcoin Core and Electrum servers use.
 */
const JSONRPC_CODE: Record<ErrorCode, number> = {
  UNAUTHENTICATED: -32001,
  ROUTE_NOT_FOUND: -32002,
  METHOD_NOT_ALLOWED: -32003,
  UNSUPPORTED_MEDIA_TYPE: -32004,
  PAYLOAD_TOO_LARGE: -32005,
  BAD_REQUEST: -32600,
  INSUFFICIENT_CREDITS: -32010,
  UPSTREAM_UNAVAILABLE: -32020,
  UPSTREAM_TIMEOUT: -32021,
  UPSTREAM_BAD_RESPONSE: -32022,
  INTERNAL: -32603,
};

export function jsonRpcCodeOf(code: ErrorCode): number {
  return JSONRPC_CODE[code];
}

/** A failure as a value: `code` is public, `message` is safe to show, `detail` is for logs only. */
export interface GatewayError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly detail?: string;
  readonly data?: Record<string, unknown>;
}

export function gatewayError(
  code: ErrorCode,
  message: string,
  extra: { detail?: string; data?: Record<string, unknown> } = {},
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
