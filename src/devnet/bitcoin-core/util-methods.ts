import { addressToScript, decodeScriptToUniv, solve, toHex } from "../../bitcoin/index.ts";
import type { Json } from "../../protocol/json/json.ts";
import type { CoreContext } from "./context.ts";
import type { RpcMethod } from "./http.ts";
import { hexArg, readParams } from "./params.ts";

/**
 * Core's DescribeAddressVisitor (rpc/util.cpp): what validateaddress says about each kind of
 * destination, after isvalid, address and scriptPubKey.
 */
function describe(script: Uint8Array): Record<string, unknown> {
  const sol = solve(script);
  switch (sol.type) {
    case "pubkeyhash":
      return { isscript: false, iswitness: false };
    case "scripthash":
      return { isscript: true, iswitness: false };
    case "witness_v0_keyhash":
      return {
        isscript: false,
        iswitness: true,
        witness_version: 0,
        witness_program: toHex(sol.hash),
      };
    case "witness_v0_scripthash":
      return {
        isscript: true,
        iswitness: true,
        witness_version: 0,
        witness_program: toHex(sol.hash),
      };
    case "witness_v1_taproot":
      return {
        isscript: true,
        iswitness: true,
        witness_version: 1,
        witness_program: toHex(sol.program),
      };
    case "anchor":
      return { isscript: true, iswitness: true, witness_version: 1, witness_program: "4e73" };
    case "witness_unknown":
      return { iswitness: true, witness_version: sol.version, witness_program: toHex(sol.program) };
    default:
      return {};
  }
}

/** Core's rpc/output_script.cpp decodescript and validateaddress, for this network. */
export function utilMethods(ctx: CoreContext): Record<string, RpcMethod> {
  return {
    decodescript: (raw) => {
      const [hex] = readParams("decodescript", raw, [["hexstring", "string"]], 1);
      // Core reads an empty string as the empty script, anything else through ParseHexV.
      const script = hex === "" ? new Uint8Array(0) : hexArg(hex as Json, "argument");
      return decodeScriptToUniv(script, ctx.network);
    },
    validateaddress: (raw) => {
      const [address] = readParams("validateaddress", raw, [["address", "string"]], 1);
      const script = addressToScript(address as string, ctx.network);
      if (!script) {
        // Core says where a bech32 string is wrong; devnet gives its generic wording only.
        return {
          isvalid: false,
          error_locations: [],
          error: "Invalid or unsupported Segwit (Bech32) or Base58 encoding.",
        };
      }
      return {
        isvalid: true,
        address,
        scriptPubKey: toHex(script),
        ...describe(script),
      };
    },
  };
}
