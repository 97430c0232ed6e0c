import { EnvelopArmorPlugin } from "@escape.tech/graphql-armor";
import { renderGraphiQL } from "@graphql-yoga/render-graphiql";
import { createYoga, type YogaServerInstance } from "graphql-yoga";
import type { Logger } from "pino";
import { SettleAbandoned } from "../../billing/ledger/credits.ts";
import type { Config } from "../../config/schema.ts";
import { CallCut } from "../../http/in-flight.ts";
import type { GraphQLContext } from "./context.ts";
import type { EstimateMemo } from "./cost/estimate-memo.ts";
import { costPlugin } from "./cost/plugin.ts";
import { type DocumentCache, documentCachePlugin } from "./plugins/document-cache.ts";
import { errorCodesPlugin, maskError } from "./plugins/error-codes.ts";
import { inputDepthPlugin } from "./plugins/input-depth.ts";
import { sharedEventsPlugin } from "./plugins/shared-events.ts";
import { sseEventsPlugin } from "./plugins/sse-events.ts";
import { gatewaySchema } from "./schema.ts";
import { SHARED_EVENT_FIELDS } from "./types/subscriptions.ts";

/** The endpoint path Yoga sees; the route rewrites /<gateway>/<network>/<token> onto it. */
export const YOGA_PATH = "/graphql";

/** What a masked error says (Yoga's default message, named so that every masking says it). */
const MASKED_MESSAGE = "Unexpected error.";

/**
 * The unified API's server. The plugin array is the request pipeline, in order (authentication,
 * the account and the per-request state arrive before it, in the server context):
 *  0. the document cache: a repeated document skips parsing and validation, armor's included;
 *  1. graphql-armor: token, depth and alias limits, so a hostile document is refused cheaply;
 *  1b. input depth: documents and variables nested too deep, before cost walks the variables;
 *  2. error codes: refusals get a code from our closed set, carried into the audit record;
 *  3. cost, wrapping execution: estimate, reserve (429 before any body), execute, settle with the
 *     audit record, extensions.cost and the X-Credits-* headers;
 *  4. a subscription's events executed once for all its subscribers with the same document, and
 *     masked there once (the plugins after it, Yoga's masking among them, do not see its streams);
 *  5. a subscription's Server-Sent Events written by the gateway rather than through web streams.
 */
export function createGatewayYoga(
  config: Config,
  log: Pick<Logger, "error">,
  documents: DocumentCache,
  estimates: EstimateMemo,
): YogaServerInstance<GraphQLContext, object> {
  // The client reads INTERNAL and a plain message; the cause goes to the log (Yoga's own logging
  // is off, so this is where it is kept).
  const masking = (error: unknown, message: string, isDev?: boolean) =>
    maskError(error, message, isDev, (cause, path) => {
      // A call cut by a drain that timed out: counted once by the shutdown.
      if (cause instanceof SettleAbandoned || cause instanceof CallCut) return;
      log.error({ err: cause, path }, "unexpected error in the unified API");
    });
  return createYoga<GraphQLContext>({
    schema: gatewaySchema,
    graphqlEndpoint: YOGA_PATH,
    // Served from the package, not a CDN: GraphiQL works offline, with the token's path applied.
    renderGraphiQL: (options) => withPhoneLayout(renderGraphiQL(options)),
    graphiql: (_request, ctx) => ({
      endpoint: ctx.publicPath,
      title: `blockgate — ${ctx.network}`,
      defaultQuery: DEFAULT_QUERY,
      // The first payment opens; a tab per typed chain field beside it (one operation each, so
      // ▶ runs it at once).
      defaultTabs: [DEFAULT_QUERY, ...EXAMPLES].map((query) => ({ query })),
    }),
    landingPage: false,
    batching: false,
    // Yoga's own cache keeps parse and validation errors, each holding its request's context
    // through its stack, and is bounded by count only: the document cache plugin (below) keeps
    // documents within graphql.documentCacheBytesMax and remembers only successes.
    parserAndValidationCache: false,
    // Bodies reach Yoga as text already read within server.bodyBytesMax (Fastify's bodyLimit for
    // every route, the dashboard's too: 413 at the edge). Yoga's own bound would pipe each body
    // through a TransformStream and build a second Request to count it again: ~2% of a request's
    // CPU, protecting nothing.
    maxRequestBodySize: false,
    logging: false,
    maskedErrors: { errorMessage: MASKED_MESSAGE, maskError: masking },
    plugins: [
      documentCachePlugin(documents),
      EnvelopArmorPlugin({
        maxTokens: { n: config.graphql.tokensMax },
        maxDepth: { n: config.graphql.depthMax, ignoreIntrospection: true },
        maxAliases: { n: config.graphql.aliasesMax },
        maxDirectives: { n: 50 },
        costLimit: { enabled: false }, // our cost plugin prices and limits by credits instead
        blockFieldSuggestion: { enabled: false }, // the schema is public (introspection is on)
      }),
      inputDepthPlugin(),
      errorCodesPlugin(),
      costPlugin(estimates),
      // Its streams are masked there, as this config masks (Yoga's masking does not see them).
      sharedEventsPlugin(SHARED_EVENT_FIELDS, (error) => masking(error, MASKED_MESSAGE)),
      sseEventsPlugin(),
    ],
  });
}

