import { type DocumentNode, Kind, type SelectionSetNode } from "graphql";
import { DOCUMENT_NESTING_MAX, type NestingProblem } from "./nesting.ts";

/**
 * How deep a parsed document's selections nest once fragments are spread into one another: the
 * bound the lexical scan (nesting.ts) cannot see, since `fragment F0 on Query { ...F1 }` nests
 * nothing in the text. Validation follows spreads by recursion (graphql-js's fragment cycle rule,
 * graphql-armor's depth count, our walker's field collection), and a chain of 2,500 fragments
 * overflowed armor's. Checked after parsing, before validation, with stacks of its own: linear in
 * the document, each definition's selections read once and each spread followed once.
 */

/** A definition's selections: how deep they nest, and where each spread sits. */
interface Reach {
  own: number;
  spreads: { name: string; depth: number }[];
}

/** The deepest nesting past `max` (selection sets, spreads included), or null. */
export function selectionNesting(
  document: DocumentNode,
  max: number = DOCUMENT_NESTING_MAX,
): NestingProblem | null {
  const fragments = new Map<string, Reach>();
  const roots: Reach[] = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, reachOf(definition.selectionSet));
    } else if (definition.kind === Kind.OPERATION_DEFINITION) {
      roots.push(reachOf(definition.selectionSet));
    }
  }
  // Walkers follow a spread into a fragment at most once on their way down (each keeps the
  // fragments it is in), so no path is deeper than every definition's depth added up: most
  // documents are known to be within the bound from that sum alone.
  let sum = 0;
  for (const reach of [...roots, ...fragments.values()]) sum += reach.own;
  if (sum <= max) return null;
  const depths = fragmentDepths(fragments);
  if (depths === null) return problem(max);
  for (const reach of [...roots, ...fragments.values()]) {
    let deepest = reach.own;
    for (const s of reach.spreads) deepest = Math.max(deepest, s.depth + (depths.get(s.name) ?? 0));
    if (deepest > max) return problem(max);
  }
  return null;
}

function problem(max: number): NestingProblem {
  return {
    kind: "document",
    max,
    message: `the document nests selections, fragments spread in, more than ${max} deep; the limit is ${max}`,
  };
}

/** One definition's selection sets walked with a stack: their depth and their spreads. */
function reachOf(root: SelectionSetNode): Reach {
  const reach: Reach = { own: 0, spreads: [] };
  const pending: { set: SelectionSetNode; depth: number }[] = [{ set: root, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    reach.own = Math.max(reach.own, next.depth);
    for (const selection of next.set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        reach.spreads.push({ name: selection.name.value, depth: next.depth });
      } else if (selection.selectionSet) {
        pending.push({ set: selection.selectionSet, depth: next.depth + 1 });
      }
    }
  }
  return reach;
}

/**
 * Each fragment's depth with its spreads followed, by a depth-first walk with a stack of its own
 * (each fragment finished once, each spread looked at once); null when the spreads form a cycle,
 * which spreads a fragment into itself without end (only a document past the sum's bound gets
 * here: a small cycle is left to validation, which refuses it in its own words).
 */
function fragmentDepths(fragments: Map<string, Reach>): Map<string, number> | null {
  const depths = new Map<string, number>();
  const walking = new Set<string>();
  for (const start of fragments.keys()) {
    if (depths.has(start)) continue;
    const stack: { name: string; reach: Reach; next: number }[] = [];
    const enter = (name: string) => {
      walking.add(name);
      stack.push({ name, reach: fragments.get(name) as Reach, next: 0 });
    };
    enter(start);
    for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
      const spread = top.reach.spreads[top.next++];
      if (spread) {
        if (walking.has(spread.name)) return null;
        if (fragments.has(spread.name) && !depths.has(spread.name)) enter(spread.name);
        continue;
      }
      let depth = top.reach.own;
      for (const s of top.reach.spreads) {
        depth = Math.max(depth, s.depth + (depths.get(s.name) ?? 0));
      }
      depths.set(top.name, depth);
      walking.delete(top.name);
      stack.pop();
    }
  }
  return depths;
}
