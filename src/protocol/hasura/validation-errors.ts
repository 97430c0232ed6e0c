import {
  type ASTNode,
  type GraphQLError,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  Kind,
  type ValueNode,
} from "graphql";
import { englishOr, type HasuraError, hasuraError } from "./hasura-error.ts";

/**
 * graphql-js validation errors in Hasura's words, for the cases a client meets in practice:
 * unknown field, unknown argument, unknown input field, wrong value type, missing required
 * argument, sub-selection on a leaf or none on an object, variable type mismatch. Anything else
 * keeps graphql-js's message under Hasura's code and path. The wording is Hasura's
 * (server/src-lib/Hasura/GraphQL/Parser/Internal/Parser.hs).
 */
export function toHasuraError(
  error: GraphQLError,
  schema: GraphQLSchema,
  paths: Map<ASTNode, string>,
): HasuraError {
  const node = error.nodes?.[0];
  const at: Site = {
    schema,
    path: (node && paths.get(node)) ?? "$",
    node,
    second: error.nodes?.[1] ? paths.get(error.nodes[1]) : undefined,
  };
  for (const [pattern, translate] of TRANSLATIONS) {
    const match = error.message.match(pattern);
    if (match) {
      const translated = translate(match as unknown as string[], at);
      if (translated) return translated;
    }
  }
  return hasuraError(error.message, at.path);
}

interface Site {
  schema: GraphQLSchema;
  path: string;
  node: ASTNode | undefined;
  /** Path of the error's second node, where it has one (a variable's use). */
  second: string | undefined;
}

type Translation = (match: string[], at: Site) => HasuraError | null;

const givenAt = (at: Site): string => (at.node ? describeValue(at.node as ValueNode) : "a value");

/** graphql-js's messages (v16) → Hasura's, first match wins. */
const TRANSLATIONS: [RegExp, Translation][] = [
  [
    /^Cannot query field "([^"]+)" on type "([^"]+)"/,
    ([, field, type], at) => hasuraError(`field "${field}" not found in type: '${type}'`, at.path),
  ],
  [
    /^Unknown argument "([^"]+)" on field "[^".]+\.([^"]+)"/,
    // Hasura reports an unknown argument at the field that was given it.
    ([, arg, field], at) =>
      hasuraError(
        `"${field}" has no argument named "${arg}"`,
        at.path.replace(/\.args\.[^.]+$/, ""),
      ),
  ],
  [
    /^Field "([^"]+)" is not defined by type "([^"]+)"/,
    ([, field, type], at) => hasuraError(`field "${field}" not found in type: '${type}'`, at.path),
  ],
  [
    /^Field "[^"]+" argument "([^"]+)" of type "[^"]+" is required/,
    ([, arg], at) => hasuraError(`missing required field "${arg}"`, `${at.path}.args.${arg}`),
  ],
  [
    /^Field "[^".]+\.([^"]+)" of required type "[^"]+" was not provided/,
    ([, field], at) => hasuraError(`missing required field "${field}"`, `${at.path}.${field}`),
  ],
  [
    /^Field "[^"]+" must not have a selection since type/,
    // graphql-js points at the selection set; Hasura at the field that should have none.
    (_, at) =>
      hasuraError(
        "unexpected subselection set for non-object field",
        at.path.replace(/\.selectionSet$/, ""),
      ),
  ],
  [
    /^Field "[^"]+" of type "([^"]+)" must have a selection of subfields/,
    ([, type], at) =>
      hasuraError(`missing selection set for "${namedType(type!)}"`, `${at.path}.selectionSet`),
  ],
  [
    /^Variable "\$([^"]+)" of type "([^"]+)" used in position expecting type "([^"]+)"/,
    ([, name, declared, expected], at) =>
      hasuraError(
        `variable "${name}" is declared as ${declared}, but used where ${expected} is expected`,
        at.second ?? at.path,
      ),
  ],
  [
    /^Variable "\$([^"]+)" is not defined/,
    ([, name], at) => hasuraError(`unbound variable "${name}"`, at.path),
  ],
  [
    /^Value "([^"]+)" does not exist in "([^"]+)" enum/,
    ([, value, type], at) => enumMismatch(at.schema, type!, `"${value}"`, at.path),
  ],
  [
    /^(?:Enum "(\w+)"|(\w+)) cannot represent /,
    ([, enumType, scalar], at) =>
      typeMismatch(at.schema, (enumType ?? scalar)!, givenAt(at), at.path),
  ],
  [
    /^Expected value of type "([^"]+)", found /,
    ([, expected], at) => {
      if (!at.node) return null;
      if (at.node.kind === Kind.NULL && expected!.endsWith("!")) {
        return hasuraError(`null value found for non-nullable type: ${expected}`, at.path);
      }
      return typeMismatch(at.schema, namedType(expected!), givenAt(at), at.path);
    },
  ],
];

/** Hasura's typeMismatch: `expected a 32-bit integer for type "Int", but found a string`. */
export function typeMismatch(
  schema: GraphQLSchema,
  typeName: string,
  given: string,
  path: string,
): HasuraError {
  const type = schema.getType(typeName);
  if (isEnumType(type) && given.startsWith('"')) return enumMismatch(schema, typeName, given, path);
  return hasuraError(
    `expected ${expectedOf(schema, typeName)} for type "${typeName}", but found ${given}`,
    path,
  );
}

function enumMismatch(schema: GraphQLSchema, typeName: string, given: string, path: string) {
  const type = schema.getType(typeName);
  const values = isEnumType(type) ? type.getValues().map((v) => `"${v.name}"`) : [];
  return hasuraError(
    `expected one of the values ${englishOr(values)} for type "${typeName}", but found ${given}`,
    path,
  );
}

export function expectedOf(schema: GraphQLSchema, typeName: string): string {
  switch (typeName) {
    case "Int":
      return "a 32-bit integer";
    case "Float":
      return "a float";
    case "Boolean":
      return "a boolean";
    case "String":
    case "ID":
      return "a string";
  }
  const type = schema.getType(typeName);
  if (isEnumType(type)) return "an enum value";
  if (isInputObjectType(type)) return "an object";
  return "a scalar";
}

/** Hasura's describeValue for a literal. */
export function describeValue(node: ValueNode): string {
  switch (node.kind) {
    case Kind.INT:
      return "an integer";
    case Kind.FLOAT:
      return "a float";
    case Kind.STRING:
      return "a string";
    case Kind.BOOLEAN:
      return "a boolean";
    case Kind.NULL:
      return "null";
    case Kind.ENUM:
      return "an enum value";
    case Kind.LIST:
      return "a list";
    case Kind.OBJECT:
      return "an object";
    case Kind.VARIABLE:
      return `variable "${node.name.value}"`;
  }
}

/** Hasura's describeValue for a JSON value (a variable's). */
export function describeJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return "a list";
  switch (typeof value) {
    case "boolean":
      return "a boolean";
    case "string":
      return "a string";
    case "number":
      return "a number";
    default:
      return "an object";
  }
}

function namedType(printed: string): string {
  return printed.replace(/[[\]!]/g, "");
}
