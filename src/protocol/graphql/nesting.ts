/**
 * Bounds on how deep a client's GraphQL input nests, checked before any parser or walk sees it.
 * graphql-js parses, coerces and prints values by recursion, and so do our walks of them (Hasura's
 * checks, pricing, delegation): 2,000 nested `_and` (16 KB, under every token limit) overflowed
 * the stack. Both checks are one pass without recursion, linear in the input, and stop at the
 * first level past the bound.
 */

/**
 * Lists and input objects inside one another in one argument's value (a literal, or a variable's
 * value): a `where` of real use nests a few `_and`/`_or`/`_not` levels, each two deep.
 */
export const INPUT_DEPTH_MAX = 64;

/**
 * `{`, `[` and `(` inside one another anywhere in a document: selection sets (the route's own
 * depth limit, at most 100, is checked after parsing), an argument list, and its values.
 */
export const DOCUMENT_NESTING_MAX = 256;

export interface NestingLimits {
  inputDepthMax: number;
  documentNestingMax: number;
}

const DEFAULT_LIMITS: NestingLimits = {
  inputDepthMax: INPUT_DEPTH_MAX,
  documentNestingMax: DOCUMENT_NESTING_MAX,
};

/** What is nested too deep, and the bound it passed, in words a client can act on. */
export interface NestingProblem {
  kind: "input" | "document";
  max: number;
  message: string;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const HASH = 0x23;
const LF = 0x0a;
const CR = 0x0d;

/**
 * Whether a document nests past the limits, read as graphql-js's lexer reads it: strings, block
 * strings and comments skipped (brackets in them are text). A value's depth counts the `[` and `{`
 * opened since the innermost `(`: arguments, directive arguments and variable definitions (their
 * list types and default values) are the only places values occur. A malformed document is
 * counted up to where the parser would stop, which is all the parser would recurse into.
 */
export function documentNesting(
  text: string,
  limits: NestingLimits = DEFAULT_LIMITS,
): NestingProblem | null {
  let depth = 0;
  let parens = 0;
  let values = 0;
  // The value depth of each enclosing `(`, restored when it closes.
  const outer: number[] = [];
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
    } else if (c === HASH) {
      while (i + 1 < n && text.charCodeAt(i + 1) !== LF && text.charCodeAt(i + 1) !== CR) i++;
    } else if (c === 0x28 || c === 0x5b || c === 0x7b) {
      if (++depth > limits.documentNestingMax) return documentProblem(limits.documentNestingMax);
      if (c === 0x28) {
        outer.push(values);
        parens++;
        values = 0;
      } else if (parens > 0 && ++values > limits.inputDepthMax) {
        return inputProblem(limits.inputDepthMax);
      }
    } else if (c === 0x29 || c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
      if (c === 0x29) {
        if (parens > 0) {
          parens--;
          values = outer.pop() ?? 0;
        }
      } else if (values > 0) {
        values--;
      }
    }
  }
  return null;
}

/** Where the string opened at `i` ends (its last character), or the text's end if it does not. */
function stringEnd(text: string, i: number): number {
  const n = text.length;
  if (text.startsWith('"""', i)) {
    for (let j = i + 3; j < n; j++) {
      const c = text.charCodeAt(j);
      if (c === BACKSLASH && text.startsWith('"""', j + 1)) j += 3;
      else if (c === QUOTE && text.startsWith('"""', j)) return j + 2;
    }
    return n;
  }
  for (let j = i + 1; j < n; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j;
  }
  return n;
}

/**
 * Whether a variable's value nests more lists and objects than `max` (a scalar is 0, `[]` 1), by
 * a walk with a stack of its own. Variables come parsed from JSON: arrays, plain objects, scalars.
 */
export function valueDepthOver(value: unknown, max: number): boolean {
  if (typeof value !== "object" || value === null) return false;
  const pending: { value: object; depth: number }[] = [{ value, depth: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.depth > max) return true;
    const items = Array.isArray(next.value) ? next.value : Object.values(next.value);
    for (const item of items) {
      if (typeof item === "object" && item !== null) {
        pending.push({ value: item, depth: next.depth + 1 });
      }
    }
  }
  return false;
}

/** The first variable nested past the limit, with the problem; null when none is. */
export function variablesNesting(
  variables: unknown,
  max: number = INPUT_DEPTH_MAX,
): { name: string; problem: NestingProblem } | null {
  if (typeof variables !== "object" || variables === null || Array.isArray(variables)) return null;
  for (const [name, value] of Object.entries(variables)) {
    if (valueDepthOver(value, max)) {
      return {
        name,
        problem: {
          kind: "input",
          max,
          message: `variable $${name} nests lists and input objects more than ${max} deep; the limit is ${max}`,
        },
      };
    }
  }
  return null;
}

function inputProblem(max: number): NestingProblem {
  return {
    kind: "input",
    max,
    message: `an argument's value nests lists and input objects more than ${max} deep; the limit is ${max}`,
  };
}

function documentProblem(max: number): NestingProblem {
  return {
    kind: "document",
    max,
    message: `the document nests braces, brackets and parentheses more than ${max} deep; the limit is ${max}`,
  };
}
