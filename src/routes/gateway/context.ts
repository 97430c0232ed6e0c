import type { Readable } from "node:stream";
import type DataLoader from "dataloader";
import type { DocumentNode, GraphQLError, GraphQLSchema } from "graphql";
import type { CallContext } from "../../billing/metering/context.ts";
import type { Verified } from "../../protocol/verified.ts";
import type { IndexerOutcome } from "../../upstreams/indexer/pool.ts";
import type { CancelSignal } from "../../util/cancel.ts";
import type { PendingAnswer } from "./answers/pending.ts";
import type { ExecutedFigures } from "./cost/report-types.ts";
import type { BlockPosition, TransactionModel } from "./models.ts";
import type { PlanCandidate } from "./query-plans/candidate.ts";
import type { GatewayServices } from "./services.ts";
import type { CallLoader } from "./upstream-calls.ts";

/** Upstream work done for one request: what settles the charge. */
export interface Meter {
  /** Priced upstream calls actually answered, by price-list method. */
  calls: Map<string, { count: number; price: number }>;
  /** Indexer queries the indexer answered, and the sum of their sites' complexities. */
  graph: { answered: number; complexity: number };
  /** Of the calls, how many the response cache answered (charged alike; flagged in the audit). */
  cacheHits: number;
  /** How far each answer the request used was verified (X-Blockgate-Verified, taken together). */
  verified: Verified[];
}

/**
 * One request's state, in parts each written by one owner and read by the others. Yoga copies
 * the server context shallowly into the GraphQL context, so what is written during execution
 * lives in this one object, made fresh for each request (run.ts gatewayContext).
 */
export interface RequestState {
  /** Upstream work done: written by the loaders and resolvers, settled by the cost plugin. */
  meter: Meter;
  /** What the request asks, written by the cost plugin from its estimate before execution. */
  asks: Asks;
  /** Whether and how the answer is kept whole: answers/ writes it, the executor keeps it. */
  keep: Keeping;
  /** Learning or serving a query plan: query-plans/ and the cost plugin write it. */
  plan: Planning;
  /** A subscription's Server-Sent Events, written by plugins/sse-events.ts: the reply's body. */
  events?: Readable;
}

export interface Asks {
  /** Fee or inputs.prevout asked: getrawtransaction verbosity 2. */
  prevouts: boolean;
  /**
   * A field that reads where a transaction was mined (cost/estimate.ts POSITION_FIELDS):
   * verbosity 1 at least. True until the estimate says otherwise, for paths it never saw.
   */
  position: boolean;
  /** The estimate's complexity of each indexer site, by site path: what one resolution meters. */
  graphSites: Map<string, number>;
  /** Lookups left at each priced join: a join returning more rows than priced refuses the rest. */
  joinBudget: Map<string, number>;
}

export interface Keeping {
  /** Set by the executor when the answer may be kept: its key among whole answers. */
  key?: string;
  /** Where each root transaction was mined (null: mempool), by txid, when `key` is set. */
  roots?: Map<string, BlockPosition | null>;
  /** The answer the cost plugin found final, for the executor to keep once Yoga wrote it. */
  pending?: PendingAnswer;
}

export interface Planning {
  /** The document may be planned: the cost plugin leaves in `candidate` what learning needs. */
  learning?: boolean;
  candidate?: PlanCandidate;
  /**
   * A planned request the executor answers instead (query-plans/serve.ts): already reserved, so
   * the cost plugin executes without metering and leaves here what the call came to.
   */
  reserved?: { figures?: ExecutedFigures };
  /** A planned request's trip that failed: the first indexer query answers with it (indexer.ts). */
  failedTrip?: Extract<IndexerOutcome, { ok: false }>;
}

/** Of an execution's arguments, what the answers' and plans' rules read after it ran. */
export interface ExecutedDocument {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null | undefined;
  variableValues?: unknown;
}

/**
 * Per-request context, built by the route for each request (never a module global): the request's
 * CallContext (who calls, where, since when) and what the unified API adds to it.
 */
export interface GraphQLContext extends CallContext<GatewayServices> {
  /** The path the caller used, token included, so GraphiQL posts back to it. */
  publicPath: string;
  /** `x-dry-run: true`: estimate and explain the cost, execute and charge nothing. */
  dryRun: boolean;
  state: RequestState;
  /** Transactions from the full node, batched and deduplicated per request. */
  nodeTransactions: DataLoader<string, TransactionModel | GraphQLError | null>;
  /** The same from the Electrum servers (`source: ELECTRUM`). */
  electrumTransactions: DataLoader<string, TransactionModel | GraphQLError | null>;
  /** The typed fields' other calls to the full node (blocks, headers, fees), batched per tick. */
  nodeCalls: CallLoader;
  /** The typed fields' calls to the Electrum servers (addresses, merkle branches). */
  electrumCalls: CallLoader;
  /** Aborted when the client's connection closes: what ends a subscription's stream at once. */
  closed?: CancelSignal;
  /** Blocks from the indexer by hash, one loader per Transaction.block site (batched, deduplicated). */
  blocksBySite: Map<string, DataLoader<string, unknown>>;
}
