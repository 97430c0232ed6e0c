import { NETWORK_NAMES } from "../../../config/schema.ts";
import { builder } from "../builder.ts";

export const NetworkEnum = builder.enumType("Network", {
  description: "A Bitcoin network, named as in the route.",
  values: Object.fromEntries(NETWORK_NAMES.map((n) => [n.toUpperCase(), { value: n }])) as Record<
    string,
    { value: (typeof NETWORK_NAMES)[number] }
  >,
});
