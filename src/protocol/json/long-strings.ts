import { isJsonObject, type Json, parseJson } from "./json.ts";

/**
 * A client's JSON-RPC body parsed as `parseJson` parses it (numbers kept as written), without
 * lossless-json's cost on long strings: its parser builds a string one character at a time, so a
 * megabyte-long parameter cost tens of MB of garbage (docs/benchmarks.md, bench/fuzz.ts).
 * Long plain strings (no escapes), values and object keys alike, are lifted out before parsing —
 * each replaced by a short placeholder — and put back in the parsed value: the parser sees a few
 * bytes where there were megabytes, and the strings are slices of the body. The result is the same
 * value parseJson gives, and a text it refuses is refused here too: a string token is swapped for
 * another string token, so the document's grammar is unchanged.
 */

/** Strings longer than this are lifted (shorter ones cost the parser little). */
const LIFT_CHARS_MIN = 256;
/**
 * Starts every placeholder. A string of the client's that starts with it is lifted too whatever
 * its length, so that every string (value or key) starting with it after parsing is a placeholder.
 */
const MARK = "\uE000";
/** MARK escaped, as a client may write it in a string that is not lifted. */
const MARK_ESCAPED = /^\\u[eE]000/;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

export function parseJsonLiftingStrings(text: string): Json {
  if (text.length < LIFT_CHARS_MIN) return parseJson(text);
  const lifted: string[] = [];
  const indexOf = new Map<string, number>();
  const parts: string[] = [];
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    if (text.charCodeAt(i) !== QUOTE) {
      i += 1;
      continue;
    }
    // A string token from i to its closing quote; escapes and control characters keep it as it
    // is (the parser decodes the one and refuses the other).
    let end = i + 1;
    let plain = true;
    for (; end < text.length; end++) {
      const c = text.charCodeAt(end);
      if (c === QUOTE) break;
      if (c === BACKSLASH) {
        plain = false;
        end += 1;
      } else if (c < 0x20) plain = false;
    }
    if (end >= text.length) break; // unterminated: the parser refuses it
    const content = text.slice(i + 1, end);
    // Decoded, it would read as a placeholder: this text is parsed as it is, lifting nothing.
    if (!plain && startsWithMark(content)) return parseJson(text);
    // Keys too: the parser builds a key a character at a time as it does a value.
    if (plain && (content.length >= LIFT_CHARS_MIN || content.startsWith(MARK))) {
      // The same text gets the same placeholder: the parser's duplicate-key check compares values.
      let index = indexOf.get(content);
      if (index === undefined) {
        index = lifted.push(content) - 1;
        indexOf.set(content, index);
      }
      parts.push(text.slice(copied, i), `"${MARK}${index}"`);
      copied = end + 1;
    }
    i = end + 1;
  }
  if (lifted.length === 0) return parseJson(text);
  parts.push(text.slice(copied));
  return restore(parseJson(parts.join("")), lifted);
}

/**
 * Whether a string token that is not lifted (it holds escapes or control characters) would start
 * with MARK once decoded, as written or escaped: every string starting with it after parsing must
 * be a placeholder, or it would be taken for one and replaced.
 */
function startsWithMark(content: string): boolean {
  return content.startsWith(MARK) || MARK_ESCAPED.test(content);
}

/**
 * Puts the lifted strings back, values and keys, in place. Iterative: the caller bounds the
 * nesting before parsing, but this walk need not rely on it.
 */
function restore(root: Json, lifted: readonly string[]): Json {
  const original = (s: string) =>
    s.startsWith(MARK) ? (lifted[Number(s.slice(MARK.length))] ?? s) : s;
  if (typeof root === "string") return original(root);
  const pending: Json[] = [root];
  for (let value = pending.pop(); value !== undefined; value = pending.pop()) {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const v = value[i] as Json;
        if (typeof v === "string") value[i] = original(v);
        else if (Array.isArray(v) || isJsonObject(v)) pending.push(v);
      }
    } else if (isJsonObject(value)) {
      restoreMembers(value, original, pending);
    }
  }
  return root;
}

/**
 * An object's members with their strings put back. From its first lifted key on, the members are
 * taken out, then put back under their keys, so that they keep their order (and a key put back
 * never meets a placeholder still there: a client's key may read like one, lifted in its turn).
 */
function restoreMembers(
  object: { [key: string]: Json },
  original: (s: string) => string,
  pending: Json[],
): void {
  const keys = Object.keys(object);
  for (const key of keys) {
    const was = object[key] as Json;
    if (typeof was === "string") {
      const now = original(was);
      if (now !== was) own(object, key, now);
    } else if (Array.isArray(was) || isJsonObject(was)) {
      pending.push(was);
    }
  }
  const from = keys.findIndex((key) => key.startsWith(MARK));
  if (from < 0) return;
  const moved = keys.slice(from).map((key): [string, Json] => [key, object[key] as Json]);
  for (const [key] of moved) delete object[key];
  for (const [key, value] of moved) own(object, original(key), value);
}

/** Defined, not assigned: a key "__proto__" is the client's own property, as parsed. */
function own(object: { [key: string]: Json }, key: string, value: Json): void {
  Object.defineProperty(object, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
