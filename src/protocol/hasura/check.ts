import {
  type DocumentNode,
  type FieldNode,
  GraphQLError,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  getNullableType,
  getVariableValues,
  isInputObjectType,
  isListType,
  Kind,
  NoUnusedVariablesRule,
  type OperationDefinitionNode,
  parse,
  specifiedRules,
  type ValueNode,
  validate,
} from "graphql";
import { gatewayError } from "../errors/codes.ts";
import { hasuraErrorObject } from "../errors/render.ts";
import { type CollectedField, walkSelections } from "../graphql/selection.ts";
import { type HasuraError, hasuraError } from "./hasura-error.ts";
import { checkInputNesting, checkSpreadNesting } from "./nesting.ts";
import { hasuraPaths } from "./paths.ts";
import type { GraphRequest } from "./request.ts";
import { describeJson, toHasuraError, typeMismatch } from "./validation-errors.ts";

/** One selected field of the checked operation, fragments inlined and @skip/@include applied. */
export interface SelectedField {
  /** The schema field's name. */
  name: string;
  /** Alias or name: the key it has in the answer. */
  responseKey: string;
  aliased: boolean;
  /** The type the field is selected on (`query_root`, `block`, …). */
  parentType: string;
  /** Hasura's path to it, for errors. */
  path: string;
  /** Root fields are at depth 1. */
  depth: number;
  /** The field returns a list. */
  list: boolean;
  /** `__typename`, `__schema`, `__type`: answered from the schema, never by a table. */
  introspection: boolean;
  /** Arguments, coerced, variables substituted. */
  args: Record<string, unknown>;
  children: SelectedField[];
}

export interface CheckedQuery {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variableValues: Record<string, unknown>;
  fields: SelectedField[];
}

export type CheckOutcome = { ok: true; query: CheckedQuery } | { ok: false; error: HasuraError };

/** graphql-js's words when parse() stops at its maxTokens (16 spells it "more that N tokens"). */
const TOKENS_OVER = /Document contains more th(?:an|at) \d+ tokens/;

// Hasura ignores declared variables that go unused; graphql-js's rule would refuse them.
const RULES = specifiedRules.filter((rule) => rule !== NoUnusedVariablesRule);

/**
 * Checks a request against the indexer schema the way Hasura does, stopping at the first problem:
 * the gateway's bound on nesting (before parsing, and with fragments spread in after it), parse,
 * choose the operation, validate, coerce variables, refuse explicit nulls (Hasura v2: a null in
 * `where` or `limit` is an error, never "no filter"). On success, the selection as a tree — what
 * the devnet indexer executes and what the gateway prices.
 */
export function checkGraphQuery(
  schema: GraphQLSchema,
  request: GraphRequest,
  /** The gateway's bound on the document's tokens (graph.tokensMax); Hasura itself has none. */
  tokensMax?: number,
): CheckOutcome {
  const tooDeep = checkInputNesting(request);
  if (tooDeep) return { ok: false, error: tooDeep };
  const document = parseQuery(request.query, tokensMax);
  if ("error" in document) return { ok: false, error: document.error };
  const tooDeepSpread = checkSpreadNesting(document);
  if (tooDeepSpread) return { ok: false, error: tooDeepSpread };
  const operation = chooseOperation(document, request.operationName);
  if ("error" in operation) return { ok: false, error: operation.error };
  if (operation.operation !== "query") {
    return { ok: false, error: hasuraError(`no ${operation.operation}s exist`) };
  }
  const invalid = validate(schema, document, RULES, { maxErrors: 1 })[0];
  if (invalid) {
    return { ok: false, error: toHasuraError(invalid, schema, hasuraPaths(document, operation)) };
  }
  const declared = new Set((operation.variableDefinitions ?? []).map((v) => v.variable.name.value));
  const unexpected = Object.keys(request.variables).filter((k) => !declared.has(k));
  if (unexpected.length > 0) {
    const message = `unexpected variables in variableValues: ${unexpected.join(", ")}`;
    return { ok: false, error: hasuraError(message) };
  }
  const definitions = operation.variableDefinitions ?? [];
  const coerced = getVariableValues(schema, definitions, request.variables, { maxErrors: 1 });
  if (coerced.errors)
    return { ok: false, error: variableError(schema, operation, request, coerced.errors[0]!) };
  try {
    const fields = selectedFields(schema, document, operation, coerced.coerced);
    return { ok: true, query: { document, operation, variableValues: coerced.coerced, fields } };
  } catch (err) {
    if (err instanceof HasuraFailure) return { ok: false, error: err.error };
    throw err;
  }
}

