import { GraphQLError } from "graphql";
import type { GatewayError } from "../errors/codes.ts";

/**
 * The closed set of `extensions.code` values the unified API returns. Gateway error codes map onto
 * it one to one; GraphQL's own failures get the last four.
 */
export const GRAPHQL_CODES = [
  "NOT_FOUND",
  "BAD_USER_INPUT",
  "UNAUTHENTICATED",
  "INSUFFICIENT_CREDITS",
  "UPSTREAM_UNAVAILABLE",
  "UPSTREAM_TIMEOUT",
  "UPSTREAM_BAD_RESPONSE",
  "UPSTREAM_ERROR",
  "LIMIT_EXCEEDED",
  "GRAPHQL_PARSE_FAILED",
  "GRAPHQL_VALIDATION_FAILED",
  "INTERNAL",
] as const;
export type GraphQLCode = (typeof GRAPHQL_CODES)[number];

export function codedError(
  code: GraphQLCode,
  message: string,
  extensions: Record<string, unknown> = {},
) {
  return new GraphQLError(message, { extensions: { code, ...extensions } });
}

export function fromGatewayError(error: GatewayError): GraphQLError {
  const code: GraphQLCode =
    error.code === "UPSTREAM_UNAVAILABLE" ||
    error.code === "UPSTREAM_TIMEOUT" ||
    error.code === "UPSTREAM_BAD_RESPONSE"
      ? error.code
      : error.code === "INSUFFICIENT_CREDITS" || error.code === "UNAUTHENTICATED"
        ? error.code
        : error.code === "BAD_REQUEST"
          ? "BAD_USER_INPUT"
          : "INTERNAL";
  return codedError(code, error.message, error.data ?? {});
}

/** A JSON-RPC error the node answered with, in the unified API's terms. */
export function fromNodeError(rpc: { code: number; message: string }): GraphQLError {
  if (rpc.code === -5) return codedError("NOT_FOUND", rpc.message, { rpcCode: rpc.code });
  if (rpc.code === -8 || rpc.code === -3)
    return codedError("BAD_USER_INPUT", rpc.message, { rpcCode: rpc.code });
  return codedError("UPSTREAM_ERROR", rpc.message, { rpcCode: rpc.code });
}

/**
 * The same error without its location, for an error shared by several fields (one failed lookup
 * that many fields waited on): graphql-js then places it at each field that throws it.
 */
export function atThisField(error: unknown): unknown {
  if (!(error instanceof GraphQLError)) return error;
  return new GraphQLError(error.message, { extensions: error.extensions });
}
