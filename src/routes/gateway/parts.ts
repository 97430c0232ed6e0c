import type { YogaServerInstance } from "graphql-yoga";
import type { LruMap } from "../../util/lru.ts";
import type { GraphQLContext } from "./context.ts";
import type { EstimateMemo } from "./cost/estimate-memo.ts";
import type { DocumentCache } from "./plugins/document-cache.ts";
import type { Plans } from "./query-plans/plans.ts";

/** What one running gateway's unified API keeps from request to request (its executor's state). */
export interface ExecutorParts {
  yoga: YogaServerInstance<GraphQLContext, object>;
  /** Parsed documents by text, bounded in bytes, and those that passed validation. */
  documents: DocumentCache;
  /** Plans learnt from executions, answered without Yoga (query-plans/). */
  plans: Plans;
  /** Cost estimates by document and variables: what the cost plugin and the plans reserve. */
  estimates: EstimateMemo;
  /** Transactions asked lately at verbosity 0, by network and txid (loaders.ts). */
  seenAtHex: LruMap<string, true>;
}