/** The document, or Hasura's parse error (the gateway's token bound in its own words). */
function parseQuery(
  query: string,
  tokensMax: number | undefined,
): DocumentNode | { error: HasuraError } {
  try {
    return parse(query, tokensMax === undefined ? {} : { maxTokens: tokensMax });
  } catch (err) {
    if (err instanceof GraphQLError && tokensMax !== undefined && TOKENS_OVER.test(err.message)) {
      const message = `the query has more than ${tokensMax} tokens; the limit is ${tokensMax}: ask for fewer heights or fields, or send several queries`;
      const error = gatewayError("LIMIT_EXCEEDED", message);
      return {
        error: hasuraErrorObject(error, { path: "$.query", variant: "token-limit-exceeded" }),
      };
    }
    if (err instanceof GraphQLError) {
      return { error: hasuraError("not a valid graphql query", "$.query", "parse-failed") };
    }
    throw err;
  }
}

/** The operation to run, by name or as the only one, as Hasura chooses it. */
function chooseOperation(
  document: DocumentNode,
  operationName: string | undefined,
): OperationDefinitionNode | { error: HasuraError } {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  if (operationName !== undefined) {
    const named = operations.find((o) => o.name?.value === operationName);
    return (
      named ?? { error: hasuraError(`no such operation found in the document: "${operationName}"`) }
    );
  }
  if (operations.length === 1) return operations[0]!;
  return {
    error: hasuraError(
      "exactly one operation has to be present in the document when operationName is not specified",
    ),
  };
}

/**
 * A new entry for a collected field (fragments already spread and same-key selections merged by
 * the walker): `__` names are introspection. Shared with the unified API's pricing of delegated
 * selections, which builds the same tree for the indexer queries its fields become.
 */
export function selectedField(
  field: CollectedField,
  at: Pick<SelectedField, "name" | "parentType" | "path" | "depth" | "list">,
): SelectedField {
  return {
    ...at,
    responseKey: field.responseKey,
    aliased: field.node.alias !== undefined,
    introspection: at.name.startsWith("__"),
    args: {},
    children: [],
  };
}

class HasuraFailure extends Error {
  constructor(readonly error: HasuraError) {
    super(error.message);
  }
}

/** The validated operation's selection as a tree, each field's arguments refused as Hasura would. */
function selectedFields(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Record<string, unknown>,
): SelectedField[] {
  const fields: SelectedField[] = [];
  const root = { type: schema.getQueryType()!, selectionSet: operation.selectionSet };
  walkSelections(
    schema,
    document,
    variables,
    root,
    { path: "$", depth: 1, out: fields },
    (f, at) => {
      const name = f.node.name.value;
      const path = `${at.path}.selectionSet.${name}`;
      const list = f.def ? isListType(getNullableType(f.def.type)) : false;
      const field = selectedField(f, {
        name,
        parentType: f.parentType.name,
        path,
        depth: at.depth,
        list,
      });
      at.out.push(field);
      if (!f.def) return undefined; // introspection meta-fields: answered from the schema
      const refused = refusedArguments(schema, f.def, f.node, variables, path);
      if (refused) throw new HasuraFailure(refused);
      field.args = getArgumentValues(f.def, f.node, variables);
      return { path, depth: at.depth + 1, out: field.children };
    },
  );
  return fields;
}

/**
 * What Hasura refuses in a field's arguments that graphql-js lets through, as Hasura words it:
 * an explicit null anywhere (a literal, or a variable that is null or left out — Hasura v2 never
 * reads null as "no filter"), and a negative `limit` or `offset`. `def` is the indexer schema's
 * field, `args` the coerced arguments, `path` Hasura's path to the field. Also used by the unified
 * API on the fields it delegates to the indexer.
 */
