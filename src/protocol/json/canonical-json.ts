/**
 * Bitcoin Core's answer to a JSON-RPC batch, split into its items without parsing their results,
 * so the node route passes each result's text on as Core sent it. Only the canonical form that
 * parsing and writing again would reproduce is accepted (compact, no escapes JSON.stringify writes
 * differently, no keys re-rendering would move, strict numbers); anything else returns null and
 * the caller parses the whole answer as before.
 */

import { LosslessNumber } from "lossless-json";
import type { Json } from "./json.ts";

/** One item of the batch: the raw text of its members (undefined when absent). */
export interface ScannedItem {
  result: string | undefined;
  /** When the result is an object: where its members that are not objects or arrays lie in the
   * result's text, found while scanning it (scalarsOfSpans reads them). */
  scalars?: ScalarSpan[];
  error: string | undefined;
  id: string | undefined;
}

/** Deeper than this, the scanner gives up (the full parse decides, as before). */
const DEPTH_MAX = 256;

class NotCanonical extends Error {}
const NOT_CANONICAL = new NotCanonical();

/** Characters a string holds as they are: no quote, backslash, control character or surrogate. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const PLAIN = /[^"\\\u0000-\u001f\ud800-\udfff]*/y;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The items of a batch answer in canonical form, or null: parse the text instead. */
export function scanBatchAnswer(text: string): ScannedItem[] | null {
  try {
    return new Scanner(text).batch();
  } catch (e) {
    if (e instanceof NotCanonical || e instanceof RangeError) return null;
    throw e;
  }
}

/**
 * The value of a text scanBatchAnswer passed on (canonical JSON), exactly as lossless-json's parse
 * gives it — objects, arrays, strings, LosslessNumber for numbers — or undefined for any other
 * text (parse that instead). Why not lossless-json: it builds each string a character at a time,
 * so a decoded transaction's hex and scripts become ropes of thousands of small objects until
 * something flattens them; here strings come from JSON.parse of their own literal, flat, and never
 * a slice that would keep the whole upstream answer alive in whatever holds on to the value.
 */
export function parseCanonical(text: string): Json | undefined {
  try {
    const scanner = new Scanner(text);
    const value = scanner.read(1);
    return scanner.atEnd() ? value : undefined;
  } catch (e) {
    if (e instanceof NotCanonical || e instanceof RangeError) return undefined;
    throw e;
  }
}

/** A member of a scanned result object whose value is not an object or array: its text's bounds. */
export interface ScalarSpan {
  key: string;
  start: number;
  end: number;
}

/**
 * The members a scanned result object's spans name, built as parseCanonical builds them (strings
 * flat copies, numbers LosslessNumber). What a verbose transaction's readers take of it (hex,
 * blockhash, confirmations, times) without its vin and vout, which are most of the text and of the
 * work of building it, and without a second pass over it.
 */
export function scalarsOfSpans(
  text: string,
  spans: readonly ScalarSpan[],
): { [key: string]: Json } {
  const members: { [key: string]: Json } = {};
  for (const { key, start, end } of spans) members[key] = scalarAt(text, start, end);
  return members;
}

/** The scalar whose checked, canonical text is s[start, end), as lossless-json's parse gives it. */
function scalarAt(s: string, start: number, end: number): Json {
  const c = s.charCodeAt(start);
  // JSON.parse of the literal: a flat copy, its escapes (only \" \\ \b \f \n \r \t here) read
  // as lossless-json reads them.
  if (c === QUOTE) return JSON.parse(s.slice(start, end)) as string;
  if (c === 0x74) return true;
  if (c === 0x66) return false;
  if (c === 0x6e) return null;
  // A copy of the digits, never a slice of the whole answer (slices of 13 characters or more).
  return new LosslessNumber(JSON.parse(`"${s.slice(start, end)}"`) as string);
}

class Scanner {
  private i = 0;

  constructor(private readonly s: string) {}

  batch(): ScannedItem[] {
    this.ws();
    this.expect(0x5b); // [
    const items: ScannedItem[] = [];
    this.ws();
    if (this.peek() === 0x5d) {
      this.i++;
    } else {
      for (;;) {
        this.ws();
        items.push(this.item());
        this.ws();
        const c = this.next();
        if (c === 0x5d) break;
        if (c !== 0x2c) throw NOT_CANONICAL;
      }
    }
    this.ws();
    if (this.i !== this.s.length) throw NOT_CANONICAL;
    return items;
  }

