import { type HasuraError, hasuraError } from "./hasura-error.ts";

/** A GraphQL-over-HTTP request body as Hasura reads it. */
export interface GraphRequest {
  query: string;
  variables: Record<string, unknown>;
  operationName: string | undefined;
}

/** Reads `{query, variables, operationName}`; failures in Hasura's shape and codes. */
export function parseGraphRequest(
  body: string,
): { ok: true; request: GraphRequest } | { ok: false; error: HasuraError } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, error: hasuraError("invalid json", "$", "invalid-json") };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return {
      ok: false,
      error: hasuraError(
        `expected Object, but encountered ${jsonKind(parsed)}`,
        "$",
        "parse-failed",
      ),
    };
  }
  const o = parsed as Record<string, unknown>;
  if (typeof o.query !== "string") {
    return {
      ok: false,
      error:
        o.query === undefined
          ? hasuraError('key "query" not found', "$", "parse-failed")
          : hasuraError(
              `expected String, but encountered ${jsonKind(o.query)}`,
              "$.query",
              "parse-failed",
            ),
    };
  }
  if (
    o.variables !== undefined &&
    o.variables !== null &&
    (typeof o.variables !== "object" || Array.isArray(o.variables))
  ) {
    return {
      ok: false,
      error: hasuraError(
        `expected Object, but encountered ${jsonKind(o.variables)}`,
        "$.variables",
        "parse-failed",
      ),
    };
  }
  if (
    o.operationName !== undefined &&
    o.operationName !== null &&
    typeof o.operationName !== "string"
  ) {
    return {
      ok: false,
      error: hasuraError(
        `expected String, but encountered ${jsonKind(o.operationName)}`,
        "$.operationName",
        "parse-failed",
      ),
    };
  }
  return {
    ok: true,
    request: {
      query: o.query,
      variables: (o.variables ?? {}) as Record<string, unknown>,
      operationName: (o.operationName as string | null | undefined) ?? undefined,
    },
  };
}

function jsonKind(v: unknown): string {
  if (v === null) return "Null";
  if (Array.isArray(v)) return "Array";
  switch (typeof v) {
    case "string":
      return "String";
    case "number":
      return "Number";
    case "boolean":
      return "Boolean";
    default:
      return "Object";
  }
}
