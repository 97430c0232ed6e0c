import { collectFields, collectSubFields } from "@graphql-tools/utils";
import {
  BREAK,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLOutputType,
  type GraphQLSchema,
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type NamedTypeNode,
  type OperationDefinitionNode,
  print,
  visit,
} from "graphql";
import type { GraphRequest } from "../../upstreams/indexer/hasura/request.ts";
import type { IndexerSite } from "../builder.ts";
import { indexerColumn, indexerTypeOf } from "../indexer.ts";
import type { Passthrough, Shape } from "./candidate.ts";

/** Compiles `document`'s operation as a passthrough, or null when it asks anything else. */
export function compilePassthrough(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
): Passthrough | null {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const [operation] = operations;
  if (operations.length !== 1 || !operation || operation.operation !== "query") return null;
  if (operationName && operation.name?.value !== operationName) return null;
  const query = schema.getQueryType();
  if (!query || hasDirective(document)) return null;
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments[d.name.value] = d;
    else if (d.kind !== Kind.OPERATION_DEFINITION) return null;
  }
  const { fields, patches } = collectFields(schema, fragments, {}, query, operation.selectionSet);
  if (patches.length > 0 || fields.size === 0) return null;
  const keys: string[] = [];
  const shapes: Shape[] = [];
  for (const [key, nodes] of fields) {
    const name = (nodes[0] as FieldNode).name.value;
    const field = query.getFields()[name];
    const site = field?.extensions.indexer as IndexerSite | undefined;
    if (!field || site?.rootField !== name) return null;
    const shape = shapeOf(schema, fragments, field.type, nodes);
    if (!shape) return null;
    keys.push(key);
    shapes.push(shape);
  }
  const renamed = renameTypeConditions(document);
  if (!renamed) return null;
  return {
    indexerQuery: print(renamed),
    operationName: operation.name?.value,
    variableDefinitions: operation.variableDefinitions ?? [],
    shape: { kind: "object", nonNull: true, keys, fields: shapes },
  };
}

function shapeOf(
  schema: GraphQLSchema,
  fragments: Record<string, FragmentDefinitionNode>,
  type: GraphQLOutputType,
  nodes: FieldNode[],
): Shape | null {
  const nonNull = isNonNullType(type);
  const inner = nonNull ? type.ofType : type;
  if (isListType(inner)) {
    const of = shapeOf(schema, fragments, inner.ofType, nodes);
    return of ? { kind: "list", nonNull, of } : null;
  }
  if (isScalarType(inner) || isEnumType(inner)) {
    return { kind: "leaf", nonNull, serialize: (v) => inner.serialize(v) };
  }
  if (!isObjectType(inner) || indexerTypeOf(inner.name) === undefined) return null;
  const { fields, patches } = collectSubFields(schema, fragments, {}, inner, nodes);
  if (patches.length > 0) return null;
  const keys: string[] = [];
  const shapes: Shape[] = [];
  for (const [key, sub] of fields) {
    const name = (sub[0] as FieldNode).name.value;
    const field = inner.getFields()[name];
    // A join (transaction) or __typename is the gateway's, not the indexer's.
    if (!field || !indexerColumn(inner.name, name)) return null;
    const shape = shapeOf(schema, fragments, field.type, sub);
    if (!shape) return null;
    keys.push(key);
    shapes.push(shape);
  }
  return { kind: "object", nonNull, keys, fields: shapes };
}

function hasDirective(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Directive() {
      found = true;
      return BREAK;
    },
  });
  return found;
}

/** The document with each fragment's type condition named as the indexer names the table. */
function renameTypeConditions(document: DocumentNode): DocumentNode | null {
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

/**
 * Whether the indexer's `data` is what graphql-js would make of it for this shape, unchanged:
 * then its JSON is the unified API's `data`, byte for byte. Anything else (a key missing, extra
 * or out of order, a leaf its scalar would change or refuse, a null where none may be) is left to
 * the executor, which answers it as it answers any other.
 */
export function fits(value: unknown, shape: Shape): boolean {
  if (value === null) return !shape.nonNull;
  switch (shape.kind) {
    case "leaf":
      try {
        return value !== undefined && Object.is(shape.serialize(value), value);
      } catch {
        return false;
      }
    case "list":
      return Array.isArray(value) && value.every((item) => fits(item, shape.of));
    case "object": {
      if (typeof value !== "object" || value === undefined || Array.isArray(value)) return false;
      const record = value as Record<string, unknown>;
      let i = 0;
      for (const key in record) {
        if (key !== shape.keys[i] || !fits(record[key], shape.fields[i] as Shape)) return false;
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
