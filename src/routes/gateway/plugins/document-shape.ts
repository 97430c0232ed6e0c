import {
  BREAK,
  type DocumentNode,
  type FieldNode,
  type FloatValueNode,
  type FragmentDefinitionNode,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  type IntValueNode,
  isLeafType,
  Kind,
  type SelectionSetNode,
  type StringValueNode,
  TokenKind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
} from "graphql";

/**
 * A scalar literal of a document (`100`, `1.5`, `"abc"`, a block string), as the value node the
 * parser made of its token: what a scalar's parseLiteral reads.
 */
export type Literal = IntValueNode | FloatValueNode | StringValueNode;

/**
 * A document's shape: its tokens with every scalar literal's value left out (`key`), and those
 * values in order. Two documents of one shape parse to the same tree but for those values —
 * the parser reads kinds and names, never a literal's value, to build it —, so what is known of
 * one (it passed validation; a plan answers it) holds for the other once its values are checked
 * where validation reads them (see LiteralRule). Comments and whitespace are not tokens of it:
 * documents that differ only in those have one shape and no literals to check apart.
 */
export interface DocumentShape {
  key: string;
  literals: readonly Literal[];
}

const shapes = new WeakMap<DocumentNode, DocumentShape | null>();

/** A parsed document's shape (memoised), or null when it was parsed without locations. */
export function shapeOf(document: DocumentNode): DocumentShape | null {
  let shape = shapes.get(document);
  if (shape === undefined) {
    shape = readShape(document);
    shapes.set(document, shape);
  }
  return shape;
}

/** Stands for a literal's value in a shape's key: no name or punctuator holds a U+0001. */
const MARK: Partial<Record<TokenKind, string>> = {
  [TokenKind.INT]: "\u0001i",
  [TokenKind.FLOAT]: "\u0001f",
  [TokenKind.STRING]: "\u0001s",
  [TokenKind.BLOCK_STRING]: "\u0001b",
};

function readShape(document: DocumentNode): DocumentShape | null {
  const start = document.loc?.startToken;
  if (!start) return null;
  const parts: string[] = [];
  const literals: Literal[] = [];
  // The parser links every token it read, comments included, from <SOF> to <EOF>.
  for (let token = start.next; token && token.kind !== TokenKind.EOF; token = token.next) {
    const mark = MARK[token.kind];
    if (mark !== undefined) {
      parts.push(mark);
      literals.push(literalOf(token.kind, token.value));
    } else if (token.kind !== TokenKind.COMMENT) {
      // A name's value, or a punctuator (its kind is its text).
      parts.push(token.kind === TokenKind.NAME ? token.value : token.kind);
    }
  }
  return { key: parts.join(" "), literals };
}

function literalOf(kind: TokenKind, value: string): Literal {
  switch (kind) {
    case TokenKind.INT:
      return { kind: Kind.INT, value };
    case TokenKind.FLOAT:
      return { kind: Kind.FLOAT, value };
    default:
      return { kind: Kind.STRING, value, block: kind === TokenKind.BLOCK_STRING };
  }
}

/**
 * What another document of a validated document's shape must satisfy to be valid too. Of the rules
 * in force, two read literal values: ValuesOfCorrectType (checked here with the same
 * `parseLiteral`) and OverlappingFieldsCanBeMerged, which a shape with no repeated response name
 * never triggers (`open`); other shapes hold only for the values validated (`values`). Every other
 * rule reads names, kinds and structure, which the shape fixes.
 */
export interface LiteralRule {
  /** Each literal's location type, in order; undefined where none was found (never open). */
  types: readonly (GraphQLInputType | undefined)[];
  open: boolean;
  /** The validated document's literal values, for a shape that is not open. */
  values: readonly string[];
}

/** The rule of `document`'s shape; `document` must have passed validation against `schema`. */
export function literalRule(schema: GraphQLSchema, document: DocumentNode): LiteralRule | null {
  const shape = shapeOf(document);
  if (!shape) return null;
  const values = shape.literals.map((l) => l.value);
  if (shape.literals.length === 0) return { types: [], open: true, values };
  // Each literal value node's location type, by where it starts: the tokens' order is the
  // shape's, and a literal's node starts where its token does.
  const byStart = new Map<number, GraphQLInputType | undefined>();
  const typeInfo = new TypeInfo(schema);
  const note = (node: { loc?: { start: number } }) => {
    if (node.loc) byStart.set(node.loc.start, typeInfo.getInputType() ?? undefined);
  };
  visit(
    document,
    visitWithTypeInfo(typeInfo, { IntValue: note, FloatValue: note, StringValue: note }),
  );
  const types: (GraphQLInputType | undefined)[] = [];
  for (let token = document.loc?.startToken ?? null; token; token = token.next) {
    if (MARK[token.kind] !== undefined) types.push(byStart.get(token.start));
  }
  const typed = types.length === shape.literals.length && types.every((t) => t !== undefined);
  return { types, open: typed && !repeatsResponseName(document), values };
}

/**
 * Whether a document of a rule's shape passes validation as the rule's document did: each
 * literal parses as its location's scalar (as ValuesOfCorrectType asks), and, for a shape that
 * is not open, every value is the one validated.
 */
export function literalsFit(rule: LiteralRule, shape: DocumentShape): boolean {
  const { literals } = shape;
  if (literals.length !== rule.types.length) return false;
  if (!rule.open) return literals.every((l, i) => l.value === rule.values[i]);
  for (let i = 0; i < literals.length; i++) {
    const type = getNamedType(rule.types[i]);
    if (!type || !isLeafType(type)) return false;
    try {
      if (type.parseLiteral(literals[i] as Literal, undefined) === undefined) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/**
 * Whether a response name occurs twice in any selection set of the document, counting the
 * fields its fragment spreads and inline fragments bring in (as field collection merges them).
 */
function repeatsResponseName(document: DocumentNode): boolean {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) {
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  }
  const names = (set: SelectionSetNode, into: Set<string>, via: Set<string>): boolean => {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = (selection as FieldNode).alias?.value ?? selection.name.value;
        if (into.has(name)) return true;
        into.add(name);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (names(selection.selectionSet, into, via)) return true;
      } else {
        const fragment = fragments.get(selection.name.value);
        // A cycle or an unknown fragment would not have validated; a repeated spread repeats.
        if (!fragment || via.has(fragment.name.value)) return true;
        via.add(fragment.name.value);
        const repeats = names(fragment.selectionSet, into, via);
        via.delete(fragment.name.value);
        if (repeats) return true;
      }
    }
    return false;
  };
  let repeats = false;
  visit(document, {
    SelectionSet(node) {
      if (names(node, new Set(), new Set())) {
        repeats = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return repeats;
}
