import { collectFields, collectSubFields } from "@graphql-tools/utils";
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getOperationAST,
  getVariableValues,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type NamedTypeNode,
  type OperationDefinitionNode,
  print,
  type SelectionSetNode,
  visit,
} from "graphql";
import type { GraphRequest } from "../../../protocol/hasura/request.ts";
import { indexerSchema } from "../../../protocol/hasura/schema.ts";
import { LruMap } from "../../../util/lru.ts";
import type { IndexerSite } from "../builder.ts";
import { indexerColumn, indexerTypeOf } from "../indexer.ts";
import { shapeOf as documentShape } from "../plugins/document-shape.ts";
import type { ObjectShape, Passthrough, Shape } from "./candidate.ts";
import { fillTemplate, type QueryTemplate, queryTemplate } from "./query-template.ts";

/** The passthrough for a request's variables as given (coerced first, as the executor does). */
export function passthroughOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  given: Record<string, unknown>,
): Passthrough | null {
  const operation = getOperationAST(document, operationName);
  if (!operation) return null;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], given);
  if (coerced.errors) return null;
  return passthroughFor(schema, document, operationName, coerced.coerced);
}

/** Compiled documents, by operation name and the values their @skip/@include conditions read. */
const compiled = new WeakMap<DocumentNode, Map<string, LruMap<string, Passthrough | null>>>();
/** Variants kept per document and operation: each combination of its conditions is one. */
const VARIANTS_MAX = 16;

/**
 * `document`'s operation as a passthrough for these (coerced) variables, or null when it asks
 * anything else; memoised. Only `@skip`/`@include` may change it with the variables (which fields
 * are collected), so the memo is keyed by the values their conditions read.
 */
function passthroughFor(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
): Passthrough | null {
  let byName = compiled.get(document);
  if (!byName) {
    byName = new Map();
    compiled.set(document, byName);
  }
  const name = operationName ?? "";
  let variants = byName.get(name);
  if (!variants) {
    variants = new LruMap(VARIANTS_MAX);
    byName.set(name, variants);
  }
  const read = conditionsOf(document);
  if (read === null) return null;
  const key = read.length === 0 ? "" : JSON.stringify(read.map((v) => variables[v] ?? null));
  let passthrough = variants.get(key);
  if (passthrough === undefined) {
    passthrough = ofShape(schema, document, operationName, variables, key);
    variants.set(key, passthrough);
  }
  return passthrough;
}

/** A shape's passthrough, and its query text as a template for the shape's other documents. */
interface ShapePassthrough {
  passthrough: Passthrough | null;
  template: QueryTemplate | null;
}
/**
 * Compiled passthroughs by document shape (plugins/document-shape.ts), operation name and the
 * values the conditions read: what compiling reads of a document — names, structure, @skip and
 * @include — is its shape's, so a document of a known shape only has its query text filled in.
 */
const byShape = new WeakMap<GraphQLSchema, LruMap<string, ShapePassthrough>>();
/** Shapes kept per schema, and the longest key kept (longer ones are compiled each time). */
const SHAPES_MAX = 512;
const SHAPE_KEY_MAX = 16 * 1024;

function ofShape(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Record<string, unknown>,
  conditionsKey: string,
): Passthrough | null {
  const shape = documentShape(document);
  const key = shape && `${shape.key}\u0000${operationName ?? ""}\u0000${conditionsKey}`;
  if (!shape || !key || key.length > SHAPE_KEY_MAX) {
    return compilePassthrough(schema, document, operationName, variables);
  }
  let shapes = byShape.get(schema);
  if (!shapes) {
    shapes = new LruMap(SHAPES_MAX);
    byShape.set(schema, shapes);
  }
  const known = shapes.get(key);
  if (known?.passthrough === null) return null;
  const filled = known?.template ? fillTemplate(known.template, shape.literals) : null;
  if (known?.passthrough && filled !== null) return { ...known.passthrough, indexerQuery: filled };
  const made = compileSent(schema, document, operationName, variables);
  if (!known) {
    const template =
      made && queryTemplate(document, made.sent, shape, made.passthrough.indexerQuery);
    shapes.set(key, { passthrough: made?.passthrough ?? null, template });
  }
  return made?.passthrough ?? null;
}

/** Compiles `document`'s operation as a passthrough, or null when it asks anything else. */
export function compilePassthrough(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  /** Coerced: what `@skip`/`@include` conditions read. */
  variables: Record<string, unknown> = {},
): Passthrough | null {
  return compileSent(schema, document, operationName, variables)?.passthrough ?? null;
}

