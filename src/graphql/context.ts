import type DataLoader from "dataloader";
import type { GraphQLError } from "graphql";
import type { App } from "../app/context.ts";
import type { TokenOwner } from "../auth/tokens.ts";
import type { NetworkName } from "../config/schema.ts";
import type { TransactionModel } from "./models.ts";

/** Upstream work done for one request: what settles the charge. */
export interface Meter {
  /** Priced upstream calls actually answered, by price-list method. */
  calls: Map<string, { count: number; price: number }>;
  /** Indexer queries the indexer answered, and the sum of their sites' complexities. */
  graph: { answered: number; complexity: number };
}

/**
 * Mutable per-request state. Yoga copies the server context shallowly into the GraphQL context,
 * so state that the route must read back after execution lives in this one shared object.
 */
export interface RequestState {
  meter: Meter;
  /** Whether the operation asks for fee or inputs.prevout: getrawtransaction verbosity 2, else 1. */
  wantsPrevouts: boolean;
  /** The estimate's complexity of each indexer site, by site path: what one resolution meters. */
  graphSites: Map<string, number>;
  /**
   * Lookups left at each priced join (by site path): the estimate priced that many, so a join under
   * a list that returns more rows than it was priced for refuses the rest instead of running them.
   */
  joinBudget: Map<string, number>;
  /** Set once the request's audit record is written (by the cost plugin, else by the route). */
  audited: boolean;
  creditHeaders: Record<string, string>;
}

/** Per-request context, built by the route for each request (never a module global). */
export interface GraphQLContext {
  app: App;
  owner: TokenOwner;
  network: NetworkName;
  requestId: string;
  startedAt: number;
  /** The path the caller used, token included, so GraphiQL posts back to it. */
  publicPath: string;
  backendSegment: string;
  /** `x-dry-run: true`: estimate and explain the cost, execute and charge nothing. */
  dryRun: boolean;
  state: RequestState;
  /** Transactions from the full node, batched and deduplicated per request. */
  nodeTransactions: DataLoader<string, TransactionModel | GraphQLError | null>;
  /** The same from the Electrum servers (`source: ELECTRUM`). */
  electrumTransactions: DataLoader<string, TransactionModel | GraphQLError | null>;
  /** Blocks from the indexer by hash, one loader per Transaction.block site (batched, deduplicated). */
  blocksBySite: Map<string, DataLoader<string, unknown>>;
}
