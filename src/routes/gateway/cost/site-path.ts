import type { GraphQLResolveInfo } from "graphql";

/**
 * A field's place in the document, as the cost estimate names it: response keys from the root,
 * list indices left out (`block.transactions.transaction`). Every resolution of one selected field
 * — each item of the lists around it — shares it, so it is where the estimate's per-field figures
 * are found at execution.
 */
export function sitePath(path: GraphQLResolveInfo["path"]): string {
  const keys: string[] = [];
  for (let p: GraphQLResolveInfo["path"] | undefined = path; p; p = p.prev) {
    if (typeof p.key === "string") keys.push(p.key);
  }
  return keys.reverse().join(".");
}
