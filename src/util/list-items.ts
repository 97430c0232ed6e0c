/** A list inside argument values longer than allowed: where it is and how many items it holds. */
export interface OverlongList {
  /** The list's place under the arguments: `where.height._in`, `where._or[1].hash._in`, `[0]`. */
  path: string;
  /** Its items, with those of the lists inside them. */
  items: number;
}

/**
 * The first list in argument values (GraphQL's coerced arguments, variables already substituted,
 * so a list given as a variable counts as one written in the document; or a JSON-RPC call's
 * params) that holds more than `itemsMax` items; null when every list is within it. The items of
 * lists inside a list's items count as its own (`_or: [{height: {_in: [...]}}, ...]`), so nesting
 * cannot multiply the bound. The outermost value itself is not counted when it is a list (a
 * JSON-RPC call's positional params: their number is the method's to check).
 */
export function overlongList(args: unknown, itemsMax: number): OverlongList | null {
  let found: OverlongList | null = null;
  /** The items of the lists in `value` (its own when it is one); stops at the first too long. */
  const items = (value: unknown, path: string): number => {
    if (found || typeof value !== "object" || value === null) return 0;
    if (Array.isArray(value)) {
      let count = value.length;
      for (const [i, item] of value.entries()) count += items(item, `${path}[${i}]`);
      if (count > itemsMax && !found) found = { path, items: count };
      return count;
    }
    let count = 0;
    for (const [key, inner] of Object.entries(value)) {
      count += items(inner, path ? `${path}.${key}` : key);
    }
    return count;
  };
  if (!Array.isArray(args)) items(args, "");
  else for (const [i, item] of args.entries()) items(item, `[${i}]`);
  return found;
}
