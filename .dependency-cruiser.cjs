/**
 * Import rules for src/ (`npm run check` runs them). Layers, from the bottom: the codec
 * (src/bitcoin) and plain helpers; the store and the ledger; upstream clients; routes and the
 * unified API; wiring (src/app, src/http, src/main.ts). Imports point down only.
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
      name: "store-and-ledger-below-routes",
      severity: "error",
      comment: "The store, the ledger and accounts are used by routes, never the other way round.",
      from: { path: "^src/(db|ledger|accounts|auth|billing)/" },
      to: {
        path: "^src/(http|mirror|graphql|dashboard|app|cli|upstreams|devnet|metering)/",
      },
    },
    {
      name: "upstreams-below-routes",
      severity: "error",
      comment: "Upstream clients return models; routes render them. Clients never import routes.",
      from: { path: "^src/upstreams/" },
      to: { path: "^src/(http|mirror|graphql|dashboard|app|cli|metering|ledger|db)/" },
    },
    {
      name: "metering-below-routes",
      severity: "error",
      comment:
        "The metering pipeline is the spine every route plugs into: routes call it, it never calls a route.",
      from: { path: "^src/metering/" },
      to: { path: "^src/(http|mirror|graphql|dashboard|cli|devnet)/" },
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
