import { isJsonNumber, type Json } from "../json/json.ts";
import type { RpcErrorObject } from "../json/types.ts";

/**
 * ElectrumX's error codes (electrumx/server/session.py); -32602 is aiorpcx's INVALID_ARGS, -32600
 * its INVALID_REQUEST (also what it answers an answer over MAX_SEND with).
 */
export const BAD_REQUEST = 1;
export const DAEMON_ERROR = 2;
export const INVALID_ARGS = -32602;
export const INVALID_REQUEST = -32600;

/**
 * aiorpcx's handler_invocation: positional or named arguments against a handler's signature,
 * refused in its words. Returns the arguments in signature order (undefined where omitted).
 */
export function bindArgs(
  method: string,
  params: Json[] | { [key: string]: Json },
  required: readonly string[],
  optional: readonly string[],
): (Json | undefined)[] | RpcErrorObject {
  const min = required.length;
  const max = min + optional.length;
  const invalid = (message: string): RpcErrorObject => ({ code: INVALID_ARGS, message });
  if (Array.isArray(params)) {
    const s = params.length === 1 ? "" : "s";
    if (params.length < min) {
      return invalid(
        `${params.length} argument${s} passed to method "${method}" but it requires ${min}`,
      );
    }
    if (params.length > max) {
      return invalid(
        `${params.length} argument${s} passed to method ${method} taking at most ${max}`,
      );
    }
    return params;
  }
  const names = [...required, ...optional];
  const missing = required.filter((n) => !Object.hasOwn(params, n));
  if (missing.length > 0) {
    const s = missing.length === 1 ? "" : "s";
    return invalid(`method "${method}" requires parameter${s} ${quoteNames(missing)}`);
  }
  const excess = Object.keys(params).filter((n) => !names.includes(n));
  if (excess.length > 0) {
    const s = excess.length === 1 ? "" : "s";
    return invalid(`method "${method}" does not take parameter${s} ${quoteNames(excess)}`);
  }
  return names.map((n) => (Object.hasOwn(params, n) ? params[n] : undefined));
}

function quoteNames(names: string[]): string {
  return [...names]
    .sort()
    .map((n) => `"${n}"`)
    .join(", ");
}

/**
 * hex_str_to_hash's test: Python's bytes.fromhex (which skips whitespace between bytes) must give
 * 32 bytes. Returns those bytes as plain lowercase hex, or null.
 */
export function hash32Hex(value: Json | undefined): string | null {
  if (typeof value !== "string") return null;
  let hex = "";
  let i = 0;
  while (i < value.length) {
    if (/\s/.test(value[i]!)) i += 1;
    else if (/^[0-9a-fA-F]{2}$/.test(value.slice(i, i + 2))) {
      hex += value.slice(i, i + 2).toLowerCase();
      i += 2;
    } else return null;
  }
  return hex.length === 64 ? hex : null;
}

/** `value in (True, False)` in Python: booleans, and numbers equal to 0 or 1. */
export function isPyBool(value: Json | undefined): boolean {
  if (typeof value === "boolean") return true;
  if (!isJsonNumber(value)) return false;
  const n = Number(value.value);
  return n === 0 || n === 1;
}

/** Python's truth of such a value, for verbose. */
export function pyBoolValue(value: Json | undefined): boolean {
  return value === true || (isJsonNumber(value) && Number(value.value) === 1);
}
