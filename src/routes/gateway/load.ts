import type { GatewayExecutor } from "./executor.ts";
import type { GatewayServices } from "./services.ts";

/**
 * The unified API of one gateway: its modules (graphql-yoga, Pothos, graphql-tools, GraphiQL)
 * take about a second to load and its schema more to build, so they are loaded once the server
 * listens, not at start-up. The composition root keeps the promise: one executor per gateway.
 */
export async function loadUnifiedApi(services: GatewayServices): Promise<GatewayExecutor> {
  const { GatewayExecutor } = await import("./executor.ts");
  return new GatewayExecutor(services);
}
