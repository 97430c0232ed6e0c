import {
  type ASTNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from "graphql";

/**
 * Hasura names the place of an error with a JSON path through the query:
 * `$.selectionSet.<field>.selectionSet.<field>.args.<arg>.<input field>[<index>]` — field names,
 * not aliases, and fragments are inlined. This walks the chosen operation once and records that
 * path for every node under it, so any error that points at a node can be given Hasura's path.
 * A node inside a fragment gets the path of the fragment's first use. Recursive: nesting is
 * bounded before parsing (src/protocol/graphql/nesting.ts) and with spreads followed after it
 * (src/protocol/graphql/spread-nesting.ts).
 */
export function hasuraPaths(
  document: DocumentNode,
  operation: OperationDefinitionNode,
): Map<ASTNode, string> {
  const paths = new Map<ASTNode, string>();
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) {
    if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  }
  const value = (node: ValueNode, path: string): void => {
    paths.set(node, path);
    if (node.kind === Kind.LIST) {
      for (const [i, v] of node.values.entries()) value(v, `${path}[${i}]`);
    }
    if (node.kind === Kind.OBJECT) {
      for (const field of node.fields) {
        paths.set(field, `${path}.${field.name.value}`);
        value(field.value, `${path}.${field.name.value}`);
      }
    }
  };

  const selections = (set: SelectionSetNode, path: string): void => {
    paths.set(set, `${path}.selectionSet`);
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const fieldPath = `${path}.selectionSet.${selection.name.value}`;
        paths.set(selection, fieldPath);
        for (const arg of selection.arguments ?? []) {
          paths.set(arg, `${fieldPath}.args.${arg.name.value}`);
          value(arg.value, `${fieldPath}.args.${arg.name.value}`);
        }
        if (selection.selectionSet) selections(selection.selectionSet, fieldPath);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        paths.set(selection, path);
        selections(selection.selectionSet, path);
      } else {
        paths.set(selection, path);
        const fragment = fragments.get(selection.name.value);
        // Walked at its first use only: its nodes keep that path, and a fragment spread twice at
        // each of n levels is walked n times, not 2^n.
        if (fragment && !paths.has(fragment)) {
          paths.set(fragment, path);
          selections(fragment.selectionSet, path);
        }
      }
    }
  };

  paths.set(operation, "$");
  for (const variable of operation.variableDefinitions ?? []) {
    paths.set(variable, `$.variableValues.${variable.variable.name.value}`);
  }
  selections(operation.selectionSet, "$");
  return paths;
}
