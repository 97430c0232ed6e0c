/**
 * Hasura's row semantics over in-memory rows: `where` boolean expressions, `order_by`, `offset`,
 * `limit`. As in Hasura (over SQL): sibling keys are an implicit AND, `{}` is true, `_and: []` is
 * true and `_or: []` false, a NULL column never satisfies a comparison (`_eq`, `_neq`, `_in`,
 * `_nin`, ranges) and only `_is_null` sees it; `asc` puts nulls last and `desc` first. Strings
 * compare by code unit, which is PostgreSQL's "C" collation for the lowercase hex we hold.
 */

export type Scalar = string | number | boolean | null;
export type Row = Record<string, unknown>;

/** Relationship filters (`block.transactions` in `where`): the related rows of a row. */
export type Relationships = Record<string, (row: Row) => Row[]>;

export type BoolExp = { [key: string]: unknown };

export function matches(exp: BoolExp, row: Row, relationships: Relationships = {}): boolean {
  for (const [key, value] of Object.entries(exp)) {
    if (value === undefined) continue;
    if (key === "_and") {
      if (!(value as BoolExp[]).every((e) => matches(e, row, relationships))) return false;
    } else if (key === "_or") {
      if (!(value as BoolExp[]).some((e) => matches(e, row, relationships))) return false;
    } else if (key === "_not") {
      if (matches(value as BoolExp, row, relationships)) return false;
    } else if (relationships[key]) {
      // An array relationship in `where` holds when some related row matches (SQL EXISTS).
      const related = relationships[key](row);
      if (!related.some((r) => matches(value as BoolExp, r))) return false;
    } else if (!compare(row[key] as Scalar, value as Record<string, unknown>)) {
      return false;
    }
  }
  return true;
}

function compare(column: Scalar, ops: Record<string, unknown>): boolean {
  for (const [op, operand] of Object.entries(ops)) {
    if (operand === undefined) continue;
    if (op === "_is_null") {
      if ((column === null) !== operand) return false;
      continue;
    }
    // SQL: a comparison with NULL is unknown, and unknown filters the row out.
    if (column === null) return false;
    const v = operand as Scalar;
    switch (op) {
      case "_eq":
        if (column !== v) return false;
        break;
      case "_neq":
        if (column === v) return false;
        break;
      case "_gt":
        if (!(v !== null && column > v)) return false;
        break;
      case "_gte":
        if (!(v !== null && column >= v)) return false;
        break;
      case "_lt":
        if (!(v !== null && column < v)) return false;
        break;
      case "_lte":
        if (!(v !== null && column <= v)) return false;
        break;
      case "_in":
        if (!(operand as Scalar[]).includes(column)) return false;
        break;
      case "_nin":
        if ((operand as Scalar[]).includes(column)) return false;
        break;
      default:
        throw new Error(`unknown comparison operator ${op}`);
    }
  }
  return true;
}

export type OrderBy = Record<string, string>[];

/** Sorts a copy by `order_by` (a list of objects); a stable sort keeps the default order for ties. */
export function ordered<T extends Row>(rows: readonly T[], orderBy: OrderBy | undefined): T[] {
  const keys = (orderBy ?? []).flatMap((o) =>
    Object.entries(o).filter(([, dir]) => dir !== undefined),
  );
  if (keys.length === 0) return [...rows];
  return [...rows].sort((a, b) => {
    for (const [column, dir] of keys) {
      const c = compareColumn(a[column] as Scalar, b[column] as Scalar, dir);
      if (c !== 0) return c;
    }
    return 0;
  });
}

function compareColumn(a: Scalar, b: Scalar, dir: string): number {
  const desc = dir.startsWith("desc");
  const nullsFirst = dir.endsWith("nulls_first") || dir === "desc";
  if (a === null || b === null) {
    if (a === b) return 0;
    return (a === null) === nullsFirst ? -1 : 1;
  }
  const c = a < b ? -1 : a > b ? 1 : 0;
  return desc ? -c : c;
}

export interface SelectArgs {
  where?: BoolExp;
  order_by?: OrderBy;
  limit?: number;
  offset?: number;
}

/** Hasura's select: filter, order, then skip `offset` and keep `limit` rows. */
export function select<T extends Row>(
  rows: readonly T[],
  args: SelectArgs,
  relationships: Relationships = {},
): T[] {
  const filtered = args.where ? rows.filter((r) => matches(args.where!, r, relationships)) : rows;
  const sorted = ordered(filtered, args.order_by);
  const start = args.offset ?? 0;
  return sorted.slice(start, args.limit === undefined ? undefined : start + args.limit);
}
