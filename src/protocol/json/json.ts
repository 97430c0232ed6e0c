import { isLosslessNumber, LosslessNumber, parse } from "lossless-json";
import { RawJsonText, toJsonText } from "../../bitcoin/json-text.ts";

export { RawJsonText };

/**
 * JSON as Bitcoin Core writes it: numbers keep their literal text (Core prints amounts as
 * `0.00100000`; JSON.parse would turn that into 0.001 and lose the faithful form). Parsed values
 * never hold JS numbers; values we build may.
 */
export type Json =
  | null
  | boolean
  | string
  | number
  | JsonNumber
  | Json[]
  | { [key: string]: Json }
  /** Text already written, placed as it is (only in values we build: a cached rendering). */
  | RawJsonText;
export type JsonNumber = LosslessNumber;

export function parseJson(text: string): Json {
  return parse(text) as Json;
}

/** Compact JSON with number literals as they came (the codec's fast writer, same text as lossless-json). */
export function stringifyJson(value: unknown): string {
  if (value === undefined) throw new TypeError("value has no JSON form");
  return toJsonText(value);
}

/**
 * Whether every value is a string, a finite JS number, a boolean or null: values whose text the
 * native JSON.stringify writes exactly as stringifyJson does, several times faster (no replacer,
 * no pass over the text for number marks). A call's parameters built in code (a txid and a
 * verbosity) are; a client's, parsed losslessly, hold LosslessNumbers and are not.
 */
export function allPlainScalars(values: readonly Json[]): boolean {
  for (const v of values) {
    if (v !== null && typeof v !== "string" && typeof v !== "boolean") {
      if (typeof v !== "number" || !Number.isFinite(v)) return false;
    }
  }
  return true;
}

export function isJsonNumber(value: unknown): value is JsonNumber {
  return isLosslessNumber(value);
}

/** The number's value when it is an integer JSON number, else undefined. */
export function jsonInteger(value: unknown): number | undefined {
  if (!isJsonNumber(value)) return undefined;
  return /^-?\d+$/.test(value.value) ? Number(value.value) : undefined;
}

export function isJsonObject(value: unknown): value is { [key: string]: Json } {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    !isJsonNumber(value) &&
    !(value instanceof RawJsonText)
  );
}

/** A JSON number with the given integer value, for params built in code. */
export function jsonNumber(value: number | bigint): JsonNumber {
  return new LosslessNumber(String(value));
}

/**
 * The same value with plain JS numbers, for consumers that type their own output (GraphQL's Int
 * serializes a number, not a literal). Only for values whose numbers are exact as doubles, such as
 * the indexer's 32-bit integer columns.
 */
export function toPlainJson(value: Json): unknown {
  if (isJsonNumber(value)) return Number(value.value);
  if (Array.isArray(value)) return value.map(toPlainJson);
  if (isJsonObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) out[key] = toPlainJson(v);
    return out;
  }
  return value;
}
