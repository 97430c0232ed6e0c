import { lexicographicSortSchema, printSchema } from "graphql";
import { builder } from "./builder.ts";
import "./scalars.ts";
import "./types/account.ts";
import "./types/plan.ts";
import "./types/tokens.ts";
import "./types/transaction-queries.ts";
import "./types/block.ts";
import "./types/chain.ts";
import "./types/address.ts";
import "./types/address-pages.ts";
import "./types/addresses.ts";
import "./types/descriptor.ts";
import "./types/package.ts";
import "./types/subscriptions.ts";
import "./types/webhooks.ts";
import "./types/topups.ts";

/** The unified API's schema, built once per process from the Pothos definitions. */
export const gatewaySchema = builder.toSchema();

/** The SDL committed as schema/gateway.graphql (codegen's input; a test fails when it drifts). */
export function printGatewaySchema(): string {
  return `${printSchema(lexicographicSortSchema(gatewaySchema))}\n`;
}
