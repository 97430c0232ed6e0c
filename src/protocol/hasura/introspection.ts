import { execute, type GraphQLSchema } from "graphql";
import type { CheckedQuery } from "./check.ts";

/**
 * Answers a query made only of introspection fields (`__schema`, `__type`, `__typename`) from the
 * indexer schema itself: the same answer the indexer would give, without a round trip or a charge.
 */
export function executeIntrospection(schema: GraphQLSchema, query: CheckedQuery): unknown {
  const result = execute({
    schema,
    document: query.document,
    variableValues: query.variableValues,
    ...(query.operation.name ? { operationName: query.operation.name.value } : {}),
  });
  if ("then" in result) throw new Error("introspection resolved asynchronously");
  return result.data;
}
