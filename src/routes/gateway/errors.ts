import { GraphQLError } from "graphql";
import { type ErrorCode, type GatewayError, graphqlCodeOf } from "../../protocol/errors/codes.ts";

/**
 * GraphQL errors of the unified API, built from the closed list (src/protocol/errors/codes.ts): a resolver
 * names the list code, and `extensions.code` is that code's GraphQL spelling.
 */
export function codedError(
  code: ErrorCode,
  message: string,
  extensions: Record<string, unknown> = {},
): GraphQLError {
  return new GraphQLError(message, { extensions: { code: graphqlCodeOf(code), ...extensions } });
}

export function fromGatewayError(error: GatewayError): GraphQLError {
  return codedError(error.code, error.message, error.data ?? {});
}

/** A JSON-RPC error the node answered with, in the unified API's terms; Core's code travels too. */
export function fromNodeError(rpc: { code: number; message: string }): GraphQLError {
  const code: ErrorCode =
    rpc.code === -5
      ? "NOT_FOUND"
      : rpc.code === -8 || rpc.code === -3
        ? "INVALID_PARAMS"
        : "UPSTREAM_ERROR";
  return codedError(code, rpc.message, { rpcCode: rpc.code });
}

/**
 * The same error without its location, for an error shared by several fields (one failed lookup
 * that many fields waited on): graphql-js then places it at each field that throws it.
 */
export function atThisField(error: unknown): unknown {
  if (!(error instanceof GraphQLError)) return error;
  return new GraphQLError(error.message, { extensions: error.extensions });
}
