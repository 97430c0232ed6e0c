import type { SelectedField } from "../../protocol/hasura/check.ts";

export interface ComplexitySettings {
  /** `<type>.<field>` → weight; `default` for every other field. */
  weights: { default: number; [field: string]: number };
  /** Rows a list is priced at when neither `limit` nor a height range bounds it. */
  listSizeDefault: number;
}

/**
 * A graph query's complexity (DESIGN.md, spec §8.3): Σ over selected fields of
 * depth × weight × multiplier, where depth counts from 1 at the root, the weight is the field's
 * (config), and the multiplier is the product of the sizes of the lists that enclose the field —
 * not its own list: `block(limit: 10) { hash }` has `block` at 1 × w × 1 and `hash` at
 * 2 × w × 10. Introspection fields (`__typename`, …) cost nothing; they never reach a table.
 *
 * Not graphql-query-complexity: its estimators fold one number bottom-up, and this formula needs
 * each field's depth and the product of its ancestors' list sizes together, top-down.
 */
export function graphComplexity(
  fields: readonly SelectedField[],
  settings: ComplexitySettings,
): number {
  let total = 0;
  const visit = (field: SelectedField, multiplier: number): void => {
    if (field.introspection) return;
    const weight =
      settings.weights[`${field.parentType}.${field.name}`] ?? settings.weights.default;
    total += field.depth * weight * multiplier;
    const inner = field.list ? multiplier * listSize(field, settings.listSizeDefault) : multiplier;
    for (const child of field.children) visit(child, inner);
  };
  for (const field of fields) visit(field, 1);
  return total;
}

/**
 * How many rows a list field can return, as far as its arguments tell: its `limit`, or the size
 * of the height range its `where` pins down when that is smaller, else the configured default.
 */
export function listSize(field: SelectedField, listSizeDefault: number): number {
  const bounds: number[] = [];
  const limit = field.args.limit;
  if (typeof limit === "number") bounds.push(limit);
  const range = heightRangeSize(field.args.where);
  if (range !== undefined) bounds.push(range);
  return bounds.length > 0 ? Math.min(...bounds) : listSizeDefault;
}

type Where = { [key: string]: unknown };

/**
 * Rows a `where` can match at most, from its conditions on `height` (a unique column): `_gte`,
 * `_gt`, `_lte`, `_lt`, `_eq`, `_in`, at its top level or inside `_and` (conjuncts all hold, so
 * each one's bound holds). `_or` and `_not` bound nothing here. Undefined when unbounded.
 */
export function heightRangeSize(where: unknown): number | undefined {
  let low = Number.NEGATIVE_INFINITY;
  let high = Number.POSITIVE_INFINITY;
  let count = Number.POSITIVE_INFINITY;
  const collect = (exp: unknown): void => {
    if (typeof exp !== "object" || exp === null) return;
    const w = exp as Where;
    const h = w.height as Where | undefined;
    if (h) {
      if (typeof h._gte === "number") low = Math.max(low, h._gte);
      if (typeof h._gt === "number") low = Math.max(low, h._gt + 1);
      if (typeof h._lte === "number") high = Math.min(high, h._lte);
      if (typeof h._lt === "number") high = Math.min(high, h._lt - 1);
      if (typeof h._eq === "number") count = Math.min(count, 1);
      if (Array.isArray(h._in)) count = Math.min(count, new Set(h._in).size);
    }
    if (Array.isArray(w._and)) for (const part of w._and) collect(part);
  };
  collect(where);
  const range =
    Number.isFinite(low) && Number.isFinite(high)
      ? Math.max(0, high - low + 1)
      : Number.POSITIVE_INFINITY;
  const size = Math.min(range, count);
  return Number.isFinite(size) ? size : undefined;
}
