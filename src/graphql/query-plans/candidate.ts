// What learning a plan needs of the execution it is learnt from, apart from the modules that
// compute it: the request state names it, and those modules read the request's context.
import type { DocumentNode, VariableDefinitionNode } from "graphql";
import type { CostReport } from "../cost/report-types.ts";

/**
 * An executed request that asked the indexer alone and answered without error (query-plans/learn.ts):
 * its document compiled as a passthrough, the data Yoga answered and the cost it reported.
 */
export interface PlanCandidate {
  document: DocumentNode;
  operationName: string | undefined;
  passthrough: Passthrough;
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
 * indexer's columns (no join to the node, no `__typename`, whose names differ), no directive.
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
}

export type Shape =
  | { kind: "leaf"; nonNull: boolean; serialize: (value: unknown) => unknown }
  | { kind: "list"; nonNull: boolean; of: Shape }
  | ObjectShape;
export interface ObjectShape {
  kind: "object";
  nonNull: boolean;
  keys: readonly string[];
  fields: readonly Shape[];
}