const DEFAULT_QUERY = `# blockgate: one GraphQL API over Bitcoin. Try it:
query FirstPayment {
  transaction(txid: "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16") {
    txid
    status
    confirmations
    outputs { n value { btc sats } scriptPubKey { type address } }
  }
  account { available }
}
`;

/** GraphiQL's other tabs: the typed chain fields, each priced as the call it makes. */
const EXAMPLES = [
  `# A block from the full node, by height (getblockhash + getblock + a page of transactions)
query Block170 {
  nodeBlock(height: 170) {
    hash time confirmations transactionCount
    transactions(limit: 2) { txid fee { btc } }
  }
}

`,
  `# The chain's state and Core's fee estimates
query Chain {
  chain { name height difficulty mempool { transactionCount totalFee { btc } } }
  feeEstimates(targets: [1, 6, 144]) { target blocks satPerVbyte errors }
}

`,
  `# An address through the Electrum servers: balance, a page of history, unspent outputs
query BusyAddress {
  address(address: "1HckjUpRGcrrRAtFaaCAUaGjsPx9oYmLaZ") {
    balance { confirmed { btc } unconfirmed { btc } }
    history(limit: 10) { total entries { txid height } }
    utxos { txid vout value { btc } }
  }
}

`,
  `# Core's merkle proof that the first payment is in block 170
query Proof {
  transaction(txid: "f4184fc596403b9d638783cf57adfe4c75c605f6356fbc91338530e9831e9e16") {
    merkleProof { blockHash hex }
  }
}
`,
  `# Each block as the chain follower announces it (Server-Sent Events), charged per block
subscription NewBlock {
  newBlock { kind height hash }
}
`,
];

/**
 * On a narrow screen GraphiQL's panes sit side by side at a few dozen pixels each: below 720 px
 * the query editor and the answer are stacked, each the full width, and the sidebar goes.
 */
const PHONE_LAYOUT = `<style>@media (max-width: 720px) {
.graphiql-container .graphiql-sidebar { display: none; }
.graphiql-container #graphiql-session { flex-direction: column !important; }
.graphiql-container #graphiql-session > div:not(.graphiql-horizontal-drag-bar) {
  flex: 1 1 auto !important; width: 100% !important; min-height: 40vh; }
.graphiql-container .graphiql-horizontal-drag-bar { display: none; }
}</style>`;

function withPhoneLayout(html: string): string {
  return html.includes("</head>") ? html.replace("</head>", `${PHONE_LAYOUT}</head>`) : html;
}
