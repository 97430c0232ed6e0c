import { isJsonNumber, isJsonObject, type Json } from "../json/json.ts";

/**
 * ElectrumX is Python: its messages embed values through str()/repr() (`{value} should be a
 * transaction hash`, `DaemonError({'code': -5, ...})`) and its replies are `json.dumps` output,
 * which puts a space after `,` and `:` and writes the daemon's amounts as Python floats (Core's
 * `10.00000000` arrives as `10.0`). devnet writes the same text, so that what the gateway has to
 * cope with is what a real ElectrumX sends.
 */

/** Python's repr of a str: single quotes unless the text holds one and no double quote. */
export function pyStrRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + quote;
}

/** A JSON number as Python holds it after json.loads: int text unchanged, floats as repr(). */
export function pyNumber(text: string): string {
  if (/^-?\d+$/.test(text)) return text.replace(/^(-?)0+(?=\d)/, "$1");
  return pyFloatRepr(Number(text));
}

/** repr(float): the shortest round-trip digits, fixed notation for 1e-4 <= |x| < 1e16. */
export function pyFloatRepr(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";
  const sign = value < 0 ? "-" : "";
  // toExponential() without an argument gives the shortest digits that round-trip, as repr does.
  const [mantissa, exp] = Math.abs(value).toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  const e = Number(exp);
  if (e < -4 || e >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
  const whole = digits.slice(0, e + 1).padEnd(e + 1, "0");
  const frac = digits.slice(e + 1);
  return `${sign}${whole}.${frac === "" ? "0" : frac}`;
}

/** repr() of a value json.loads produced. */
export function pyRepr(value: Json | undefined): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "string") return pyStrRepr(value);
  if (isJsonNumber(value)) return pyNumber(value.value);
  if (Array.isArray(value)) return `[${value.map(pyRepr).join(", ")}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${pyStrRepr(k)}: ${pyRepr(v)}`)
    .join(", ")}}`;
}

/** str() of such a value, as an f-string renders it: a str as it is, anything else as repr. */
export function pyStr(value: Json | undefined): string {
  return typeof value === "string" ? value : pyRepr(value);
}

/** json.dumps(value) with its defaults: `, ` and `: ` separators, ensure_ascii. */
export function pyJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "number")
    return Number.isInteger(value) ? String(value) : pyFloatRepr(value);
  if (typeof value === "string") return jsonString(value);
  if (isJsonNumber(value)) return pyNumber(value.value);
  if (Array.isArray(value)) return `[${value.map(pyJsonDumps).join(", ")}]`;
  if (isJsonObject(value)) {
    return `{${Object.entries(value)
      .map(([k, v]) => `${jsonString(k)}: ${pyJsonDumps(v)}`)
      .join(", ")}}`;
  }
  throw new TypeError("value has no JSON form");
}

function jsonString(text: string): string {
  // JSON.stringify escapes quotes, backslashes and controls; ensure_ascii also escapes non-ASCII.
  return JSON.stringify(text).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** Python's `{n:,d}`. */
export function pyThousands(n: number): string {
  return n.toLocaleString("en-US");
}
