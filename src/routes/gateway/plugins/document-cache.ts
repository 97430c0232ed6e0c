import { type DocumentNode, type GraphQLSchema, parse, type ValidationRule } from "graphql";
import type { Plugin } from "graphql-yoga";
import { documentNesting } from "../../../protocol/graphql/nesting.ts";
import { selectionNesting } from "../../../protocol/graphql/spread-nesting.ts";
import { ByteLru, type ByteLruStats } from "../../../util/byte-lru.ts";
import { type LiteralRule, literalRule, literalsFit, shapeOf } from "./document-shape.ts";

/**
 * What a parsed document holds per token, in bytes: its share of AST nodes, Location objects and
 * the lexer's Token (graphql-js keeps every token of a document alive through the Locations'
 * linked list). Measured on graphql 16: 290–320 bytes per token for queries of the schema.
 */
const TOKEN_BYTES = 320;

/** A document whose cost is over this share of the budget is parsed each time, never kept. */
const ENTRY_SHARE_MAX = 64;

/** Bytes a parsed document and its text (the key) hold in memory, estimated. */
export function documentBytes(text: string, document: DocumentNode): number {
  let tokens = 0;
  for (let t = document.loc?.startToken ?? null; t; t = t.next) tokens += 1;
  return 2 * text.length + TOKEN_BYTES * tokens;
}

interface Entry {
  document: DocumentNode;
  bytes: number;
}

/**
 * A shape (document-shape.ts) that passed validation, by rule set and shape key: the document
 * that passed until a second document of its shape asks, then only the rule read off it.
 */
interface ShapeEntry {
  schema: GraphQLSchema;
  document: DocumentNode | null;
  rule: LiteralRule | null;
  /** What it holds: its key, and the document or the rule read off it. */
  bytes: number;
}

/** The share of the budget the validated shapes may take (their documents are mostly shared). */
const SHAPES_SHARE = 4;

/**
 * Parsed documents by their text, bounded in bytes (`graphql.documentCacheBytesMax`), and the
 * documents that passed validation. In place of Yoga's parser and validation cache, which is
 * bounded by count only and keeps parse and validation errors, whose stacks hold whole requests
 * (a hostile client fills memory with them: bench/fuzz.ts). Here only successful validations are
 * remembered, by document identity; a new text of a validated shape skips the rules once its
 * literals are checked (document-shape.ts). The cost memo relies on one DocumentNode per text.
 */
export class DocumentCache {
  private readonly lru: ByteLru<Entry>;
  private readonly entryBytesMax: number;
  /** Rule set (names) → schema → documents that passed it. */
  private readonly valid = new Map<string, WeakMap<GraphQLSchema, WeakSet<DocumentNode>>>();
  /** Validated shapes, by rule set (names) and shape key. */
  private readonly shapes: ByteLru<ShapeEntry>;
  /**
   * Validations skipped because the document had passed, or one of its shape had and its
   * literals fit (`byShape`, counted in `skipped` too), and validations run.
   */
  readonly validations = { skipped: 0, byShape: 0, run: 0 };

  constructor(readonly bytesMax: number) {
    this.lru = new ByteLru<Entry>(bytesMax, (e) => e.bytes);
    this.shapes = new ByteLru<ShapeEntry>(bytesMax / SHAPES_SHARE, (e) => e.bytes);
    this.entryBytesMax = bytesMax / ENTRY_SHARE_MAX;
  }

  get stats(): Readonly<ByteLruStats> {
    return this.lru.stats;
  }

  document(text: string): DocumentNode | undefined {
    return this.bytesMax > 0 ? this.lru.get(text)?.document : undefined;
  }

  /**
   * `text`'s document: the one kept, or parsed as Yoga parses it (graphql-armor's token limit is
   * graphql-js's own count: tokens but <EOF>, comments aside) and kept; null when it does not
   * parse or is over the limit (tokens, or nesting: ../../gql/nesting.ts, spread-nesting.ts), for
   * Yoga to parse and refuse as always.
   */
  parsed(text: string, tokensMax: number): DocumentNode | null {
    const kept = this.document(text);
    if (kept) return kept;
    if (documentNesting(text)) return null;
    let document: DocumentNode;
    try {
      document = parse(text, { maxTokens: tokensMax });
    } catch {
      return null;
    }
    if (selectionNesting(document)) return null;
    this.keep(text, document);
    return document;
  }

