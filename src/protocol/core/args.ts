import { isJsonNumber, type Json } from "../json/json.ts";
import type { Checked, RpcErrorObject } from "../json/types.ts";
import {
  asPositional,
  checkHash,
  isRpcError,
  RPC_MISC_ERROR,
  RPC_TYPE_ERROR,
  uvTypeName,
  writeIndented4,
} from "./params.ts";

/** RPCArg::Type, as far as the methods we serve use it. */
export type CoreArgType = "str" | "hex" | "num" | "bool" | "arr" | "amount";

export interface CoreArg {
  /** RPCArg's m_names: `verbosity|verbose` names an alias. */
  names: string;
  type: CoreArgType;
  optional?: true;
  /** RPCArgOptions.skip_type_check: the method reads the value itself (a number or a bool). */
  anyType?: true;
  /** How the catalogue names the types such an argument takes. */
  shownType?: string;
}

export interface CoreMethodArgs {
  /** The first line of Core's help: what Core's refusal of a wrong argument count begins with. */
  usage: string;
  args: readonly CoreArg[];
  /**
   * What the method checks of its arguments before it reads the chain, in Core's order (a hash's
   * ParseHashV, getblock's verbosity), and the form of the method the call asks for (getblock/2).
   */
  check?: (params: Json[]) => RpcErrorObject | { variant?: string } | undefined;
}

/** UniValue's name of the JSON type RPCArg::MatchesType expects, or undefined when any will do. */
function expectedType(type: CoreArgType): string | undefined {
  switch (type) {
    case "str":
    case "hex":
      return "string";
    case "num":
      return "number";
    case "bool":
      return "bool";
    case "arr":
      return "array";
    case "amount":
      return undefined;
  }
}

/**
 * RPCHelpMan::HandleRequest's checks, in its order: named parameters made positional
 * (transformNamedArguments), the argument count (Core answers a wrong count with the method's help;
 * we give its usage line), each argument's JSON type, every mismatch listed in one "Wrong type
 * passed" — then the method's own checks that need no chain state. What needs the chain (an
 * unknown block, a height out of range) is the node's to answer.
 */
export function checkCoreArgs(
  spec: CoreMethodArgs,
  raw: Json[] | { [key: string]: Json },
): Checked {
  const positional = asPositional(
    raw,
    spec.args.map((a) => a.names),
  );
  if (isRpcError(positional)) return { ok: false, error: positional };
  const params = positional as Json[];
  let required = 0;
  spec.args.forEach((a, i) => {
    if (!a.optional) required = i + 1;
  });
  if (params.length < required || params.length > spec.args.length) {
    return {
      ok: false,
      error: {
        code: RPC_MISC_ERROR,
        message: `${spec.usage}\n(blockgate gives Core's usage line only: pass ${
          required === spec.args.length ? required : `${required} to ${spec.args.length}`
        } parameter${spec.args.length === 1 ? "" : "s"})`,
      },
    };
  }
  const mismatches: [string, string][] = [];
  spec.args.forEach((arg, i) => {
    const value = params[i] ?? null;
    if (arg.anyType || (arg.optional && value === null)) return;
    const expected = expectedType(arg.type);
    const actual = uvTypeName(value);
    if (expected !== undefined && expected !== actual) {
      mismatches.push([
        `Position ${i + 1} (${arg.names})`,
        `JSON value of type ${actual} is not of expected type ${expected}`,
      ]);
    }
  });
  if (mismatches.length > 0) {
    return {
      ok: false,
      error: { code: RPC_TYPE_ERROR, message: `Wrong type passed:\n${writeIndented4(mismatches)}` },
    };
  }
  const own = spec.check?.(params);
  if (own && "code" in own) return { ok: false, error: own };
  return own?.variant ? { ok: true, params, variant: own.variant } : { ok: true, params };
}

/** ParseHashV of a parameter that passed its type check as a string. */
export function hashParam(value: Json | undefined, name: string): RpcErrorObject | undefined {
  return typeof value === "string" ? (checkHash(value, name) ?? undefined) : undefined;
}

/**
 * Core's ParseVerbosity: null is the default, a boolean is 0 or 1 where allowed, anything else
 * must be an integer that fits an int. Returns the verbosity or Core's refusal.
 */
export function parseVerbosity(
  value: Json | undefined,
  fallback: number,
  allowBool: boolean,
): number | RpcErrorObject {
  if (value === null || value === undefined) return fallback;
  if (typeof value === "boolean") {
    if (!allowBool) {
      return { code: RPC_TYPE_ERROR, message: "Verbosity was boolean but only integer allowed" };
    }
    return value ? 1 : 0;
  }
  if (!isJsonNumber(value)) {
    return {
      code: RPC_TYPE_ERROR,
      message: `JSON value of type ${uvTypeName(value)} is not of expected type number`,
    };
  }
  // UniValue::getInt<int> takes only plain decimal integers inside int's range.
  const text = value.value;
  if (!/^-?\d+$/.test(text) || Number(text) > 2147483647 || Number(text) < -2147483648) {
    return { code: RPC_MISC_ERROR, message: "JSON integer out of range" };
  }
  return Number(text);
}
