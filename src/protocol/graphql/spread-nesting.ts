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

/**
 * Every definition's selections, numbered: fragments first (by name, a later one of a name
 * replacing the earlier, as a Map would), then operations. Flat arrays, not an object per
 * definition and spread: a document of tens of thousands of fragments is read in time linear in
 * it, not in the collections of a heap grown by it.
 */
interface Reaches {
  /** How deep each definition's own selection sets nest. */
  own: number[];
  /** Definition i's spreads are first[i] up to first[i + 1]: the fragment each names (-1: none
   * of that name) and the depth it sits at. */
  first: number[];
  to: number[];
  at: number[];
  fragments: number;
}

/** The deepest nesting past `max` (selection sets, spreads included), or null. */
export function selectionNesting(
  document: DocumentNode,
  max: number = DOCUMENT_NESTING_MAX,
): NestingProblem | null {
  const reaches = reachesOf(document);
  // Walkers follow a spread into a fragment at most once on their way down (each keeps the
  // fragments it is in), so no path is deeper than every definition's depth added up: most
  // documents are known to be within the bound from that sum alone.
  let sum = 0;
  for (const own of reaches.own) sum += own;
  if (sum <= max) return null;
  const depths = fragmentDepths(reaches);
  if (depths === null) return problem(max);
  for (let d = 0; d < reaches.own.length; d++) {
    if (deepestOf(reaches, depths, d) > max) return problem(max);
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

function reachesOf(document: DocumentNode): Reaches {
  const index = new Map<string, number>();
  const sets: SelectionSetNode[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.FRAGMENT_DEFINITION) continue;
    const known = index.get(definition.name.value);
    if (known === undefined) index.set(definition.name.value, sets.length);
    sets[known ?? sets.length] = definition.selectionSet;
  }
  const fragments = sets.length;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) sets.push(definition.selectionSet);
  }
  const reaches: Reaches = { own: [], first: [], to: [], at: [], fragments };
  const stack: SelectionSetNode[] = [];
  const depths: number[] = [];
  for (const root of sets) {
    reaches.first.push(reaches.to.length);
    let own = 0;
    stack.push(root);
    depths.push(1);
    for (let set = stack.pop(); set !== undefined; set = stack.pop()) {
      const depth = depths.pop() as number;
      own = Math.max(own, depth);
      for (const selection of set.selections) {
        if (selection.kind === Kind.FRAGMENT_SPREAD) {
          reaches.to.push(index.get(selection.name.value) ?? -1);
          reaches.at.push(depth);
        } else if (selection.selectionSet) {
          stack.push(selection.selectionSet);
          depths.push(depth + 1);
        }
      }
    }
    reaches.own.push(own);
  }
  reaches.first.push(reaches.to.length);
  return reaches;
}

/** Definition d's depth with its spreads' fragments at the depths found for them (none: 0). */
function deepestOf(reaches: Reaches, depths: Int32Array, d: number): number {
  let deepest = reaches.own[d] as number;
  for (let k = reaches.first[d] as number; k < (reaches.first[d + 1] as number); k++) {
    const to = reaches.to[k] as number;
    deepest = Math.max(deepest, (reaches.at[k] as number) + (to < 0 ? 0 : (depths[to] as number)));
  }
  return deepest;
}

/**
 * Each fragment's depth with its spreads followed, by a depth-first walk with a stack of its own
 * (each fragment finished once, each spread looked at once); null when the spreads form a cycle,
 * which spreads a fragment into itself without end (only a document past the sum's bound gets
 * here: a small cycle is left to validation, which refuses it in its own words).
 */
function fragmentDepths(reaches: Reaches): Int32Array | null {
  const depths = new Int32Array(reaches.fragments);
  const state = new Uint8Array(reaches.fragments); // 0 not seen, 1 being walked, 2 done
  const walk: number[] = [];
  const next: number[] = [];
  for (let start = 0; start < reaches.fragments; start++) {
    if (state[start] !== 0) continue;
    state[start] = 1;
    walk.push(start);
    next.push(reaches.first[start] as number);
    while (walk.length > 0) {
      const top = walk.length - 1;
      const f = walk[top] as number;
      const k = next[top] as number;
      if (k < (reaches.first[f + 1] as number)) {
        next[top] = k + 1;
        const to = reaches.to[k] as number;
        if (to < 0 || state[to] === 2) continue;
        if (state[to] === 1) return null;
        state[to] = 1;
        walk.push(to);
        next.push(reaches.first[to] as number);
        continue;
      }
      depths[f] = deepestOf(reaches, depths, f);
      state[f] = 2;
      walk.pop();
      next.pop();
    }
  }
  return depths;
}
