import {
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
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
import { CONFIRMATIONS_MARK, fillConfirmations } from "../../../cache/answer-template.ts";
import type { ConfirmationsTemplate } from "../answers/keep.ts";
import type { GraphQLContext } from "../context.ts";
import type { TransactionModel } from "../models.ts";
import { AMOUNT_PLAIN_FIELDS } from "../types/amount.ts";
import { SCRIPT_PLAIN_FIELDS } from "../types/script.ts";
import { TRANSACTION_PLAIN_FIELDS } from "../types/transaction.ts";
import { loaderFor } from "../types/transaction-queries.ts";
import { IO_PLAIN_FIELDS } from "../types/tx-io.ts";

/**
 * A unified-API query that asks transactions by txid and only fields each transaction's own model
 * answers (PLAIN_FIELDS, `__typename`; aliases allowed; no arguments below the roots, fragments,
 * directives or repeated response keys), compiled to be answered without Yoga: the request's
 * loaders' models, the fields' own resolvers and serializers, completed and written as graphql-js
 * would (learn.ts checks it byte for byte first). Where graphql-js would raise an error, the plan
 * answers nothing and Yoga answers.
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
  /** One transaction's object, as JSON text; its confirmations as placeholders with `marks`. */
  write: (model: TransactionModel, marks: Marks | null) => string | null;
}

/**
 * The confirmations a root transaction's object was written with, in order, where it holds a
 * placeholder instead (answers/keep.ts keeps such a template); `whole` false when one was not a
 * number to put a placeholder for (the template cannot be kept).
 */
interface Marks {
  values: number[];
  whole: boolean;
}

const MARK_TEXT = JSON.stringify(CONFIRMATIONS_MARK);

/**
 * A value as graphql-js completes it for one field's type and selection, as JSON text; null where
 * completing it raises an error.
 */
type Write = (value: unknown) => string | null;

/** One request of a plan: the txids each root field asks, and the loader they are asked of. */
export interface NodeAsk {
  txids: readonly string[];
  source: string;
}

/** By type, the fields a plan may call the resolver of: each type's file vouches for its list. */
const PLAIN_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  Transaction: TRANSACTION_PLAIN_FIELDS,
  ...IO_PLAIN_FIELDS,
  Amount: AMOUNT_PLAIN_FIELDS,
  ...SCRIPT_PLAIN_FIELDS,
};

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
    const written = objectWriter(transaction, node.selectionSet, "confirmations");
    if (!written) return null;
    const write = rememberingWriter(written);
    roots.push({
      key: (node.alias ?? node.name).value,
      node,
      field,
      list: isListType(getNullableType(field.type)),
      write,
    });
  }
  return { operation, roots };
}

/**
 * An object of `type` with `set`'s fields, or null when one is not a plain field. The field named
 * `marked` (a root transaction's confirmations) is written as a placeholder when marks are asked.
 */
function objectWriter(
  type: GraphQLObjectType,
  set: SelectionSetNode,
  marked?: string,
): RootWrite | null {
  const selected = fieldsOf(set);
  if (!selected || selected.length === 0) return null;
  const plain = PLAIN_FIELDS[type.name];
  const entries: {
    /** What comes before the value: the comma after the previous member, the key, its colon. */
    prefix: string;
    resolve: (parent: unknown) => unknown;
    write: Write;
    /** The marked field: written as a placeholder when marks are asked. */
    mark: boolean;
  }[] = [];
  for (const sub of selected) {
    if (sub.arguments?.length) return null;
    const prefix = `${entries.length > 0 ? "," : ""}${JSON.stringify((sub.alias ?? sub.name).value)}:`;
    if (sub.name.value === "__typename") {
      if (sub.selectionSet) return null;
      const name = JSON.stringify(type.name);
      entries.push({ prefix, resolve: () => null, write: () => name, mark: false });
      continue;
    }
    const def = type.getFields()[sub.name.value];
    if (!def || !plain?.has(def.name) || !def.resolve) return null;
    const write = valueWriter(def.type, sub.selectionSet);
    if (!write) return null;
    entries.push({
      prefix,
      resolve: def.resolve as (parent: unknown) => unknown,
      write,
      mark: def.name === marked,
    });
  }
  // Indexed loops, and entries of one shape: this runs for every field of every object answered.
  return (parent, marks) => {
    let text = "{";
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i] as (typeof entries)[number];
      const resolved = entry.resolve(parent);
      // A plain field answers at once; were one to return a promise, Yoga would answer.
      if (resolved instanceof Promise) return null;
      let value: string | null;
      if (entry.mark && marks && typeof resolved === "number" && Number.isInteger(resolved)) {
        marks.values.push(resolved);
        value = MARK_TEXT;
      } else {
        if (entry.mark && marks) marks.whole = false;
        value = entry.write(resolved);
      }
      if (value === null) return null;
      text += entry.prefix;
      text += value;
    }
    return `${text}}`;
  };
}

/**
 * What a root's writer wrote for a decoded transaction (shared by requests: cache/parsed-txs.ts),
 * and what the text depends on beyond its bytes: the same writer, the same block, origin and
 * network, and the same confirmations unless they were written as placeholders (then how many
 * there are, to be filled in from the block at hand). Mempool transactions, and those with
 * prevouts (the node's undo data, read per request), are written every time.
 */
interface Remembered {
  write: RootWrite;
  marking: boolean;
  blockhash: string;
  confirmations: number;
  origin: TransactionModel["origin"];
  network: TransactionModel["network"];
  text: string;
  marks: number;
}

