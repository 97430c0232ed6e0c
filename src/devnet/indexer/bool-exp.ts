/**
 * Hasura's row semantics over in-memory rows: `where` boolean expressions, `order_by`, `offset`,
 * `limit`. As in Hasura (over SQL): sibling keys are an implicit AND, `{}` is true, `_and: []` is
 * true and `_or: []` false, a NULL column never satisfies a comparison (`_eq`, `_neq`, `_in`,
 * `_nin`, ranges) and only `_is_null` sees it; `asc` puts nulls last and `desc` first. Strings
 * compare by code unit, which is PostgreSQL's "C" collation for the lowercase hex we hold. Truth
 * is SQL's three-valued logic, so `_not: {note: {_eq: "a"}}` does not match a NULL note either.
 */

export type Scalar = string | number | boolean | null;
export type Row = Record<string, unknown>;

/** Relationship filters (`block.transactions` in `where`): the related rows of a row. */
export type Relationships = Record<string, (row: Row) => Row[]>;

export type BoolExp = { [key: string]: unknown };

/** SQL's three truth values: a comparison with NULL is unknown, and only true keeps a row. */
type Truth = boolean | null;

export function matches(exp: BoolExp, row: Row, relationships: Relationships = {}): boolean {
  return truth(exp, row, relationships) === true;
}

function and(values: Truth[]): Truth {
  if (values.includes(false)) return false;
  return values.includes(null) ? null : true;
}

function truth(exp: BoolExp, row: Row, relationships: Relationships): Truth {
  const parts: Truth[] = [];
  for (const [key, value] of Object.entries(exp)) {
    if (value === undefined) continue;
    if (key === "_and") {
      parts.push(and((value as BoolExp[]).map((e) => truth(e, row, relationships))));
    } else if (key === "_or") {
      const each = (value as BoolExp[]).map((e) => truth(e, row, relationships));
      parts.push(each.includes(true) ? true : each.includes(null) ? null : false);
    } else if (key === "_not") {
      const inner = truth(value as BoolExp, row, relationships);
      parts.push(inner === null ? null : !inner);
    } else if (relationships[key]) {
      // An array relationship holds when some related row matches (SQL EXISTS: never unknown).
      parts.push(relationships[key](row).some((r) => matches(value as BoolExp, r)));
    } else {
      parts.push(compare(row[key] as Scalar, value as Record<string, unknown>));
    }
  }
  return and(parts);
}

function compare(column: Scalar, ops: Record<string, unknown>): Truth {
  const parts: Truth[] = [];
  for (const [op, operand] of Object.entries(ops)) {
    if (operand === undefined) continue;
    if (op === "_is_null") {
      parts.push((column === null) === operand);
      continue;
    }
    // SQL: any comparison with NULL is unknown.
    if (column === null || operand === null) {
      parts.push(null);
      continue;
    }
    const v = operand as Scalar & {};
    switch (op) {
      case "_eq":
        parts.push(column === v);
        break;
      case "_neq":
        parts.push(column !== v);
        break;
      case "_gt":
        parts.push(column > v);
        break;
      case "_gte":
        parts.push(column >= v);
        break;
      case "_lt":
        parts.push(column < v);
        break;
      case "_lte":
        parts.push(column <= v);
        break;
      case "_in":
        parts.push((operand as Scalar[]).includes(column));
        break;
      case "_nin":
        parts.push(!(operand as Scalar[]).includes(column));
        break;
      default:
        throw new Error(`unknown comparison operator ${op}`);
    }
  }
  return and(parts);
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