/** compilePassthrough, with the document it prints for the indexer (its types renamed). */
function compileSent(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown>,
): { passthrough: Passthrough; sent: DocumentNode } | null {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const [operation] = operations;
  if (operations.length !== 1 || !operation || operation.operation !== "query") return null;
  if (operationName && operation.name?.value !== operationName) return null;
  const query = schema.getQueryType();
  if (!query || conditionsOf(document) === null) return null;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
    else if (d.kind !== Kind.OPERATION_DEFINITION) return null;
  }
  const { fields, patches } = collectFields(
    schema,
    fragments,
    variables,
    query,
    operation.selectionSet,
  );
  if (patches.length > 0 || fields.size === 0) return null;
  const walk: Walk = { schema, fragments, variables, renamesTypes: false };
  // At the root, only the fields delegated to the indexer's root field of the same name.
  const shape = objectShape(walk, query, INDEXER_ROOT, fields, true, (name, field) => {
    const site = field.extensions.indexer as IndexerSite | undefined;
    return site?.rootField === name;
  });
  if (!shape) return null;
  const renamed = renameTypeConditions(document);
  if (!renamed) return null;
  const passthrough = {
    indexerQuery: print(renamed),
    operationName: operation.name?.value,
    variableDefinitions: operation.variableDefinitions ?? [],
    shape,
    renamesTypes: walk.renamesTypes,
    sites: shape.fields.filter((f: Shape) => f.kind !== "typename").length,
  };
  return { passthrough, sent: renamed };
}

/** The indexer's root type, as `__typename` names it there. */
const INDEXER_ROOT = indexerSchema().getQueryType()?.name ?? "query_root";

/** What compiling one document carries along: fragments, and whether it met a __typename. */
interface Walk {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
  renamesTypes: boolean;
}

function shapeOf(walk: Walk, type: GraphQLOutputType, nodes: FieldNode[]): Shape | null {
  const nonNull = isNonNullType(type);
  const inner = nonNull ? type.ofType : type;
  if (isListType(inner)) {
    const of = shapeOf(walk, inner.ofType, nodes);
    return of ? { kind: "list", nonNull, of } : null;
  }
  if (isScalarType(inner) || isEnumType(inner)) {
    return { kind: "leaf", nonNull, serialize: (v) => inner.serialize(v) };
  }
  const table = isObjectType(inner) ? indexerTypeOf(inner.name) : undefined;
  if (!isObjectType(inner) || table === undefined) return null;
  const { fields, patches } = collectSubFields(
    walk.schema,
    walk.fragments,
    walk.variables,
    inner,
    nodes,
  );
  if (patches.length > 0) return null;
  // Below the root, only the indexer's columns: a join (transaction) is the gateway's.
  return objectShape(walk, inner, table, fields, nonNull, (name) =>
    Boolean(indexerColumn(inner.name, name)),
  );
}

/** An object's shape from its collected fields, each `allowed` or `__typename`; else null. */
function objectShape(
  walk: Walk,
  type: GraphQLObjectType,
  indexerName: string,
  fields: Map<string, FieldNode[]>,
  nonNull: boolean,
  allowed: (name: string, field: GraphQLField<unknown, unknown>) => boolean,
): ObjectShape | null {
  const keys: string[] = [];
  const shapes: Shape[] = [];
  for (const [key, nodes] of fields) {
    const name = (nodes[0] as FieldNode).name.value;
    let shape: Shape | null = null;
    if (name === "__typename") {
      walk.renamesTypes = true;
      shape = { kind: "typename", nonNull: true, from: indexerName, to: type.name };
    } else {
      const field = type.getFields()[name];
      shape = field && allowed(name, field) ? shapeOf(walk, field.type, nodes) : null;
    }
    if (!shape) return null;
    keys.push(key);
    shapes.push(shape);
  }
  return { kind: "object", nonNull, keys, fields: shapes };
}

/**
 * The variables a document's `@skip`/`@include` conditions read, in order; null when it has any
 * other directive, or one of those where the executor does not evaluate it (the operation, a
 * fragment's definition, a variable's): the indexer would, and the two could differ.
 */
function conditionsOf(document: DocumentNode): string[] | null {
  // A walk of the whole document: once per document, not once per planned request.
  let found = conditions.get(document);
  if (found === undefined) {
    found = readConditions(document);
    conditions.set(document, found);
  }
  return found;
}
const conditions = new WeakMap<DocumentNode, string[] | null>();

function readConditions(document: DocumentNode): string[] | null {
  const variables: string[] = [];
  for (const d of document.definitions) {
    // Directives where the executor evaluates none: the operation's, a fragment's own, a
    // variable's.
    if (d.kind === Kind.OPERATION_DEFINITION) {
      if (d.directives?.length) return null;
      if (d.variableDefinitions?.some((v) => v.directives?.length)) return null;
    } else if (d.kind !== Kind.FRAGMENT_DEFINITION || d.directives?.length) {
      // A type system definition compiles to no passthrough in any case.
      return null;
    }
    if (!selectionConditions(d.selectionSet, variables)) return null;
  }
  return variables;
}

/**
 * Adds the variables the `@skip`/`@include` conditions of `set` (and of the sets within) read to
 * `variables`, in document order; false at any other directive. A walk of its own, not graphql's
 * visitor: this runs for every document new to the gateway.
 */
