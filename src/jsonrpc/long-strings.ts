import { isJsonObject, type Json, parseJson } from "./json.ts";

/**
 * A client's JSON-RPC body parsed as `parseJson` parses it (numbers kept as written), without
 * lossless-json's cost on long strings: its parser builds a string one character at a time, some
 * 33 bytes of garbage and 0.35 µs per character, so one 1 MiB string parameter cost 30 MB and
 * 330 ms (found by bench/fuzz, issue 15 item 7: the node route's share of the run's memory peak).
 * Long plain string values (no escapes) are lifted out before parsing — each replaced by a short
 * placeholder — and put back in the parsed value: the parser sees a few bytes where there were
 * megabytes, and the strings are slices of the body. The result is the same value parseJson
 * gives, and a text it refuses is refused here too: a string token is swapped for another string
 * token, so the document's grammar is unchanged.
 */

/** Strings longer than this are lifted (shorter ones cost the parser little). */
const LIFT_CHARS_MIN = 256;
/**
 * Starts every placeholder. A string value of the client's that starts with it is lifted too
 * whatever its length, so that every string starting with it after parsing is a placeholder.
 */
const MARK = "\uE000";
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

const isWhitespace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

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
    let next = end + 1;
    while (next < text.length && isWhitespace(text.charCodeAt(next))) next += 1;
    const isKey = text.charCodeAt(next) === COLON;
    if (plain && !isKey && (content.length >= LIFT_CHARS_MIN || content.startsWith(MARK))) {
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

function restore(value: Json, lifted: readonly string[]): Json {
  if (typeof value === "string") {
    return value.startsWith(MARK) ? (lifted[Number(value.slice(MARK.length))] ?? value) : value;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = restore(value[i] as Json, lifted);
  } else if (isJsonObject(value)) {
    for (const key of Object.keys(value)) {
      const was = value[key] as Json;
      const now = restore(was, lifted);
      // Defined, not assigned: a key "__proto__" is the client's own property, as parsed.
      if (now !== was)
        Object.defineProperty(value, key, {
          value: now,
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
  }
  return value;
}
