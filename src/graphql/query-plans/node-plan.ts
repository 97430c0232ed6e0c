import {
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLLeafType,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  getNullableType,
  getOperationAST,
  getVariableValues,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import type { GraphQLContext } from "../context.ts";
import type { TransactionModel } from "../models.ts";
import { MODEL_LEAVES } from "../types/transaction.ts";
import { loaderFor } from "../types/transaction-queries.ts";

/**
 * A query of the unified API that asks transactions by txid and fields read from each transaction
 * alone, compiled to be answered without Yoga: every root field `transaction(txid:)` or
 * `transactions(txids:)`, every field below one of Transaction's MODEL_LEAVES or `__typename`;
 * aliases allowed; no fragment, no directive, no response key twice in a selection (so nothing
 * is merged). Its answer is the request's loader's models (the executor's own: the same
 * verbosity, caches, metering) with those fields' own resolvers applied and their scalars'
 * serializers, written in the document's order — what graphql-js would answer, which the plan's
 * learning checks byte for byte (learn.ts) before any request is served this way.
 */
export interface NodePlan {
  operation: OperationDefinitionNode;
  roots: readonly NodeRoot[];
}

interface NodeRoot {
  key: string;
  node: FieldNode;
  field: GraphQLField<unknown, unknown>;
  /** `transactions`: a list, each item nullable. */
  list: boolean;
  leaves: readonly Leaf[];
}

interface Leaf {
  /** The response key, as JSON text with its colon. */
  keyText: string;
  /** What the executor writes for it: the field's resolver, then its scalar's serializer. */
  value: (model: TransactionModel) => unknown;
  nonNull: boolean;
}

/** One request of a plan: the txids each root field asks, and the loader they are asked of. */
export interface NodeAsk {
  txids: readonly string[];
  source: string;
}

const ROOTS = new Set(["transaction", "transactions"]);
const compiled = new WeakMap<DocumentNode, Map<string, NodePlan | null>>();

/** `document`'s operation as a node plan, or null when it asks anything else; memoised. */
export function nodePlanOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
): NodePlan | null {
  let byName = compiled.get(document);
  if (!byName) {
    byName = new Map();
    compiled.set(document, byName);
  }
  const name = operationName ?? "";
  let plan = byName.get(name);
  if (plan === undefined) {
    plan = compileNodePlan(schema, document, operationName);
    byName.set(name, plan);
  }
  return plan;
}

function compileNodePlan(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
): NodePlan | null {
  if (document.definitions.length !== 1) return null;
  const operation = getOperationAST(document, operationName);
  const query = schema.getQueryType();
  const transaction = schema.getType("Transaction");
  if (!operation || operation.operation !== "query" || !query || !isObjectType(transaction)) {
    return null;
  }
  if (operation.directives?.length) return null;
  const rootFields = fieldsOf(operation.selectionSet);
  if (!rootFields || rootFields.length === 0) return null;
  const roots: NodeRoot[] = [];
  for (const node of rootFields) {
    const field = query.getFields()[node.name.value];
    if (!ROOTS.has(node.name.value) || !field || !node.selectionSet) return null;
    if (getNamedType(field.type) !== transaction) return null;
    const subFields = fieldsOf(node.selectionSet);
    if (!subFields || subFields.length === 0) return null;
    const leaves: Leaf[] = [];
    for (const sub of subFields) {
      if (sub.arguments?.length || sub.selectionSet) return null;
      const keyText = `${JSON.stringify((sub.alias ?? sub.name).value)}:`;
      if (sub.name.value === "__typename") {
        leaves.push({ keyText, value: () => transaction.name, nonNull: true });
        continue;
      }
      const def = transaction.getFields()[sub.name.value];
      const type = def && getNullableType(def.type);
      if (!def || !MODEL_LEAVES.has(sub.name.value) || !def.resolve || !isLeafType(type)) {
        return null;
      }
      const resolve = def.resolve as (model: TransactionModel) => unknown;
      const leafType: GraphQLLeafType = type;
      leaves.push({
        keyText,
        // graphql-js writes a null (or undefined) resolution as null, without serializing it.
        value: (model) => {
          const resolved = resolve(model);
          return resolved === null || resolved === undefined ? null : leafType.serialize(resolved);
        },
        nonNull: isNonNullType(def.type),
      });
    }
    roots.push({
      key: (node.alias ?? node.name).value,
      node,
      field,
      list: isListType(getNullableType(field.type)),
      leaves,
    });
  }
  return { operation, roots };
}

/** The fields of a selection set, or null when it holds a fragment, a directive or a key twice. */
function fieldsOf(set: SelectionSetNode): FieldNode[] | null {
  const keys = new Set<string>();
  const fields: FieldNode[] = [];
  for (const s of set.selections) {
    if (s.kind !== Kind.FIELD || s.directives?.length) return null;
    const key = (s.alias ?? s.name).value;
    if (keys.has(key)) return null;
    keys.add(key);
    fields.push(s);
  }
  return fields;
}

/**
 * What the plan's root fields ask for these variables as given (coerced first, as the executor
 * does), or null when they do not coerce: Yoga answers those.
 */
export function nodeAsks(
  schema: GraphQLSchema,
  plan: NodePlan,
  given: Record<string, unknown>,
): NodeAsk[] | null {
  const coerced = getVariableValues(schema, plan.operation.variableDefinitions ?? [], given);
  if (coerced.errors) return null;
  const asks: NodeAsk[] = [];
  for (const root of plan.roots) {
    let args: Record<string, unknown>;
    try {
      args = getArgumentValues(root.field, root.node, coerced.coerced);
    } catch {
      return null;
    }
    const source = typeof args.source === "string" ? args.source : "FULL_NODE";
    const txids = root.list ? args.txids : [args.txid];
    if (!Array.isArray(txids) || !txids.every((t) => typeof t === "string")) return null;
    asks.push({ txids, source });
  }
  return asks;
}

/** Each root field's transactions, through the request's loaders (batched, metered, cached). */
export function loadAsked(
  ctx: GraphQLContext,
  asks: readonly NodeAsk[],
): Promise<(TransactionModel | Error | null)[][]> {
  return Promise.all(asks.map((ask) => loaderFor(ctx, ask.source).loadMany(ask.txids)));
}

/**
 * The answer's `data` as graphql-js would write it, or null when any transaction is missing or
 * failed (its error is the executor's to write) or a value does not serialize.
 */
export function nodeDataText(
  plan: NodePlan,
  found: readonly (readonly (TransactionModel | Error | null)[])[],
): string | null {
  let text = "{";
  for (const [r, root] of plan.roots.entries()) {
    const models = found[r];
    if (!models || (!root.list && models.length !== 1)) return null;
    const items: string[] = [];
    for (const model of models) {
      if (model === null || model instanceof Error) return null;
      const item = objectText(root.leaves, model);
      if (item === null) return null;
      items.push(item);
    }
    text += `${r > 0 ? "," : ""}${JSON.stringify(root.key)}:`;
    text += root.list ? `[${items.join(",")}]` : items[0];
  }
  return `${text}}`;
}

function objectText(leaves: readonly Leaf[], model: TransactionModel): string | null {
  let text = "{";
  for (const [i, leaf] of leaves.entries()) {
    let value: unknown;
    try {
      value = leaf.value(model);
    } catch {
      return null;
    }
    if (value === undefined || (value === null && leaf.nonNull)) return null;
    text += `${i > 0 ? "," : ""}${leaf.keyText}${JSON.stringify(value)}`;
  }
  return `${text}}`;
}
