import { isJsonNumber, isJsonObject, type Json } from "../json/json.ts";
import type { RpcErrorObject } from "../json/types.ts";

/** Bitcoin Core's RPC error codes used here (src/rpc/protocol.h). */
export const RPC_MISC_ERROR = -1;
export const RPC_TYPE_ERROR = -3;
export const RPC_INVALID_ADDRESS_OR_KEY = -5;
export const RPC_INVALID_PARAMETER = -8;

/** UniValue's names for JSON types, as they appear in Core's type errors. */
export function uvTypeName(value: Json | undefined): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "string") return "string";
  if (isJsonNumber(value)) return "number";
  return Array.isArray(value) ? "array" : "object";
}

/**
 * Core's ParseHashV (v28+): the length is checked before the digits, and the message quotes the
 * value as given.
 */
export function checkHash(value: string, name: string): RpcErrorObject | null {
  if (value.length !== 64) {
    return {
      code: RPC_INVALID_PARAMETER,
      message: `${name} must be of length 64 (not ${value.length}, for '${value}')`,
    };
  }
  if (!/^[0-9a-fA-F]{64}$/.test(value)) {
    return {
      code: RPC_INVALID_PARAMETER,
      message: `${name} must be hexadecimal string (not '${value}')`,
    };
  }
  return null;
}

/**
 * UniValue::write(4) of a flat object of strings, which is how Core lays out "Wrong type passed".
 * JSON.stringify escapes the same characters UniValue does for these ASCII messages.
 */
export function writeIndented4(entries: [string, string][]): string {
  const lines = entries.map(([k, v]) => `    ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  return `{\n${lines.join(",\n")}\n}`;
}

/**
 * Core's transformNamedArguments: named parameters become positional ones; `a|b` names aliases.
 * Returns the positional array or Core's error for an unknown or repeated name.
 */
export function namedToPositional(
  params: { [key: string]: Json },
  names: readonly string[],
): Json[] | RpcErrorObject {
  const out: Json[] = [];
  let last = -1;
  const seen = new Set<number>();
  for (const [key, value] of Object.entries(params)) {
    const position = names.findIndex((n) => n.split("|").includes(key));
    if (position < 0)
      return { code: RPC_INVALID_PARAMETER, message: `Unknown named parameter ${key}` };
    if (seen.has(position)) {
      return { code: RPC_INVALID_PARAMETER, message: `Parameter ${key} specified multiple times` };
    }
    seen.add(position);
    out[position] = value;
    last = Math.max(last, position);
  }
  for (let i = 0; i <= last; i++) if (out[i] === undefined) out[i] = null;
  return out;
}

export function asPositional(
  params: Json[] | { [key: string]: Json },
  names: readonly string[],
): Json[] | RpcErrorObject {
  return isJsonObject(params) ? namedToPositional(params, names) : params;
}

export function isRpcError(value: unknown): value is RpcErrorObject {
  return isJsonObject(value as Json) && typeof (value as RpcErrorObject).code === "number";
}
