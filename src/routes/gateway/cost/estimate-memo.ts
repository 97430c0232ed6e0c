import { type DocumentNode, GraphQLError, type GraphQLSchema, getOperationAST } from "graphql";
import { LruMap } from "../../../util/lru.ts";
import type { CostEstimate } from "./estimate.ts";

/** Estimates kept: a few hundred distinct operations × variable sets is what a busy API repeats. */
export const ESTIMATES_MAX = 512;
/**
 * Longest variables key memoised (UTF-16 units of its JSON): fifty txids are about 3,400; a key
 * past this is computed each time rather than kept, so the memo's keys stay within
 * ESTIMATES_MAX × this.
 */
export const VARIABLES_KEY_MAX = 32 * 1024;

/**
 * The cost estimate (and the graph limits checked with it) memoised: a pure function of the schema
 * (by identity), the document (by identity: the document cache hands one DocumentNode per text),
 * the operation name, the network (prices differ) and the values of the variables the operation
 * declares, in declaration order. Walking the document cost as much as the rest of the plugin.
 * Refusals are not memoised (rare, and each a fresh error); entries are frozen, being shared.
 */
export class EstimateMemo {
  private readonly bySchema = new WeakMap<GraphQLSchema, LruMap<string, CostEstimate>>();
  private readonly documentIds = new WeakMap<DocumentNode, number>();
  private documentsSeen = 0;

  constructor(
    private readonly entriesMax = ESTIMATES_MAX,
    private readonly variablesKeyMax = VARIABLES_KEY_MAX,
  ) {}

  /** The estimate for this request, from the memo or from `compute` (kept when it is one). */
  estimate(
    schema: GraphQLSchema,
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown>,
    network: string,
    compute: () => CostEstimate | GraphQLError,
  ): CostEstimate | GraphQLError {
    const key = this.keyOf(document, operationName, variables, network);
    if (key === undefined) return compute();
    let memo = this.bySchema.get(schema);
    if (!memo) {
      memo = new LruMap(this.entriesMax);
      this.bySchema.set(schema, memo);
    }
    const hit = memo.get(key);
    if (hit) return hit;
    const computed = compute();
    if (!(computed instanceof GraphQLError)) memo.set(key, deepFreeze(computed));
    return computed;
  }

  /** Entries held for `schema` (tests: the memo stays bounded). */
  sizeFor(schema: GraphQLSchema): number {
    return this.bySchema.get(schema)?.size ?? 0;
  }

  private keyOf(
    document: DocumentNode,
    operationName: string | null | undefined,
    variables: Record<string, unknown>,
    network: string,
  ): string | undefined {
    const operation = getOperationAST(document, operationName);
    if (!operation) return undefined; // estimateCost refuses it; nothing to keep
    let id = this.documentIds.get(document);
    if (id === undefined) {
      id = ++this.documentsSeen;
      this.documentIds.set(document, id);
    }
    // [value] for a variable given, 0 for one left out: null and absent coerce differently.
    const values = (operation.variableDefinitions ?? []).map((v) => {
      const name = v.variable.name.value;
      return Object.hasOwn(variables, name) ? [variables[name]] : 0;
    });
    const variablesKey = values.length === 0 ? "" : JSON.stringify(values);
    if (variablesKey.length > this.variablesKeyMax) return undefined;
    return `${id}\u0000${operationName ?? ""}\u0000${network}\u0000${variablesKey}`;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
