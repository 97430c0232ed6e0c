import type DataLoader from "dataloader";
import type { DocumentNode, GraphQLError, GraphQLSchema } from "graphql";
import type { CallContext } from "../../billing/metering/context.ts";
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
}

/**
 * Mutable per-request state that resolvers and the cost plugin share. Yoga copies the server
 * context shallowly into the GraphQL context, so what is written during execution lives in this
 * one shared object.
 */
export interface RequestState {
  meter: Meter;
  /** Whether the operation asks for fee or inputs.prevout: getrawtransaction verbosity 2. */
  wantsPrevouts: boolean;
  /**
   * Whether the operation asks for a field that reads where a transaction was mined (cost/
   * estimate.ts POSITION_FIELDS): getrawtransaction verbosity 1 at least. True until the estimate
   * says otherwise, so that a path the estimate never saw asks as before.
   */
  wantsPosition: boolean;
  /** The estimate's complexity of each indexer site, by site path: what one resolution meters. */
  graphSites: Map<string, number>;
  /**
   * Lookups left at each priced join (by site path): the estimate priced that many, so a join under
   * a list that returns more rows than it was priced for refuses the rest instead of running them.
   */
  joinBudget: Map<string, number>;
  /**
   * Set by the route when the request's answer may be kept (a POST of JSON, not a dry run): its
   * key in the cache of whole answers about final blocks (answers/serve.ts).
   */
  answerKey?: string;
  /**
   * Where each transaction that a root `transaction(s)` field answered was mined (null: in the
   * mempool), by txid; recorded only when the answer may be kept (answerKey set): what the kept
   * answer's blocks are (answers/keep.ts).
   */
  rootTransactions?: Map<string, BlockPosition | null>;
  /** The answer the cost plugin found final, for the route to keep once Yoga has written it. */
  pending?: PendingAnswer;
  /**
   * Set by the route when this request's document may be planned (query-plans/): the cost plugin then
   * leaves in `planCandidate` what learning a plan from this execution needs, when it asked the
   * indexer alone and answered without error.
   */
  planning?: boolean;
  planCandidate?: PlanCandidate;
  /**
   * A planned request that the executor answers instead (query-plans/serve.ts): its estimate is already
   * reserved, so the cost plugin executes without metering and leaves here what the call came
   * to, for the planned request's own settle.
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