function selectionConditions(set: SelectionSetNode, variables: string[]): boolean {
  for (const selection of set.selections) {
    for (const directive of selection.directives ?? []) {
      const name = directive.name.value;
      if (name !== "skip" && name !== "include") return false;
      for (const arg of directive.arguments ?? []) {
        if (arg.value.kind === Kind.VARIABLE) variables.push(arg.value.name.value);
      }
    }
    if (selection.kind !== Kind.FRAGMENT_SPREAD && selection.selectionSet) {
      if (!selectionConditions(selection.selectionSet, variables)) return false;
    }
  }
  return true;
}

/** The document with each fragment's type condition named as the indexer names the table. */
function renameTypeConditions(document: DocumentNode): DocumentNode | null {
  // Most documents name no type: they are their own rename.
  if (!namesTypes(document)) return document;
  let unknown = false;
  const rename = (node: NamedTypeNode): NamedTypeNode => {
    const table = indexerTypeOf(node.name.value);
    if (table === undefined) unknown = true;
    return { ...node, name: { ...node.name, value: table ?? node.name.value } };
  };
  const out = visit(document, {
    FragmentDefinition: (node) => ({ ...node, typeCondition: rename(node.typeCondition) }),
    InlineFragment: (node) =>
      node.typeCondition ? { ...node, typeCondition: rename(node.typeCondition) } : undefined,
  });
  return unknown ? null : out;
}

/** Whether the document has a fragment definition or an inline fragment with a type condition. */
function namesTypes(document: DocumentNode): boolean {
  const inSet = (set: SelectionSetNode): boolean =>
    set.selections.some((s) =>
      s.kind === Kind.INLINE_FRAGMENT
        ? s.typeCondition !== undefined || inSet(s.selectionSet)
        : s.kind === Kind.FIELD && s.selectionSet !== undefined && inSet(s.selectionSet),
    );
  return document.definitions.some(
    (d) =>
      d.kind === Kind.FRAGMENT_DEFINITION ||
      (d.kind === Kind.OPERATION_DEFINITION && inSet(d.selectionSet)),
  );
}

/**
 * Whether the indexer's `data` is what graphql-js would make of it for this shape, unchanged:
 * then its JSON is the unified API's `data`, byte for byte. Anything else (a key missing, extra
 * or out of order, a leaf its scalar would change or refuse, a null where none may be) is left to
 * the executor, which answers it as it answers any other.
 */
export function fits(
  value: unknown,
  shape: Shape,
  /** Whose names `__typename` holds: the indexer's answer's, or the executor's (learn.ts). */
  names: "indexer" | "unified" = "indexer",
): boolean {
  if (value === null) return !shape.nonNull;
  switch (shape.kind) {
    case "typename":
      return value === (names === "indexer" ? shape.from : shape.to);
    case "leaf":
      try {
        return value !== undefined && Object.is(shape.serialize(value), value);
      } catch {
        return false;
      }
    case "list":
      return Array.isArray(value) && value.every((item) => fits(item, shape.of, names));
    case "object": {
      if (typeof value !== "object" || value === undefined || Array.isArray(value)) return false;
      const record = value as Record<string, unknown>;
      let i = 0;
      for (const key in record) {
        if (key !== shape.keys[i] || !fits(record[key], shape.fields[i] as Shape, names)) {
          return false;
        }
        i++;
      }
      return i === shape.keys.length;
    }
  }
}

/**
 * The indexer request a passthrough makes with the client's variables: those its operation
 * declares, as given (the indexer coerces them as the unified schema did: same input types).
 */
export function indexerRequest(
  passthrough: Passthrough,
  given: Record<string, unknown>,
): GraphRequest {
  const variables: Record<string, unknown> = {};
  for (const definition of passthrough.variableDefinitions) {
    const name = definition.variable.name.value;
    if (Object.hasOwn(given, name)) variables[name] = given[name];
  }
  return { query: passthrough.indexerQuery, variables, operationName: passthrough.operationName };
}

/**
 * The indexer's data as the unified API writes it, once it fits: as it came, or with every
 * `__typename` the indexer's name of the type replaced by the unified one.
 */
export function dataText(data: object, passthrough: Passthrough): string {
  return JSON.stringify(passthrough.renamesTypes ? renamed(data, passthrough.shape) : data);
}

function renamed(value: unknown, shape: Shape): unknown {
  if (value === null) return null;
  switch (shape.kind) {
    case "typename":
      return shape.to;
    case "leaf":
      return value;
    case "list":
      return (value as unknown[]).map((item) => renamed(item, shape.of));
    case "object": {
      const record = value as Record<string, unknown>;
      const out: Record<string, unknown> = {};
      shape.keys.forEach((key, i) => {
        out[key] = renamed(record[key], shape.fields[i] as Shape);
      });
      return out;
    }
  }
}
