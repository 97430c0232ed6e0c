import type { Config, NetworkName } from "../../config/schema.ts";

/** Methods priced per call; the graph route is priced by complexity (graphPrice). */
type PerCallMethod = Exclude<keyof Config["pricing"], "graph" | "events">;

/**
 * CC per call of a priced method on a network; undefined for a method with no price. `key` is a
 * method or one of its forms, `<method>/<variant>` (getblock/2): a form with no price of its own
 * costs the method's price.
 */
export function priceOf(config: Config, key: string, network: NetworkName): number | undefined {
  const slash = key.indexOf("/");
  const table =
    priceTable(config, key) ?? (slash > 0 ? priceTable(config, key.slice(0, slash)) : undefined);
  if (!table) return undefined;
  return table[network] ?? table.default;
}

function priceTable(config: Config, key: string): Config["pricing"][PerCallMethod] | undefined {
  if (key === "graph" || key === "events" || key === "" || !Object.hasOwn(config.pricing, key)) {
    return undefined;
  }
  return config.pricing[key as PerCallMethod];
}

/** CC for a graph query of the given complexity: `base` + ceil(complexity × `perPoint`). */
export function graphPrice(config: Config, network: NetworkName, complexity: number): number {
  const { base, perPoint } = config.pricing.graph;
  return (
    (base[network] ?? base.default) +
    Math.ceil(complexity * (perPoint[network] ?? perPoint.default))
  );
}

/** CC for one event a subscription delivers on a network. */
export function eventPrice(
  config: Config,
  event: keyof Config["pricing"]["events"],
  network: NetworkName,
): number {
  const table = config.pricing.events[event];
  return table[network] ?? table.default;
}
