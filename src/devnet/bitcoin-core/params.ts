import {
  asPositional,
  checkHash,
  isRpcError,
  RPC_INVALID_PARAMETER,
  RPC_MISC_ERROR,
  RPC_TYPE_ERROR,
  uvTypeName,
  writeIndented4,
} from "../../protocol/core/params.ts";
import { isJsonNumber, type Json } from "../../protocol/json/json.ts";
import { RpcError } from "./rpc-error.ts";

type Kind = "string" | "number" | "bool" | "array" | "object";
/** One parameter: its name and the JSON types RPCHelpMan accepts for it. */
export type ParamSpec = [name: string, ...types: Kind[]];

function kindOf(value: Json): Kind | "null" {
  const t = uvTypeName(value);
  return t as Kind | "null";
}

/**
 * RPCHelpMan::HandleRequest's checks, in its order: named parameters mapped to positions, the
 * count against the usage (-1 with Core's usage line is the gateway's to write; devnet says
 * only which method), then each given argument's JSON type ("Wrong type passed", -3). Nulls
 * stand for omitted optional arguments, as in Core. Returns the positional arguments.
 */
export function readParams(
  method: string,
  raw: Json[] | { [key: string]: Json },
  specs: readonly ParamSpec[],
  required: number,
): Json[] {
  const positional = asPositional(
    raw,
    specs.map((s) => s[0]),
  );
  if (isRpcError(positional)) throw new RpcError(positional.code, positional.message);
  const args = positional as Json[];
  if (args.length < required || args.length > specs.length) {
    throw new RpcError(RPC_MISC_ERROR, `${method} takes ${required} to ${specs.length} arguments`);
  }
  const wrong: [string, string][] = [];
  args.forEach((value, i) => {
    const [name, ...types] = specs[i]!;
    const kind = kindOf(value);
    if (kind === "null") {
      if (i < required)
        wrong.push([
          `Position ${i + 1} (${name})`,
          `JSON value of type null is not of expected type ${types[0]}`,
        ]);
      return;
    }
    if (!types.includes(kind)) {
      wrong.push([
        `Position ${i + 1} (${name})`,
        `JSON value of type ${kind} is not of expected type ${types[0]}`,
      ]);
    }
  });
  if (wrong.length > 0) {
    throw new RpcError(RPC_TYPE_ERROR, `Wrong type passed:\n${writeIndented4(wrong)}`);
  }
  return args;
}

/** An integer argument (UniValue getInt): a fraction or out-of-range value is -1 "JSON integer out of range". */
export function intArg(value: Json, fallback: number): number {
  if (value === null || value === undefined) return fallback;
  if (typeof value === "boolean") return Number(value);
  if (!isJsonNumber(value)) return fallback;
  if (!/^-?\d+$/.test(value.value) || !Number.isSafeInteger(Number(value.value))) {
    throw new RpcError(RPC_MISC_ERROR, "JSON integer out of range");
  }
  return Number(value.value);
}

/** A hash argument (ParseHashV): -8 with Core's wording, lower-cased. */
export function hashArg(value: Json, name: string): string {
  const text = value as string;
  const error = checkHash(text, name);
  if (error) throw new RpcError(error.code, error.message);
  return text.toLowerCase();
}

/** A hex string argument (IsHex): -8 "<name> must be hexadecimal string (not '…')". */
export function hexArg(value: Json, name: string): Uint8Array {
  const text = value as string;
  if (!/^([0-9a-fA-F]{2})+$/.test(text)) {
    throw new RpcError(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${text}')`);
  }
  return Buffer.from(text, "hex");
}