  keep(text: string, document: DocumentNode): void {
    if (this.bytesMax === 0) return;
    const bytes = documentBytes(text, document);
    if (bytes <= this.entryBytesMax) this.lru.set(text, { document, bytes });
  }

  passed(schema: GraphQLSchema, key: string, document: DocumentNode): boolean {
    let known = this.valid.get(key)?.get(schema)?.has(document) ?? false;
    if (!known && this.passedByShape(schema, key, document)) {
      this.markPassed(schema, key, document);
      this.validations.byShape += 1;
      known = true;
    }
    if (known) this.validations.skipped += 1;
    else this.validations.run += 1;
    return known;
  }

  /** Whether a document of `document`'s shape passed these rules, and its literals fit. */
  private passedByShape(schema: GraphQLSchema, key: string, document: DocumentNode): boolean {
    const found = shapeKeyOf(key, document);
    const entry = found && this.shapes.get(found.at);
    if (!found || !entry || entry.schema !== schema) return false;
    if (!entry.rule && entry.document) {
      const passed = entry.document;
      this.shapes.grow(found.at, entry, () => {
        entry.rule = literalRule(schema, passed);
        entry.document = null;
        entry.bytes = 2 * found.at.length + 64 + 8 * (entry.rule?.types.length ?? 0);
      });
    }
    return entry.rule !== null && literalsFit(entry.rule, found.shape);
  }

  markPassed(schema: GraphQLSchema, key: string, document: DocumentNode) {
    let bySchema = this.valid.get(key);
    if (!bySchema) {
      // The rule set is the same for every request of one Yoga; a handful at most.
      if (this.valid.size >= 16) this.valid.clear();
      bySchema = new WeakMap();
      this.valid.set(key, bySchema);
    }
    let documents = bySchema.get(schema);
    if (!documents) {
      documents = new WeakSet();
      bySchema.set(schema, documents);
    }
    documents.add(document);
    const found = this.shapes.bytesMax > 0 ? shapeKeyOf(key, document) : null;
    if (found && !this.shapes.has(found.at)) {
      const bytes = 2 * found.at.length + documentBytes("", document);
      this.shapes.set(found.at, { schema, document, rule: null, bytes });
    }
  }
}

/** Where a document's shape is kept for a rule set (named by `key`), with the shape. */
function shapeKeyOf(key: string, document: DocumentNode) {
  const shape = shapeOf(document);
  return shape && { shape, at: `${key}\u0000${shape.key}` };
}

const rulesKey = (rules: readonly ValidationRule[]) => rules.map((r) => r.name).join(",");

/** The cache as an Envelop plugin: first in the array, so a hit skips every parser after it. */
export function documentCachePlugin(cache: DocumentCache): Plugin {
  return {
    onParse({ params, setParsedDocument }) {
      const text = typeof params.source === "string" ? params.source : params.source.body;
      const cached = cache.document(text);
      if (cached) {
        setParsedDocument(cached);
        return;
      }
      return ({ result }) => {
        if (result && !(result instanceof Error)) cache.keep(text, result as DocumentNode);
      };
    },
    onValidate({ params: { schema, documentAST, rules }, setResult }) {
      // The rule set as it stands now, before the plugins after this one add theirs (armor's,
      // through addValidationRule, which mutates this very array): read after validation it would
      // name more rules than the next request's look does, and the cache would never hit. The
      // rules those plugins add are the same on every request of one Yoga.
      const key = rulesKey(rules ?? []);
      if (cache.passed(schema, key, documentAST)) {
        setResult([]);
        return;
      }
      return ({ result }) => {
        if (result.length === 0) cache.markPassed(schema, key, documentAST);
      };
    },
  };
}
