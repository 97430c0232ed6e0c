import { collectFields, collectSubFields } from "@graphql-tools/utils";
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  getNamedType,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from "graphql";

/**
 * One field of a selection as execution sees it: fragments spread (each once per selection set),
 * `@skip`/`@include` applied, inline fragments and fragments whose type condition does not match
 * left out, and the selections that share a response key merged into one field.
 */
export interface CollectedField {
  /** Alias or name: the key it has in the answer. */
  responseKey: string;
  /** Every selection with this response key; validation makes them the same field and arguments. */
  nodes: readonly FieldNode[];
  /** The first of them, whose name, alias and arguments stand for all. */
  node: FieldNode;
  /** The object type it is selected on. */
  parentType: GraphQLObjectType;
  /** The schema's field; undefined for introspection meta-fields (`__typename`, `__schema`, …). */
  def: GraphQLField<unknown, unknown> | undefined;
}

/**
 * Called once per collected field, parents before children, in the order of first appearance.
 * Returns what the field's own selections are walked with (its path, depth, multiplier…), or
 * undefined to leave them unwalked.
 */
export type FieldVisitor<S> = (field: CollectedField, at: S) => S | undefined;

/**
 * The one selection walker: the fields an operation selects, resolved with graphql-js's
 * CollectFields algorithm (@graphql-tools/utils' `collectFields`/`collectSubFields`) against
 * `schema` with `variables` applied, handed top-down to `visit`. A field's sub-selection is walked
 * when the visitor asks for it and the field's type is an object type (neither of our schemas has
 * interfaces or unions, and neither declares `@defer`, so collectFields' deferred patches stay
 * empty). The cost estimate of the unified API and the indexer schema's checks (Hasura's, shared
 * by the graph route and devnet's indexer) both walk with it.
 */
export function walkSelections<S>(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown>,
  root: { type: GraphQLObjectType; selectionSet: SelectionSetNode },
  at: S,
  visit: FieldVisitor<S>,
): void {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments[def.name.value] = def;
  }
  const walk = (fields: Map<string, FieldNode[]>, parentType: GraphQLObjectType, at: S): void => {
    for (const [responseKey, nodes] of fields) {
      const node = nodes[0];
      if (!node) continue;
      const def = parentType.getFields()[node.name.value];
      const inner = visit({ responseKey, nodes, node, parentType, def }, at);
      const type = def && getNamedType(def.type);
      if (inner === undefined || !isObjectType(type)) continue;
      walk(collectSubFields(schema, fragments, variables, type, nodes).fields, type, inner);
    }
  };
  const { type, selectionSet } = root;
  walk(collectFields(schema, fragments, variables, type, selectionSet).fields, type, at);
}
