// What learning a plan needs of the execution it is learnt from, apart from the modules that
// compute it: the request state names it, and those modules read the request's context.
import type { DocumentNode, GraphQLSchema, VariableDefinitionNode } from "graphql";
import type { CostReport } from "../cost/report-types.ts";

/**
 * An executed request that a plan could answer and that answered without error
 * (query-plans/learn.ts): it asked the indexer alone (its document a passthrough) or transactions
 * by txid alone (a node plan: node-plan.ts); the data Yoga answered and the cost it reported.
 */
export interface PlanCandidate {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName: string | undefined;
  variables: Record<string, unknown>;
  /** `data` as Yoga wrote it. */
  dataText: string;
  report: CostReport;
  /** The X-Credits-* headers' names: this caller's, not the plan's. */
  creditHeaders: string[];
}

/**
 * A query of the unified API that asks the indexer alone, compiled to go to it as it is: every
 * root field a delegated indexer root (`block`, `block_by_pk`), every field below one of the
 * indexer's columns or `__typename` (no join to the node), no directive.
 * The unified schema mirrors the indexer's tables under Hasura's column, argument and input type
 * names (types/indexer-inputs.ts), so such a document, with its fragments' type conditions
 * renamed to the indexer's tables, asks the indexer exactly what delegation would, and the
 * indexer's `data` is the unified API's answer — provided it has the shape graphql-js would give
 * it: `fits` checks that (the keys in the order the document collects them, every leaf what its
 * scalar serializes it to, nulls only where the schema allows them).
 */
export interface Passthrough {
  /** The document the indexer is sent (type conditions renamed). */
  indexerQuery: string;
  operationName: string | undefined;
  /** The operation's variables: only these are sent (Hasura refuses variables not declared). */
  variableDefinitions: readonly VariableDefinitionNode[];
  /** The answer's shape, from the root. */
  shape: ObjectShape;
  /** Root fields that reach the indexer (the indexer's sites: `__typename` is not one). */
  sites: number;
  /**
   * Whether it selects `__typename` anywhere: the indexer names its types otherwise (`block`,
   * `query_root`), so the answer is written with the unified names instead of as it came.
   */
  renamesTypes: boolean;
}

export type Shape =
  | { kind: "leaf"; nonNull: boolean; serialize: (value: unknown) => unknown }
  /** `__typename`: the indexer's name of the type (`from`), written as the unified API's (`to`). */
  | { kind: "typename"; nonNull: true; from: string; to: string }
  | { kind: "list"; nonNull: boolean; of: Shape }
  | ObjectShape;
export interface ObjectShape {
  kind: "object";
  nonNull: boolean;
  keys: readonly string[];
  fields: readonly Shape[];
}
