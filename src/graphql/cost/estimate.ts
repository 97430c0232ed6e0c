import {
  type DocumentNode,
  type FragmentDefinitionNode,
  GraphQLError,
  GraphQLIncludeDirective,
  type GraphQLNamedType,
  type GraphQLSchema,
  GraphQLSkipDirective,
  getArgumentValues,
  getDirectiveValues,
  getNamedType,
  getNullableType,
  getOperationAST,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  type SelectionSetNode,
} from "graphql";
import type { FieldCost } from "../builder.ts";

export interface CostItem {
  path: string;
  method: string;
  count: number;
  unitPrice: number;
  subtotal: number;
}

export interface CostEstimate {
  total: number;
  items: CostItem[];
  /** The operation selects fee or prevout somewhere: the node must be asked at verbosity 2. */
  wantsPrevouts: boolean;
}

export interface EstimateOptions {
  price(method: string): number;
  listItemsMax: number;
}

/**
 * The most a request can cost, from the document alone (variables applied, @skip/@include
 * honoured, fragments expanded): Σ over priced fields of unit price × items asked × the sizes of
 * the lists enclosing them. Deduplication at execution can only make the actual charge smaller.
 */
export function estimateCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown>,
  opts: EstimateOptions,
): CostEstimate | GraphQLError {
  const operation = getOperationAST(document, operationName);
  if (!operation)
    return new GraphQLError("no operation to run", { extensions: { code: "BAD_USER_INPUT" } });
  const root = schema.getRootType(operation.operation);
  if (!root)
    return new GraphQLError(`no ${operation.operation} type`, {
      extensions: { code: "BAD_USER_INPUT" },
    });
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  const items: CostItem[] = [];
  let wantsPrevouts = false;
  const included = (node: Parameters<typeof getDirectiveValues>[1]) =>
    getDirectiveValues(GraphQLSkipDirective, node, variables)?.if !== true &&
    getDirectiveValues(GraphQLIncludeDirective, node, variables)?.if !== false;

  const walk = (
    set: SelectionSetNode,
    parent: GraphQLNamedType,
    path: string,
    multiplier: number,
  ): void => {
    for (const selection of set.selections) {
      if (!included(selection)) continue;
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition
          ? schema.getType(selection.typeCondition.name.value)
          : parent;
        if (type) walk(selection.selectionSet, type, path, multiplier);
        continue;
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = fragments.get(selection.name.value);
        const type = fragment && schema.getType(fragment.typeCondition.name.value);
        if (fragment && type) walk(fragment.selectionSet, type, path, multiplier);
        continue;
      }
      if (!isObjectType(parent) && !isInterfaceType(parent)) continue;
      const name = selection.name.value;
      if (name === "fee" || name === "prevout") wantsPrevouts = true;
      const field = parent.getFields()[name];
      if (!field) continue; // __typename and introspection are free
      const key = `${path}${path ? "." : ""}${selection.alias?.value ?? name}`;
      const cost = field.extensions?.cost as FieldCost | undefined;
      let count = 1;
      if (cost) {
        const args = getArgumentValues(field, selection, variables);
        if (cost.listArg) {
          const list = args[cost.listArg];
          count = Array.isArray(list) ? list.length : 1;
          if (count > opts.listItemsMax) {
            throw new GraphQLError(
              `${key}: ${count} items asked, at most ${opts.listItemsMax} in one request`,
              { extensions: { code: "LIMIT_EXCEEDED", limit: opts.listItemsMax } },
            );
          }
        }
        // Where an argument picks the upstream (source: ELECTRUM), that upstream's price applies.
        const method = cost.methodByArg
          ? (cost.methodByArg.methods[String(args[cost.methodByArg.arg])] ?? cost.method)
          : cost.method;
        const unitPrice = opts.price(method);
        items.push({
          path: key,
          method,
          count: count * multiplier,
          unitPrice,
          subtotal: unitPrice * count * multiplier,
        });
      }
      if (selection.selectionSet) {
        const inner = isListType(getNullableType(field.type)) ? multiplier * count : multiplier;
        walk(selection.selectionSet, getNamedType(field.type), key, inner);
      }
    }
  };
  try {
    walk(operation.selectionSet, root, "", 1);
  } catch (err) {
    if (err instanceof GraphQLError) return err;
    throw err;
  }
  return { total: items.reduce((sum, i) => sum + i.subtotal, 0), items, wantsPrevouts };
}