  /** `{"result":…,"error":…,"id":…}` in any order, other members skipped. */
  private item(): ScannedItem {
    this.expect(0x7b); // {
    const item: ScannedItem = { result: undefined, error: undefined, id: undefined };
    const keys = new KeySet();
    this.ws();
    if (this.peek() === 0x7d) {
      this.i++;
      return item;
    }
    for (;;) {
      this.ws();
      const key = this.key();
      if (!keys.add(key)) throw NOT_CANONICAL;
      this.ws();
      this.expect(0x3a); // :
      this.ws();
      const start = this.i;
      if (key === "result" && this.peek() === 0x7b) {
        item.scalars = [];
        this.object(1, { base: start, spans: item.scalars });
      } else {
        this.value(1);
      }
      const raw = this.s.slice(start, this.i);
      if (key === "result") item.result = raw;
      else if (key === "error") item.error = raw;
      else if (key === "id") item.id = raw;
      this.ws();
      const c = this.next();
      if (c === 0x7d) return item;
      if (c !== 0x2c) throw NOT_CANONICAL;
    }
  }

  /** The value at the cursor, built (see parseCanonical); the same checks as value(). */
  read(depth: number): Json {
    if (depth > DEPTH_MAX) throw NOT_CANONICAL;
    const s = this.s;
    const c = this.peek();
    const start = this.i;
    if (c === QUOTE) {
      this.string();
      return scalarAt(s, start, this.i);
    }
    if (c === 0x7b) {
      this.i++;
      const object: { [key: string]: Json } = {};
      if (this.peek() === 0x7d) {
        this.i++;
        return object;
      }
      for (;;) {
        const key = this.key();
        // The object being built is the set of its keys (V8 hashes them once it is large).
        if (Object.hasOwn(object, key)) throw NOT_CANONICAL;
        this.expect(0x3a);
        object[key] = this.read(depth + 1);
        const next = this.next();
        if (next === 0x7d) return object;
        if (next !== 0x2c) throw NOT_CANONICAL;
      }
    }
    if (c === 0x5b) {
      this.i++;
      const array: Json[] = [];
      if (this.peek() === 0x5d) {
        this.i++;
        return array;
      }
      for (;;) {
        array.push(this.read(depth + 1));
        const next = this.next();
        if (next === 0x5d) return array;
        if (next !== 0x2c) throw NOT_CANONICAL;
      }
    }
    if (c === 0x74) this.literal("true");
    else if (c === 0x66) this.literal("false");
    else if (c === 0x6e) this.literal("null");
    else this.number();
    return scalarAt(s, start, this.i);
  }

  atEnd(): boolean {
    return this.i === this.s.length;
  }

  private value(depth: number): void {
    if (depth > DEPTH_MAX) throw NOT_CANONICAL;
    const c = this.peek();
    if (c === QUOTE) this.string();
    else if (c === 0x7b) this.object(depth);
    else if (c === 0x5b) this.array(depth);
    else if (c === 0x74) this.literal("true");
    else if (c === 0x66) this.literal("false");
    else if (c === 0x6e) this.literal("null");
    else this.number();
  }

  /** `found`: where to note the spans of its scalar members (offsets from `base`). */
  private object(depth: number, found?: { base: number; spans: ScalarSpan[] }): void {
    this.i++;
    if (this.peek() === 0x7d) {
      this.i++;
      return;
    }
    const keys = new KeySet();
    for (;;) {
      const key = this.key();
      if (!keys.add(key)) throw NOT_CANONICAL;
      this.expect(0x3a);
      const start = this.i;
      const c = this.peek();
      this.value(depth + 1);
      if (found && c !== 0x7b && c !== 0x5b) {
        found.spans.push({ key, start: start - found.base, end: this.i - found.base });
      }
      const next = this.next();
      if (next === 0x7d) return;
      if (next !== 0x2c) throw NOT_CANONICAL;
    }
  }

  private array(depth: number): void {
    this.i++;
    if (this.peek() === 0x5d) {
      this.i++;
      return;
    }
    for (;;) {
      this.value(depth + 1);
      const c = this.next();
      if (c === 0x5d) return;
      if (c !== 0x2c) throw NOT_CANONICAL;
    }
  }