export function refusedArguments(
  schema: GraphQLSchema,
  def: GraphQLField<unknown, unknown>,
  selection: FieldNode,
  variables: Record<string, unknown>,
  path: string,
): HasuraError | null {
  const foundNull = (type: GraphQLInputType, at: string): HasuraError => {
    const t = getNullableType(type);
    if (isListType(t)) return hasuraError("expected a list, but found null", at);
    return typeMismatch(schema, getNamedType(t).name, "null", at);
  };
  const inJson = (value: unknown, type: GraphQLInputType, at: string): HasuraError | null => {
    if (value === null || value === undefined) return foundNull(type, at);
    const t = getNullableType(type);
    if (isListType(t)) {
      if (!Array.isArray(value)) return inJson(value, t.ofType, `${at}[0]`);
      for (const [i, v] of value.entries()) {
        const problem = inJson(v, t.ofType, `${at}[${i}]`);
        if (problem) return problem;
      }
    } else if (isInputObjectType(t) && typeof value === "object") {
      const defs = t.getFields();
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
        const fieldDef = defs[key];
        const problem = fieldDef ? inJson(v, fieldDef.type, `${at}.${key}`) : null;
        if (problem) return problem;
      }
    }
    return null;
  };
  const inAst = (node: ValueNode, type: GraphQLInputType, at: string): HasuraError | null => {
    if (node.kind === Kind.VARIABLE) return inJson(variables[node.name.value], type, at);
    if (node.kind === Kind.NULL) return foundNull(type, at);
    const t = getNullableType(type);
    if (isListType(t)) {
      if (node.kind !== Kind.LIST) return inAst(node, t.ofType, `${at}[0]`);
      for (const [i, v] of node.values.entries()) {
        const problem = inAst(v, t.ofType, `${at}[${i}]`);
        if (problem) return problem;
      }
    } else if (isInputObjectType(t) && node.kind === Kind.OBJECT) {
      const defs = t.getFields();
      for (const f of node.fields) {
        const fieldDef = defs[f.name.value];
        const problem = fieldDef ? inAst(f.value, fieldDef.type, `${at}.${f.name.value}`) : null;
        if (problem) return problem;
      }
    }
    return null;
  };
  for (const arg of selection.arguments ?? []) {
    const argDef = def.args.find((a) => a.name === arg.name.value);
    const problem = argDef ? inAst(arg.value, argDef.type, `${path}.args.${arg.name.value}`) : null;
    if (problem) return problem;
  }
  const args = getArgumentValues(def, selection, variables);
  for (const key of ["limit", "offset"]) {
    const n = args[key];
    if (typeof n === "number" && n < 0) {
      return hasuraError(
        'expected a non-negative integer for type "Int", but found a negative integer',
        `${path}.args.${key}`,
      );
    }
  }
  return null;
}

/** Variable coercion failures in Hasura's words. */
function variableError(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  request: GraphRequest,
  error: GraphQLError,
): HasuraError {
  const m = error.message;
  const name = m.match(/^Variable "\$([^"]+)"/)?.[1];
  if (!name) return hasuraError(m);
  const path = `$.variableValues.${name}`;
  if (/of required type "[^"]+" was not provided/.test(m)) {
    return hasuraError(`expecting a value for non-nullable variable: "${name}"`);
  }
  const nonNull = m.match(/of non-null type "([^"]+)" must not be null/);
  if (nonNull) return hasuraError(`null value found for non-nullable type: ${nonNull[1]}`, path);
  const def = operation.variableDefinitions?.find((v) => v.variable.name.value === name);
  // A scalar or enum variable of the wrong JSON type: Hasura's typeMismatch. Deeper problems
  // (inside a list or an input object) keep graphql-js's message, which names the place.
  const type = def?.type.kind === Kind.NON_NULL_TYPE ? def.type.type : def?.type;
  if (type?.kind === Kind.NAMED_TYPE && / got invalid value /.test(m) && !/ at "/.test(m)) {
    return typeMismatch(schema, type.name.value, describeJson(request.variables[name]), path);
  }
  return hasuraError(m, path);
}
