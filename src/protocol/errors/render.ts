import {
  type GatewayError,
  graphqlCodeOf,
  type HasuraCode,
  hasuraCodeOf,
  jsonRpcCodeOf,
} from "./codes.ts";

/**
 * One renderer per protocol for a gateway failure. Each shows `code`, `message` and `data` only:
 * `detail` and `upstreamCode` are for logs and the audit record, so no internal text can reach an
 * answer through here.
 */

/** A JSON-RPC error object: the protocol's number, our code in `data` for clients that branch. */
export function rpcErrorObject(error: GatewayError): {
  code: number;
  message: string;
  data: Record<string, unknown>;
} {
  return {
    code: jsonRpcCodeOf(error.code),
    message: error.message,
    data: { code: error.code, ...error.data },
  };
}

/** A GraphQL error (the unified API), as it is serialized. */
export function graphqlErrorObject(error: GatewayError): {
  message: string;
  extensions: Record<string, unknown>;
} {
  return { message: error.message, extensions: { code: graphqlCodeOf(error.code), ...error.data } };
}

/** A Hasura error (the graph mirror): a JSON path into the request, and Hasura's code. */
export function hasuraErrorObject(
  error: GatewayError,
  at: { path?: string; variant?: HasuraCode } = {},
): { message: string; extensions: { path: string; code: string; [key: string]: unknown } } {
  return {
    message: error.message,
    extensions: { path: at.path ?? "$", code: hasuraCodeOf(error.code, at.variant), ...error.data },
  };
}

/** Outside any protocol (unknown route, operator routes, health). */
export function plainErrorObject(error: GatewayError): {
  error: { code: string; message: string; [key: string]: unknown };
} {
  return { error: { code: error.code, message: error.message, ...error.data } };
}