  /** An object key with no escapes that re-rendering keeps in its place (callers check it is new). */
  private key(): string {
    if (this.peek() !== QUOTE) throw NOT_CANONICAL;
    const start = this.i + 1;
    const end = this.s.indexOf('"', start);
    if (end < 0) throw NOT_CANONICAL;
    const key = this.s.slice(start, end);
    for (let k = 0; k < key.length; k++) {
      const c = key.charCodeAt(k);
      if (c === BACKSLASH || c < 0x20 || (c >= 0xd800 && c <= 0xdfff)) throw NOT_CANONICAL;
    }
    // V8 writes integer-like keys first and in ascending order; __proto__ is not an own key.
    if (/^[0-9]+$/.test(key) || key === "__proto__") throw NOT_CANONICAL;
    this.i = end + 1;
    return key;
  }

  /** A string whose escapes JSON.stringify writes the same way: \" \\ \b \f \n \r \t. */
  private string(): void {
    const s = this.s;
    let i = this.i + 1;
    for (;;) {
      // Runs of plain characters (all of a hex string) are skipped by the regex engine at once.
      PLAIN.lastIndex = i;
      PLAIN.test(s);
      i = PLAIN.lastIndex;
      if (i >= s.length) throw NOT_CANONICAL;
      const c = s.charCodeAt(i);
      if (c === QUOTE) break;
      if (c < 0x20) throw NOT_CANONICAL;
      if (c === BACKSLASH) {
        const e = s.charCodeAt(i + 1);
        // " \ b f n r t
        if (
          e !== QUOTE &&
          e !== BACKSLASH &&
          e !== 0x62 &&
          e !== 0x66 &&
          e !== 0x6e &&
          e !== 0x72 &&
          e !== 0x74
        ) {
          throw NOT_CANONICAL;
        }
        i += 2;
        continue;
      }
      // A lone surrogate would be written as \uXXXX (text decoded from UTF-8 has none, but a
      // caller may pass any string).
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = s.charCodeAt(i + 1);
        if (c > 0xdbff || !(d >= 0xdc00 && d <= 0xdfff)) throw NOT_CANONICAL;
        i += 2;
        continue;
      }
      i++;
    }
    this.i = i + 1;
  }

  /** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
  private number(): void {
    const s = this.s;
    let i = this.i;
    if (s.charCodeAt(i) === 0x2d) i++;
    const first = s.charCodeAt(i);
    if (first === 0x30) i++;
    else if (first >= 0x31 && first <= 0x39) i = digits(s, i);
    else throw NOT_CANONICAL;
    if (s.charCodeAt(i) === 0x2e) {
      const after = digits(s, i + 1);
      if (after === i + 1) throw NOT_CANONICAL;
      i = after;
    }
    const e = s.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = s.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      const after = digits(s, i);
      if (after === i) throw NOT_CANONICAL;
      i = after;
    }
    this.i = i;
  }

  private literal(word: string): void {
    if (!this.s.startsWith(word, this.i)) throw NOT_CANONICAL;
    this.i += word.length;
  }

  /** Whitespace between the envelope's tokens (never inside a value). */
  private ws(): void {
    const s = this.s;
    let i = this.i;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
      i++;
    }
    this.i = i;
  }

  private peek(): number {
    return this.s.charCodeAt(this.i);
  }

  private next(): number {
    return this.s.charCodeAt(this.i++);
  }

  private expect(c: number): void {
    if (this.s.charCodeAt(this.i) !== c) throw NOT_CANONICAL;
    this.i++;
  }
}

/** Past this many keys an object's are kept in a Set: a scan of a short array is cheaper below it. */
const FEW_KEYS_MAX = 16;

/**
 * The keys of one object being scanned, to find a repeated one: in a short array while the object
 * is small (most are), then in a Set, so that each key costs constant time however many a client
 * sends (an array's scan made a 50,000-key object quadratic).
 */
class KeySet {
  private few: string[] = [];
  private many: Set<string> | undefined;

  /** Adds `key`; false when it was there already. */
  add(key: string): boolean {
    const many = this.many;
    if (many) {
      if (many.has(key)) return false;
      many.add(key);
      return true;
    }
    if (this.few.includes(key)) return false;
    this.few.push(key);
    if (this.few.length > FEW_KEYS_MAX) this.many = new Set(this.few);
    return true;
  }
}

function digits(s: string, from: number): number {
  let i = from;
  for (;;) {
    // NaN past the end of the text fails this test too, ending the run.
    const c = s.charCodeAt(i);
    if (!(c >= 0x30 && c <= 0x39)) return i;
    i++;
  }
}
