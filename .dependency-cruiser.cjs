/**
 * Import rules for src/ (`npm run check` runs them). Layers, from the bottom: the codec
 * (src/bitcoin), protocol helpers (src/jsonrpc, src/errors), GraphQL document helpers (src/gql)
 * and config; the store, the ledger and usage; upstream clients (with the indexer's Hasura
 * dialect); the metering pipeline; routes (mirror, unified API, dashboard, admin, CLI); wiring
 * (src/app, src/main.ts). src/http holds HTTP helpers only. Imports point down only.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "A cycle makes two modules one: neither can be read, tested or moved alone.",
      from: { path: "^src" },
      to: { circular: true },
    },
    {
      name: "devnet-only-from-wiring",
      severity: "error",
      comment:
        "devnet emulates upstreams for development and tests: the gateway's own code never depends on it, only the entry point that starts it.",
      // src/app/upstreams.ts turns "devnet" config entries into the started devnet's addresses
      // (a type import): it is part of the entry point's wiring.
      from: {
        path: "^src",
        pathNot: ["^src/devnet/", "^src/main\\.ts$", "^src/app/upstreams\\.ts$"],
      },
      to: { path: "^src/devnet/" },
    },
    {
      name: "codec-stands-alone",
      severity: "error",
      comment: "The Bitcoin codec knows nothing of the gateway: it is the bottom layer.",
      from: { path: "^src/bitcoin/" },
      to: { path: "^src/", pathNot: "^src/bitcoin/" },
    },
    {
      name: "graphql-helpers-stand-alone",
      comment:
        "GraphQL document helpers (the one selection walker) serve the unified API and the indexer's Hasura checks alike: they build on graphql and graphql-tools only.",
      severity: "error",
      from: { path: "^src/gql/" },
      to: { path: "^src/", pathNot: "^src/gql/" },
    },
    {
      name: "store-and-ledger-below-routes",
      severity: "error",
      comment: "The store, the ledger and accounts are used by routes, never the other way round.",
      from: { path: "^src/(db|ledger|accounts|auth|usage)/" },
      to: {
        path: "^src/(http|mirror|graphql|dashboard|admin|app|cli|upstreams|devnet|metering)/",
      },
    },
    {
      name: "upstreams-below-routes",
      severity: "error",
      comment: "Upstream clients return models; routes render them. Clients never import routes.",
      from: { path: "^src/upstreams/" },
      to: { path: "^src/(http|mirror|graphql|dashboard|admin|app|cli|metering|ledger|db|usage)/" },
    },
    {
      name: "metering-below-routes",
      severity: "error",
      comment:
        "The metering pipeline is the spine every route plugs into: routes call it, it never calls a route.",
      from: { path: "^src/metering/" },
      to: { path: "^src/(mirror|graphql|dashboard|admin|app|cli|devnet)/" },
    },
    {
      name: "foundations-stand-alone",
      severity: "error",
      comment:
        "Protocol helpers (JSON-RPC envelopes, Core and Electrum parameter checks, the error list) are shared by devnet and the routes: they import only the codec, config and each other.",
      from: { path: "^src/(jsonrpc|errors)/" },
      to: { path: "^src/", pathNot: "^src/(jsonrpc|errors|bitcoin|config)/" },
    },
    {
      name: "routes-not-from-each-other",
      severity: "error",
      comment:
        "Each route family stands on the pipeline and the services below it; what two routes share lives below them, not in one of them.",
      from: { path: "^src/(mirror|graphql|dashboard|admin)/" },
      // The dashboard is a client of the unified API (its charts query it), so it may import it.
      to: {
        path: "^src/(mirror|graphql|dashboard|admin|app)/",
        pathNot: ["^src/$1/", "^src/graphql/load\\.ts$"],
      },
    },
    {
      name: "http-helpers-only",
      severity: "error",
      comment:
        "src/http holds HTTP helpers (the framework's conventions, bodies, replies, drain); it composes no routes.",
      from: { path: "^src/http/" },
      to: {
        path: "^src/(mirror|graphql|dashboard|admin|app|cli|metering|upstreams|ledger|db|usage)/",
      },
    },
    {
      name: "src-not-from-tests",
      severity: "error",
      comment: "Production code never imports tests, benchmarks or scripts.",
      from: { path: "^src" },
      to: { path: "^(test|bench)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^src/generated/" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".mjs", ".js"] },
  },
};
