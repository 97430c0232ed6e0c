import type { ArgBuilder, InputType, InputTypeParam } from "@pothos/core";
import {
  type GraphQLArgument,
  type GraphQLInputType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
} from "graphql";
import { indexerSchema } from "../../../protocol/hasura/schema.ts";
import { type BuilderTypes, builder } from "../builder.ts";

/**
 * The indexer's filter and ordering types (`block_bool_exp`, `Int_comparison_exp`, `block_order_by`,
 * the `order_by` enum, …) in the unified schema, under their Hasura names and built from
 * schema/indexer.graphql itself, so the two cannot drift. Keeping the names is what lets a
 * delegated field pass its arguments — variables included (`$where: block_bool_exp`) — to the
 * indexer unchanged.
 */

type Ref = InputType<BuilderTypes>;

const schema = indexerSchema();
const refs = new Map<string, Ref>();

for (const type of Object.values(schema.getTypeMap())) {
  if (type.name.startsWith("__")) continue;
  if (isEnumType(type)) {
    refs.set(
      type.name,
      builder.enumType(type.name, {
        ...(type.description ? { description: type.description } : {}),
        values: Object.fromEntries(
          type
            .getValues()
            .map((v) => [
              v.name,
              { value: v.name, ...(v.description ? { description: v.description } : {}) },
            ]),
        ),
      }),
    );
  } else if (isInputObjectType(type)) {
    refs.set(type.name, builder.inputRef<Record<string, unknown>>(type.name));
  }
}

/** The Pothos form of an indexer input type: its ref (or built-in scalar name) and requiredness. */
function pothosInput(type: GraphQLInputType): {
  type: InputTypeParam<BuilderTypes>;
  required: boolean | { list: boolean; items: boolean };
} {
  const named = (t: GraphQLInputType): Ref => {
    if (isScalarType(t)) return t.name as Ref; // Int, String, Boolean: built into every schema
    const ref = refs.get((t as { name: string }).name);
    if (!ref) throw new Error(`indexer input type ${String(t)} has no counterpart`);
    return ref;
  };
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    const item: GraphQLInputType = nullable.ofType;
    if (isListType(getNullableType(item))) throw new Error("nested lists are not mirrored");
    return {
      type: [named(getNullableType(item))] as [Ref],
      required: { list: isNonNullType(type), items: isNonNullType(item) },
    };
  }
  return { type: named(nullable), required: isNonNullType(type) };
}

const describe = (d: string | null | undefined) => (d ? { description: d } : {});

for (const type of Object.values(schema.getTypeMap())) {
  if (!isInputObjectType(type) || type.name.startsWith("__")) continue;
  const ref = refs.get(type.name) as PothosSchemaTypes.ImplementableInputObjectRef<
    BuilderTypes,
    Record<string, unknown>
  >;
  ref.implement({
    ...describe(type.description),
    fields: (t) =>
      Object.fromEntries(
        Object.values(type.getFields()).map((f) => [
          f.name,
          t.field({ ...pothosInput(f.type), ...describe(f.description) }),
        ]),
      ),
  });
}

/**
 * The arguments of an indexer field (`query_root.block`, `block.transactions`, …) as Pothos
 * arguments: same names, types and descriptions, so a mirrored field takes exactly what the
 * indexer takes and delegation can hand the values over as they are.
 */
export function indexerArgs(arg: ArgBuilder<BuilderTypes>, of: string) {
  const [typeName, fieldName] = of.split(".") as [string, string];
  const owner = schema.getType(typeName);
  const field =
    owner && "getFields" in owner && !isInputObjectType(owner)
      ? owner.getFields()[fieldName]
      : undefined;
  if (!field) throw new Error(`the indexer schema has no field ${of}`);
  return Object.fromEntries(
    field.args.map((a: GraphQLArgument) => [
      a.name,
      arg({ ...pothosInput(a.type), ...describe(a.description) }),
    ]),
  );
}
