/**
 * Import rules for src/ (`npm run check` runs them). One concept per folder; imports point down
 * only. The layers, from the bottom:
 *
 *   util, bitcoin (the codec)                          stand alone
 *   protocol/ (json, core, electrum, errors, graphql,   the upstreams' rules and the error list
 *     hasura), config, log
 *   db                                                 the store
 *   access, billing/{ledger,usage,pricing}             tokens and money, on the store
 *   upstreams, cache, events, limits, verify           clients, what is kept of them, chain events,
 *                                                      the verified header chain
 *   http, billing/metering                             HTTP helpers; the pipeline every route runs
 *   billing/topups                                     credits paid in bitcoin (watch, credit)
 *   webhooks                                           metered deliveries of chain events
 *   routes/<family>                                    one folder per route family
 *   app, main.ts, cli, devnet                          entries and the composition root
 *
 * The table in docs/architecture.md says the same in prose.
 * @type {import('dependency-cruiser').IConfiguration}
 */

/** Folders above a layer, which it may not import (each rule names its own). */
const ENTRIES = "app|cli|cluster|devnet|main\\.ts";
const ROUTES = `routes|${ENTRIES}`;
const WEBHOOKS = `webhooks|${ROUTES}`;
const PIPELINE = `http|billing/metering|${WEBHOOKS}`;
const SERVICES = `upstreams|cache|events|limits|verify|${PIPELINE}`;
const MONEY = `access|billing|${SERVICES}`;
const above = (folders) => ({ path: `^src/(${folders})` });

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
      name: "devnet-is-its-own-entry",
      severity: "error",
      comment:
        "devnet emulates upstreams for development and tests: the gateway's own code never depends on it; only the entry points start it (the gateway's, and `blockgate devnet serve`'s, which runs it alone), and the composition root resolves `devnet` upstream entries, by type.",
      from: {
        path: "^src",
        pathNot: [
          "^src/devnet/",
          "^src/main\\.ts$",
          "^src/app/upstreams\\.ts$",
          "^src/cli/devnet-serve\\.ts$",
        ],
      },
      to: { path: "^src/devnet/" },
    },
    {
      name: "devnet-below-the-gateway",
      severity: "error",
      comment:
        "devnet stands on the codec, the protocol rules and the upstream clients, like a real upstream would be written: never on the gateway's routes, pipeline or money.",
      from: { path: "^src/devnet/" },
      to: above(`access|billing|limits|webhooks|routes|app|cli|main\\.ts`),
    },
    {
      name: "codec-stands-alone",
      severity: "error",
      comment: "The Bitcoin codec knows nothing of the gateway: it is the bottom layer.",
      from: { path: "^src/bitcoin/" },
      to: { path: "^src/", pathNot: "^src/bitcoin/" },
    },
    {
      name: "util-stands-alone",
      severity: "error",
      comment:
        "Generic helpers (caches, cancellation, in-flight maps) know nothing of the gateway.",
      from: { path: "^src/util/" },
      to: { path: "^src/", pathNot: "^src/util/" },
    },
    {
      name: "protocol-rules-stand-alone",
      severity: "error",
      comment:
        "Protocol rules (JSON-RPC envelopes, Core's, Electrum's and Hasura's parameter checks, GraphQL document walks, the error list) are shared by devnet and the routes: they import only the codec, config, util and each other.",
      from: { path: "^src/protocol/" },
      to: { path: "^src/", pathNot: "^src/(protocol|bitcoin|config|util)/" },
    },
    {
      name: "config-stands-alone",
      severity: "error",
      comment:
        "Config is read first and by everything: it imports only util and the default price list (data, no code).",
      from: { path: "^src/config/" },
      to: {
        path: "^src/",
        pathNot: ["^src/(config|util)/", "^src/billing/pricing/price-list\\.ts$"],
      },
    },
    {
      name: "log-stands-alone",
      severity: "error",
      comment: "Logging and metrics are used by every layer: they import none of them.",
      from: { path: "^src/log/" },
      to: { path: "^src/", pathNot: "^src/log/" },
    },
    {
      name: "store-below-money",
      severity: "error",
      comment: "The store knows nothing of what is kept in it.",
      from: { path: "^src/db/" },
      to: above(`log|${MONEY}`),
    },
    {
      name: "money-below-services",
      severity: "error",
      comment:
        "Tokens, the ledger, usage and prices sit on the store: the upstreams, the pipeline and the routes use them, never the other way round.",
      from: { path: "^src/(access|billing/(ledger|usage|pricing))/" },
      to: above(`billing/metering|${SERVICES}`),
    },
    {
      name: "upstream-clients-below-their-users",
      severity: "error",
      comment: "Upstream clients return models; the cache, events and routes use them.",
      from: { path: "^src/upstreams/" },
      to: above(`access|billing|cache|events|limits|verify|${PIPELINE}`),
    },
    {
      name: "services-below-the-pipeline",
      severity: "error",
      comment:
        "The cache, chain events and limits serve the pipeline and the routes; they never call them.",
      from: { path: "^src/(cache|events|limits|verify)/" },
      to: above(PIPELINE),
    },
    {
      name: "http-helpers-only",
      severity: "error",
      comment:
        "src/http holds HTTP helpers (the framework's conventions, bodies, replies, drain); it composes no routes and knows no service.",
      from: { path: "^src/http/" },
      to: above(`access|billing|db|upstreams|cache|events|limits|verify|${WEBHOOKS}`),
    },
    {
      name: "pipeline-below-routes",
      severity: "error",
      comment:
        "The metering pipeline is the spine every route plugs into: routes call it, it never calls a route.",
      from: { path: "^src/billing/metering/" },
      to: above(WEBHOOKS),
    },
    {
      name: "topups-below-routes",
      severity: "error",
      comment:
        "Top-ups watch the chain through the upstreams and events and credit through the ledger: the routes and the CLI use them, never the other way round.",
      from: { path: "^src/billing/topups/" },
      to: above(`billing/metering|${WEBHOOKS}`),
    },
    {
      name: "webhooks-below-routes",
      severity: "error",
      comment: "Webhooks are delivered through the pipeline; routes register them.",
      from: { path: "^src/webhooks/" },
      to: above(ROUTES),
    },
    {
      name: "routes-below-entries",
      severity: "error",
      comment:
        "Routes take the services they use; only the composition root (src/app) knows every service.",
      from: { path: "^src/routes/" },
      to: above(ENTRIES),
    },
    {
      name: "routes-not-from-each-other",
      severity: "error",
      comment:
        "Each route family stands on the pipeline and the services below it; what two families share lives below them (routes/json-rpc: the JSON-RPC mirrors' common route), not in one of them.",
      from: { path: "^src/routes/([^/]+)/" },
      // The dashboard is a client of the unified API (its charts query it), so it may load it.
      to: {
        path: "^src/routes/",
        pathNot: [
          "^src/routes/$1/",
          "^src/routes/json-rpc/",
          "^src/routes/gateway/(load|services)\\.ts$",
        ],
      },
    },
    {
      name: "json-rpc-route-shared-only",
      severity: "error",
      comment: "The JSON-RPC mirrors' common route knows no mirror.",
      from: { path: "^src/routes/json-rpc/" },
      to: { path: "^src/routes/", pathNot: "^src/routes/json-rpc/" },
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
