import type { App } from "../metering/context.ts";

/**
 * The unified API's modules (graphql-yoga, Pothos, graphql-tools, GraphiQL) take about a second
 * to load and its schema more to build: they are loaded once the server listens (warmUnifiedApi),
 * so start-up does not wait for them, and a request that comes first waits for the same load.
 */
export const unifiedApi = () => import("./route.ts");

export function warmUnifiedApi(app: App): void {
  unifiedApi()
    .then((api) => api.gatewayYoga(app))
    .catch((err: unknown) => app.log.error({ err }, "loading the unified GraphQL API failed"));
}
