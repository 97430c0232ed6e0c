/**
 * Hasura's GraphQL error object: `message`, and `extensions` with a JSON path into the request
 * (`$.selectionSet.block.args.limit`) and a code. Hasura stops at the first problem, so a failed
 * request carries exactly one of these, with HTTP 200 and no `data`.
 */
export interface HasuraError {
  message: string;
  extensions: { path: string; code: string; [key: string]: unknown };
}

export function hasuraError(
  message: string,
  path = "$",
  code = "validation-failed",
  extra: Record<string, unknown> = {},
): HasuraError {
  return { message, extensions: { path, code, ...extra } };
}

/** Hasura's `englishList "or"`: `"a" or "b"`, `"a", "b", or "c"`. */
export function englishOr(items: readonly string[]): string {
  if (items.length <= 2) return items.join(" or ");
  return `${items.slice(0, -1).join(", ")}, or ${items[items.length - 1]}`;
}