type RootWrite = (parent: unknown, marks?: Marks | null) => string | null;

/** Held by the transaction: gone when the decoded-transaction cache lets it go. */
const remembered = new WeakMap<object, Remembered>();

/**
 * A root's writer that writes a mined transaction once for as long as it is decoded: a block's
 * transactions are asked again and again (the transaction cache answers them), and writing a
 * verbose selection is most of what such a request costs. One text per transaction, the last
 * root that wrote it.
 */
function rememberingWriter(
  write: RootWrite,
): (model: TransactionModel, marks: Marks | null) => string | null {
  return (model, marks) => {
    const { block } = model;
    if (!block || model.prevouts !== null) return write(model, marks);
    const marking = marks !== null;
    const kept = remembered.get(model.tx);
    if (
      kept !== undefined &&
      kept.write === write &&
      kept.marking === marking &&
      kept.blockhash === block.hash &&
      kept.origin === model.origin &&
      kept.network === model.network &&
      // Placeholders are filled in with the block's confirmations, which must be a number to be.
      (marking ? Number.isInteger(block.confirmations) : kept.confirmations === block.confirmations)
    ) {
      for (let i = 0; i < kept.marks; i++) marks?.values.push(block.confirmations);
      return kept.text;
    }
    const before = marks?.values.length ?? 0;
    const text = write(model, marks);
    // A template with a value left unmarked is not kept whole: nor is it remembered.
    if (text !== null && (marks === null || marks.whole)) {
      // Written piece by piece, the text is a rope of hundreds of strings; kept, it is made one
      // (converting a string to a number flattens it first, in V8): a third of the memory.
      Number(text);
      remembered.set(model.tx, {
        write,
        marking,
        blockhash: block.hash,
        confirmations: block.confirmations,
        origin: model.origin,
        network: model.network,
        text,
        marks: (marks?.values.length ?? 0) - before,
      });
    }
    return text;
  };
}

/** graphql-js's completeValue: nothing is null unless the type is non-null (an error). */
function valueWriter(type: GraphQLOutputType, set: SelectionSetNode | undefined): Write | null {
  if (isNonNullType(type)) {
    const inner = nullableWriter(type.ofType, set);
    return inner && ((value) => (value === null || value === undefined ? null : inner(value)));
  }
  const inner = nullableWriter(type, set);
  return inner && ((value) => (value === null || value === undefined ? "null" : inner(value)));
}

/** A value of `type` (not non-null) that is not null. */
function nullableWriter(type: GraphQLOutputType, set: SelectionSetNode | undefined): Write | null {
  if (isListType(type)) {
    // An output type's list holds output types (graphql-js types its ofType more loosely).
    const item = valueWriter(type.ofType as GraphQLOutputType, set);
    if (!item) return null;
    return (value) => {
      // graphql-js takes any iterable; the plain fields' resolvers give arrays.
      if (!Array.isArray(value)) return null;
      let text = "[";
      for (let i = 0; i < value.length; i++) {
        const written = item(value[i]);
        if (written === null) return null;
        text += i > 0 ? `,${written}` : written;
      }
      return `${text}]`;
    };
  }
  if (isLeafType(type)) {
    if (set) return null;
    return (value) => {
      // graphql-js raises an error for a leaf that serializes to nothing.
      const serialized: unknown = type.serialize(value);
      return serialized === null || serialized === undefined ? null : JSON.stringify(serialized);
    };
  }
  // Interfaces and unions are not planned: which type an object is is the executor's to tell.
  return isObjectType(type) && set ? objectWriter(type, set) : null;
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

/** A planned answer's `data`, and its template when it was written for keeping. */
export interface NodeData {
  dataText: string;
  template: ConfirmationsTemplate | null;
}

/**
 * The answer's `data` as graphql-js would write it, or null when any transaction is missing or
 * failed (its error is the executor's to write) or completing a field would raise an error. For
 * an answer that may be kept (`keepable`), also the same text with its root transactions'
 * confirmations as placeholders (answers/keep.ts): written once, the data filled in from it.
 */
export function nodeData(
  plan: NodePlan,
  found: readonly (readonly (TransactionModel | Error | null)[])[],
  keepable: boolean,
): NodeData | null {
  const marks: Marks | null = keepable ? { values: [], whole: true } : null;
  const text = writeData(plan, found, marks);
  if (text === null) return null;
  if (!marks || marks.values.length === 0) return { dataText: text, template: null };
  // null only should the text hold a placeholder of its own: then the executor answers.
  const dataText = fillConfirmations(text, marks.values);
  if (dataText === null) return null;
  return {
    dataText,
    template: marks.whole ? { dataText: text, confirmations: marks.values } : null,
  };
}

function writeData(
  plan: NodePlan,
  found: readonly (readonly (TransactionModel | Error | null)[])[],
  marks: Marks | null,
): string | null {
  let text = "{";
  for (const [r, root] of plan.roots.entries()) {
    const models = found[r];
    if (!models || (!root.list && models.length !== 1)) return null;
    const items: string[] = [];
    for (const model of models) {
      if (model === null || model instanceof Error) return null;
      let item: string | null;
      try {
        item = root.write(model, marks);
      } catch {
        // A resolver or a serializer that throws: the executor writes that error.
        return null;
      }
      if (item === null) return null;
      items.push(item);
    }
    text += `${r > 0 ? "," : ""}${JSON.stringify(root.key)}:`;
    text += root.list ? `[${items.join(",")}]` : items[0];
  }
  return `${text}}`;
}
