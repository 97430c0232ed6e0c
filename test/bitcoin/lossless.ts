// Comparison helpers: JSON with every number literal kept as its text.
import { isLosslessNumber, parse, stringify } from "lossless-json";

/** Parse JSON text keeping number literals as LosslessNumber. */
export function parseLossless(text: string): unknown {
  return parse(text);
}

/** Canonical compact text of a value (key order kept, number text kept). */
export function canon(value: unknown): string {
  const text = stringify(value);
  if (text === undefined) throw new Error("value does not stringify");
  return text;
}

/** Re-parse our own output so plain numbers become LosslessNumber like the oracle's. */
export function roundTrip(value: unknown): unknown {
  return parse(canon(value));
}

export { isLosslessNumber };
