import type { DocumentNode, GraphQLError, GraphQLSchema } from "graphql";
import { graphPrice, priceOf } from "../../../billing/pricing/prices.ts";
import type { NetworkName } from "../../../config/schema.ts";
import type { GatewayServices } from "../services.ts";
import { type CostEstimate, estimateCost } from "./estimate.ts";
import type { EstimateMemo } from "./estimate-memo.ts";

/**
 * A request's cost estimate (with the limit checks it makes), memoised per document and
 * variables: what the cost plugin reserves, and what a planned request reserves (query-plans/serve.ts),
 * from one memo so that the two never price the same request differently.
 */
export function requestEstimate(
  /** The executor's memo: one per running gateway, whose prices and limits are fixed. */
  memo: EstimateMemo,
  app: GatewayServices,
  network: NetworkName,
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown>,
): CostEstimate | GraphQLError {
  return memo.estimate(schema, document, operationName, variables, network, () =>
    estimateCost(schema, document, operationName, variables, {
      price: (method) => priceOf(app.config, method, network) ?? 0,
      listItemsMax: app.config.graphql.listItemsMax,
      descriptorAddressesMax: app.config.graphql.descriptorAddressesMax,
      graph: {
        limits: app.config.graph,
        price: (complexity) => graphPrice(app.config, network, complexity),
      },
    }),
  );
}
