import { GraphQLError } from "graphql";
import { type Plugin, maskError as yogaMaskError } from "graphql-yoga";
import type { GraphQLCode } from "../errors.ts";

/** The same error with `extensions.code` set, unless it already has one. */
function withCode(error: GraphQLError, code: GraphQLCode): GraphQLError {
  if (typeof error.extensions.code === "string") return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code },
  });
}

/** graphql-armor words its refusals "… limit of N exceeded"; everything else is plain validation. */
const isLimit = (e: GraphQLError) => / limit of \d+ exceeded/i.test(e.message);

/**
 * Gives every parse and validation failure a code from our closed set, so clients can branch on
 * `extensions.code` alone.
 */
export function errorCodesPlugin(): Plugin {
  return {
    onParse() {
      return ({ result, replaceParseResult }) => {
        if (result instanceof GraphQLError) {
          replaceParseResult(
            withCode(result, isLimit(result) ? "LIMIT_EXCEEDED" : "GRAPHQL_PARSE_FAILED"),
          );
        }
      };
    },
    onValidate() {
      return ({ result, setResult }) => {
        if (result.length > 0) {
          setResult(
            result.map((e) =>
              withCode(e, isLimit(e) ? "LIMIT_EXCEEDED" : "GRAPHQL_VALIDATION_FAILED"),
            ),
          );
        }
      };
    },
  };
}

/**
 * Unexpected errors are masked and coded INTERNAL. GraphQL's own errors pass unmasked; those
 * without a code by now (validation rules report some outside onValidate's result, graphql-armor's
 * among them) are coded here, so no error leaves without one.
 */
export function maskError(error: unknown, message: string, isDev?: boolean): Error {
  const masked = yogaMaskError(error, message, isDev);
  if (!(masked instanceof GraphQLError)) return masked;
  if (masked !== error) {
    return new GraphQLError(masked.message, {
      nodes: masked.nodes,
      positions: masked.positions,
      path: masked.path,
      extensions: { code: "INTERNAL" },
    });
  }
  return withCode(masked, isLimit(masked) ? "LIMIT_EXCEEDED" : "GRAPHQL_VALIDATION_FAILED");
}
