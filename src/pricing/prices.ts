import type { Config, NetworkName } from "../config/schema.ts";

/** Methods priced per call; the graph route is priced by complexity (graphPrice). */
type PerCallMethod = Exclude<keyof Config["pricing"], "graph">;

/** CC per call of a priced method on a network; undefined for a method with no price. */
export function priceOf(config: Config, method: string, network: NetworkName): number | undefined {
  if (method === "graph" || !Object.hasOwn(config.pricing, method)) return undefined;
  const table = config.pricing[method as PerCallMethod];
  return table[network] ?? table.default;
}

/** CC for a graph query of the given complexity: `base` + ceil(complexity × `perPoint`). */
export function graphPrice(config: Config, network: NetworkName, complexity: number): number {
  const { base, perPoint } = config.pricing.graph;
  return (
    (base[network] ?? base.default) +
    Math.ceil(complexity * (perPoint[network] ?? perPoint.default))
  );
}
