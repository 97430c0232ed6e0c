import type { Config } from "../../config/schema.ts";
import { overlongList } from "../../util/list-items.ts";
import { gatewayError, type HasuraCode } from "../errors/codes.ts";
import { hasuraErrorObject } from "../errors/render.ts";
import type { SelectedField } from "./check.ts";
import type { HasuraError } from "./hasura-error.ts";

/**
 * The gateway's limits on a graph query, checked before it is priced or forwarded: a `limit`
 * above the page size is refused (never cut: a client that asked for 5,000 rows and silently got
 * 1,000 would page wrongly), as are queries nested too deep or fanned out by too many aliases,
 * and a list in the arguments (an `_in` of heights, written or given as a variable) longer than
 * `listItemsMax` (graphql.listItemsMax, the bound on one list on every route). Errors read like
 * Hasura's, with codes of our own so a client can tell a limit from a typo.
 */
export function checkGraphLimits(
  fields: readonly SelectedField[],
  limits: Config["graph"],
  listItemsMax: number,
): HasuraError | null {
  let aliases = 0;
  const visit = (field: SelectedField): HasuraError | null => {
    if (field.introspection) return null;
    if (field.aliased) aliases += 1;
    if (field.depth > limits.depthMax) {
      return limitError(
        `the query is nested ${field.depth} levels deep; the limit is ${limits.depthMax}`,
        field.path,
        "depth-limit-exceeded",
      );
    }
    const limit = field.args.limit;
    if (typeof limit === "number" && limit > limits.pageSizeMax) {
      return limitError(
        `limit ${limit} is above the maximum page size of ${limits.pageSizeMax} rows; ask for at most ${limits.pageSizeMax} and page with offset or a height cursor`,
        `${field.path}.args.limit`,
        "page-size-exceeded",
      );
    }
    const long = overlongList(field.args, listItemsMax);
    if (long) {
      return limitError(
        `${long.items} items in the list ${long.path}; the limit is ${listItemsMax} items in one list: ask for fewer, or send several queries`,
        `${field.path}.args.${long.path}`,
        "list-items-exceeded",
      );
    }
    for (const child of field.children) {
      const problem = visit(child);
      if (problem) return problem;
    }
    return null;
  };
  for (const field of fields) {
    const problem = visit(field);
    if (problem) return problem;
  }
  if (aliases > limits.aliasesMax) {
    return limitError(
      `the query uses ${aliases} aliases; the limit is ${limits.aliasesMax}`,
      "$",
      "alias-limit-exceeded",
    );
  }
  return null;
}

/** A LIMIT_EXCEEDED refusal, spelled as the graph mirror names each limit. */
function limitError(message: string, path: string, variant: HasuraCode): HasuraError {
  return hasuraErrorObject(gatewayError("LIMIT_EXCEEDED", message), { path, variant });
}
