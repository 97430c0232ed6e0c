import { GraphQLError } from "graphql";
import { type Plugin, maskError as yogaMaskError } from "graphql-yoga";
import { type ErrorCode, fromGraphQLCode, graphqlCodeOf } from "../../../protocol/errors/codes.ts";

/**
 * The same error, safe to send: `extensions.code` from the closed list and no `originalError`
 * (a parser's text, a stack) — only its message, locations and the extensions we chose.
 */
function coded(error: GraphQLError, code: ErrorCode, message = error.message): GraphQLError {
  const { originalError: _internal, code: _code, ...extensions } = error.extensions;
  return new GraphQLError(message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...extensions, code: graphqlCodeOf(code) },
  });
}

/**
 * graphql-armor words its refusals "… limit of N exceeded", graphql-js its bound on nested
 * introspection "Maximum introspection depth exceeded"; everything else is plain validation.
 */
const isLimit = (e: GraphQLError) =>
  / limit of \d+ exceeded/i.test(e.message) ||
  /^Maximum introspection depth exceeded/.test(e.message);

/**
 * graphql-armor reports its limits as "Syntax Error: Query depth limit of 4 exceeded, found 5.",
 * though the document parsed fine: the prefix goes, the rest says what went wrong.
 */
const limitMessage = (e: GraphQLError) => e.message.replace(/^Syntax Error:\s*/, "");

function codedByKind(error: GraphQLError, otherwise: ErrorCode): GraphQLError {
  return isLimit(error)
    ? asRequestError(coded(error, "LIMIT_EXCEEDED", limitMessage(error)))
    : coded(error, otherwise);
}

/**
 * A document over a limit is refused as the GraphQL over HTTP spec refuses an invalid one: 400 to
 * a client that accepts application/graphql-response+json, 200 to a legacy application/json one
 * (Yoga reads `http.spec` so; the extension is not sent).
 */
function asRequestError(error: GraphQLError): GraphQLError {
  if (error.extensions.http) return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...error.extensions, http: { spec: true, status: 400 } },
  });
}

/**
 * Gives every parse and validation failure a code from our closed set, so clients can branch on
 * `extensions.code` alone.
 */
export function errorCodesPlugin(): Plugin {
  return {
    onParse() {
      return ({ result, replaceParseResult }) => {
        if (result instanceof GraphQLError && typeof result.extensions.code !== "string") {
          replaceParseResult(codedByKind(result, "GRAPHQL_PARSE_FAILED"));
        }
      };
    },
    onValidate() {
      return ({ result, setResult }) => {
        if (result.length > 0) {
          setResult(
            result.map((e) =>
              typeof e.extensions.code === "string"
                ? e
                : codedByKind(e, "GRAPHQL_VALIDATION_FAILED"),
            ),
          );
        }
      };
    },
  };
}

/** Yoga's own refusal of a body that does not parse as JSON ("POST body sent invalid JSON."). */
const isInvalidJson = (e: GraphQLError) =>
  e.extensions.code === "BAD_REQUEST" && /invalid JSON/i.test(e.message);

/**
 * The last stop of every error the unified API sends. Unexpected errors are masked and coded
 * INTERNAL. GraphQL's own errors pass unmasked, but leave with a list code whatever they came with
 * (Yoga codes its request-parsing errors BAD_REQUEST; validation rules report some outside
 * onValidate's result, graphql-armor's among them) and without `originalError`, which would carry
 * a parser's words or a stack to the client.
 */
export function maskError(
  error: unknown,
  message: string,
  isDev?: boolean,
  /** Told the cause of every error masked as INTERNAL: for the log, the only place it goes. */
  onUnexpected?: (cause: unknown, path: readonly (string | number)[] | undefined) => void,
): Error {
  const masked = yogaMaskError(error, message, isDev);
  if (masked !== error) {
    const path = error instanceof GraphQLError ? error.path : undefined;
    onUnexpected?.(error instanceof GraphQLError ? (error.originalError ?? error) : error, path);
  }
  if (!(masked instanceof GraphQLError)) return masked;
  if (masked !== error) {
    return new GraphQLError(masked.message, {
      nodes: masked.nodes,
      positions: masked.positions,
      path: masked.path,
      // Yoga's HTTP status for the error (not serialized), without its dev-mode internals.
      extensions: { code: graphqlCodeOf("INTERNAL"), http: masked.extensions.http },
    });
  }
  const code = masked.extensions.code;
  if (isInvalidJson(masked)) {
    // 400 as before: Yoga answered 400 only because the parser's error rode along, and would
    // now prefer 200 for an `application/json` client; a body that is not JSON is no GraphQL.
    return new GraphQLError("the request body is not valid JSON", {
      extensions: { code: graphqlCodeOf("INVALID_JSON"), http: { status: 400 } },
    });
  }
  if (typeof code === "string") {
    const listed = fromGraphQLCode(code);
    // A code from outside our list (a library's) is a refusal of the request when Yoga answers
    // it with a 4xx; else it is ours to own as INTERNAL.
    const status = (masked.extensions.http as { status?: unknown } | undefined)?.status;
    const fallback: ErrorCode =
      typeof status === "number" && status >= 400 && status < 500 ? "BAD_REQUEST" : "INTERNAL";
    return coded(masked, graphqlCodeOf(listed) === code ? listed : fallback);
  }
  return codedByKind(masked, "GRAPHQL_VALIDATION_FAILED");
}
