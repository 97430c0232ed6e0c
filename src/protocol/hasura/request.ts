import { JSON_DEPTH_MAX, jsonDepthOver } from "../json/json-depth.ts";
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
  depthMax = JSON_DEPTH_MAX,
): { ok: true; request: GraphRequest } | { ok: false; error: HasuraError } {
  let parsed: unknown;
  try {
    // Nested past the bound, the body is refused as JSON that cannot be read, before parsing.
    if (jsonDepthOver(body, depthMax)) throw new SyntaxError("nested too deep");
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, error: hasuraError("invalid json", "$", "invalid-json") };
  }
  // aeson's wording for a value of the wrong JSON type, at its place in the body.
  const wrong = (expected: string, value: unknown, path: string) => ({
    ok: false as const,
    error: hasuraError(
      `expected ${expected}, but encountered ${jsonKind(value)}`,
      path,
      "parse-failed",
    ),
  });
  const isObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObject(parsed)) return wrong("Object", parsed, "$");
  const o = parsed as Record<string, unknown>;
  if (o.query === undefined) {
    return { ok: false, error: hasuraError('key "query" not found', "$", "parse-failed") };
  }
  if (typeof o.query !== "string") return wrong("String", o.query, "$.query");
  if (o.variables != null && !isObject(o.variables)) {
    return wrong("Object", o.variables, "$.variables");
  }
  if (o.operationName != null && typeof o.operationName !== "string") {
    return wrong("String", o.operationName, "$.operationName");
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
