import {
  type ASTNode,
  type DocumentNode,
  type EnumValueNode,
  Kind,
  print,
  TokenKind,
  visit,
} from "graphql";
import type { DocumentShape, Literal } from "../plugins/document-shape.ts";

/**
 * The indexer's query text for every document of one shape (plugins/document-shape.ts): the text
 * printed for the first, cut where its literals' values are, each cut naming which of the shape's
 * literals goes there. Documents of a shape differ in those values alone, so filling the cuts with
 * another's values writes its query without walking and printing its tree again.
 */
export interface QueryTemplate {
  parts: readonly string[];
  /** The shape's literal (by its place in the shape) written after each part but the last. */
  order: readonly number[];
}

/** U+0001 is never in printed text (a string's control characters are printed escaped). */
const MARK = "\u0001";

const LITERAL_TOKENS: ReadonlySet<TokenKind> = new Set([
  TokenKind.INT,
  TokenKind.FLOAT,
  TokenKind.STRING,
  TokenKind.BLOCK_STRING,
]);

/**
 * graphql-js prints a field's arguments on lines of their own once the field's line would pass
 * this length; its only layout that depends on the values printed, but for block strings'
 * (multi-line) values, with which no template is made.
 */
const LINE_MAX = 80;

/**
 * The template of `printed`, the query text of `sent` (`document` with its type conditions
 * renamed: its literal nodes are `document`'s), or null when it cannot be made: a block string,
 * arguments printed on lines of their own, a literal node whose token is not found, or a text the
 * filling does not give back exactly.
 */
export function queryTemplate(
  document: DocumentNode,
  sent: DocumentNode,
  shape: DocumentShape,
  printed: string,
): QueryTemplate | null {
  // Each literal's place in the shape, by where its token starts: a value node starts there too.
  const places = new Map<number, number>();
  for (let token = document.loc?.startToken ?? null; token; token = token.next) {
    if (LITERAL_TOKENS.has(token.kind)) places.set(token.start, places.size);
  }
  if (places.size !== shape.literals.length || printed.includes(MARK)) return null;
  if (printed.includes("(\n") || shape.literals.some((l) => l.kind === Kind.STRING && l.block)) {
    return null;
  }
  let unplaced = false;
  const mark = (node: ASTNode): EnumValueNode => {
    const place = node.loc ? places.get(node.loc.start) : undefined;
    if (place === undefined) unplaced = true;
    return { kind: Kind.ENUM, value: `${MARK}${place ?? -1}${MARK}` };
  };
  const marked = print(visit(sent, { IntValue: mark, FloatValue: mark, StringValue: mark }));
  if (unplaced) return null;
  const cut = marked.split(MARK);
  const parts = cut.filter((_, i) => i % 2 === 0);
  const order = cut.filter((_, i) => i % 2 === 1).map(Number);
  const template = { parts, order };
  return fillTemplate(template, shape.literals) === printed ? template : null;
}

/**
 * The query text of a document of the template's shape, from its literals; null when a line
 * would pass LINE_MAX, where graphql-js may lay the arguments out otherwise.
 */
export function fillTemplate(template: QueryTemplate, literals: readonly Literal[]): string | null {
  const { parts, order } = template;
  let text = parts[0] ?? "";
  for (let i = 0; i < order.length; i++) {
    const literal = literals[order[i] as number] as Literal;
    text += (literal.kind === Kind.STRING ? print(literal) : literal.value) + parts[i + 1];
  }
  return linesFit(text) ? text : null;
}

/** Whether every line of `text`, its indentation aside, is at most LINE_MAX long. */
function linesFit(text: string): boolean {
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    let first = start;
    while (text.charCodeAt(first) === 32) first++;
    if (end - first > LINE_MAX) return false;
    start = end + 1;
  }
  return true;
}
