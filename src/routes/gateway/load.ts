import type { GatewayServices } from "./services.ts";

/**
 * The unified API's modules (graphql-yoga, Pothos, graphql-tools, GraphiQL) take about a second
 * to load and its schema more to build: they are loaded once the server listens (warmUnifiedApi),
 * so start-up does not wait for them, and a request that comes first waits for the same load.
 */
export function unifiedApi(): Promise<typeof import("./route.ts")> {
  // The module's promise, kept: import() of a loaded module still resolves its specifier each
  // call, which under a loader (tsx in development and benches) is a message to the loader's
  // thread and back — 9% of a unified API request's CPU. A failed load is tried again next time.
  loading ??= import("./route.ts").catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}
let loading: Promise<typeof import("./route.ts")> | undefined;

export function warmUnifiedApi(app: GatewayServices): void {
  unifiedApi()
    .then((api) => api.gatewayYoga(app))
    .catch((err: unknown) => app.log.error({ err }, "loading the unified GraphQL API failed"));
}
