import {
  type DocumentNode,
  type FieldNode,
  type GraphQLSchema,
  getArgumentValues,
  getOperationAST,
  getVariableValues,
  Kind,
  OperationTypeNode,
} from "graphql";
import type { BlockRef } from "../../../cache/chain-guard.ts";

/** The most heights a `block` list may name and still be kept whole (its rows, checked). */
const HEIGHTS_MAX = 10_000;

/**
 * The blocks a unified-API answer is about, when the answer cannot change while they stay on the
 * best chain; null when it could (or this cannot tell). Root fields qualify when plain (no
 * directives or fragments): `block_by_pk(hash:)` selecting `height`, and `block(where: {height})`
 * with a bounded set of heights, answered with exactly one row per height, each selecting `height`
 * and `hash`. Any other bound can gain rows with the next block. The caller also requires an answer
 * from the indexer alone (no full-node join, whose confirmations move) and without errors.
 */
export function finalBlocksOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  rawVariables: Record<string, unknown>,
  data: Record<string, unknown>,
): BlockRef[] | null {
  const operation = getOperationAST(document, operationName);
  if (!operation || operation.operation !== OperationTypeNode.QUERY) return null;
  const queryType = schema.getQueryType();
  if (!queryType) return null;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], rawVariables);
  if (coerced.errors) return null;
  const blocks: BlockRef[] = [];
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || selection.directives?.length) return null;
    const name = selection.name.value;
    if (name === "__typename") continue;
    const definition = queryType.getFields()[name];
    if (!definition || (name !== "block" && name !== "block_by_pk")) return null;
    const args = getArgumentValues(definition, selection, coerced.coerced);
    const answer = data[selection.alias?.value ?? name];
    const found =
      name === "block_by_pk"
        ? blockByHash(selection, args, answer)
        : blockList(selection, args, answer);
    if (!found) return null;
    blocks.push(...found);
  }
  return blocks.length > 0 ? blocks : null;
}

function blockByHash(
  field: FieldNode,
  args: Record<string, unknown>,
  row: unknown,
): BlockRef[] | null {
  if (!selectsUnaliased(field, "height") || typeof args.hash !== "string") return null;
  const height = isRecord(row) ? row.height : undefined;
  if (typeof height !== "number") return null;
  return [{ height, blockhash: args.hash.toLowerCase() }];
}

function blockList(
  field: FieldNode,
  args: Record<string, unknown>,
  rows: unknown,
): BlockRef[] | null {
  if (!selectsUnaliased(field, "height") || !selectsUnaliased(field, "hash")) return null;
  const heights = heightsNamed(args.where);
  if (!heights || !Array.isArray(rows) || rows.length !== heights.size) return null;
  const blocks: BlockRef[] = [];
  const seen = new Set<number>();
  for (const row of rows) {
    if (!isRecord(row)) return null;
    const { height, hash } = row;
    if (typeof height !== "number" || typeof hash !== "string") return null;
    if (!heights.has(height) || seen.has(height)) return null;
    seen.add(height);
    blocks.push({ height, blockhash: hash.toLowerCase() });
  }
  return blocks;
}

/** The heights a `where` names when height is all it filters on, as a bounded set; else null. */
function heightsNamed(where: unknown): Set<number> | null {
  if (!isRecord(where)) return null;
  const keys = Object.keys(where);
  if (keys.length !== 1 || keys[0] !== "height") return null;
  const comparison = where.height;
  if (!isRecord(comparison)) return null;
  let low = Number.NEGATIVE_INFINITY;
  let high = Number.POSITIVE_INFINITY;
  let listed: number[] | null = null;
  for (const [op, value] of Object.entries(comparison)) {
    if (op === "_in") {
      if (!Array.isArray(value) || !value.every(Number.isInteger)) return null;
      listed = listed ? listed.filter((h) => value.includes(h)) : (value as number[]);
      continue;
    }
    if (!Number.isInteger(value)) return null;
    const n = value as number;
    if (op === "_eq") listed = listed ? listed.filter((h) => h === n) : [n];
    else if (op === "_gte") low = Math.max(low, n);
    else if (op === "_gt") low = Math.max(low, n + 1);
    else if (op === "_lte") high = Math.min(high, n);
    else if (op === "_lt") high = Math.min(high, n - 1);
    else return null;
  }
  if (listed) return new Set(listed.filter((h) => h >= low && h <= high && h >= 0));
  low = Math.max(low, 0);
  if (!Number.isFinite(high) || high - low + 1 > HEIGHTS_MAX) return null;
  const heights = new Set<number>();
  for (let h = low; h <= high; h++) heights.add(h);
  return heights;
}

/** Whether the field's own selection holds `name` under its own name (so the row has it there). */
function selectsUnaliased(field: FieldNode, name: string): boolean {
  return (field.selectionSet?.selections ?? []).some(
    (s) => s.kind === Kind.FIELD && s.name.value === name && !s.alias && !s.directives?.length,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
