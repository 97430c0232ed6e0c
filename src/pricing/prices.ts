import type { Config, NetworkName } from "../config/schema.ts";

/** CC per call of a priced method on a network; undefined for a method with no price. */
export function priceOf(config: Config, method: string, network: NetworkName): number | undefined {
  const table = (config.pricing as Record<string, Record<string, number> | undefined>)[method];
  if (!table) return undefined;
  return table[network] ?? table.default;
}
