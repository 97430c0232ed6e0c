import { encodeBase58Address, solutionToAddress } from "./address.ts";
import { addChecksum, inferDescriptorFromSolution } from "./descriptor.ts";
import { hash160, sha256 } from "./hash.ts";
import { toHex } from "./hex.ts";
import { NETWORKS, type Network } from "./network.ts";
import { scriptToAsm } from "./script-asm.ts";
import { hasValidOps, MAX_SCRIPT_SIZE, OP_CHECKSIGADD, OP_RETURN, readOp } from "./script-ops.ts";
import { type ScriptType, type Solution, solve } from "./solver.ts";
import { scriptPubKeyToJson } from "./tx-json.ts";

export interface DecodeScriptSegwitJson {
  asm: string;
  desc: string;
  hex: string;
  address?: string;
  type: ScriptType;
  "p2sh-segwit": string;
}

export interface DecodeScriptJson {
  asm: string;
  desc: string;
  address?: string;
  type: ScriptType;
  p2sh?: string;
  segwit?: DecodeScriptSegwitJson;
}

/** BIP342 OP_SUCCESSx opcodes (Core's IsOpSuccess). */
function isOpSuccess(op: number): boolean {
  return (
    op === 80 ||
    op === 98 ||
    (op >= 126 && op <= 129) ||
    (op >= 131 && op <= 134) ||
    (op >= 137 && op <= 138) ||
    (op >= 141 && op <= 142) ||
    (op >= 149 && op <= 153) ||
    (op >= 187 && op <= 254)
  );
}

/** decodescript's can_wrap: may this script be put inside P2SH? */
function canWrap(script: Uint8Array, sol: Solution): boolean {
  switch (sol.type) {
    case "multisig":
    case "nonstandard":
    case "pubkey":
    case "pubkeyhash":
    case "witness_v0_keyhash":
    case "witness_v0_scripthash":
      break;
    default:
      return false;
  }
  if (!hasValidOps(script)) return false;
  if ((script.length > 0 && script[0] === OP_RETURN) || script.length > MAX_SCRIPT_SIZE)
    return false;
  for (let pc = 0; pc < script.length; ) {
    const op = readOp(script, pc);
    if (op === null) return false;
    if (op.opcode === OP_CHECKSIGADD || isOpSuccess(op.opcode)) return false;
    pc = op.end;
  }
  return true;
}

/** decodescript's can_wrap_P2WSH: segwit forbids uncompressed keys and nesting witness programs. */
function canWrapP2WSH(sol: Solution): boolean {
  switch (sol.type) {
    case "pubkey":
      return sol.pubkey.length === 33;
    case "multisig":
      return sol.pubkeys.every((k) => k.length === 33);
    case "nonstandard":
    case "pubkeyhash":
      return true;
    default:
      return false;
  }
}

function p2wpkh(hash: Uint8Array): Uint8Array {
  const s = new Uint8Array(22);
  s[1] = 20;
  s.set(hash, 2);
  return s;
}

function p2wsh(script: Uint8Array): Uint8Array {
  const s = new Uint8Array(34);
  s[1] = 32;
  s.set(sha256(script), 2);
  return s;
}

/**
 * Core's decodescript RPC (rpc/rawtransaction.cpp). Limitation: for a P2WSH-wrapped nonstandard
 * script Core first tries to infer a miniscript descriptor (`wsh(<miniscript>)`); we do not parse
 * miniscript and print `addr(<p2wsh address>)`, which is what Core prints when that fails.
 */
export function decodeScriptToUniv(script: Uint8Array, network: Network): DecodeScriptJson {
  const sol = solve(script);
  const asm = scriptToAsm(script);
  const address = solutionToAddress(sol, network);
  const desc = inferDescriptorFromSolution(script, sol, network, undefined, () => address);
  const out: DecodeScriptJson =
    address === undefined ? { asm, desc, type: sol.type } : { asm, desc, address, type: sol.type };
  if (!canWrap(script, sol)) return out;

  const scriptHashVersion = NETWORKS[network].scriptHash;
  out.p2sh = encodeBase58Address(scriptHashVersion, hash160(script));
  if (!canWrapP2WSH(sol)) return out;

  let segwitScript: Uint8Array;
  let segwitDesc: string | undefined;
  if (sol.type === "pubkey") {
    segwitScript = p2wpkh(hash160(sol.pubkey));
  } else if (sol.type === "pubkeyhash") {
    segwitScript = p2wpkh(sol.hash);
  } else {
    segwitScript = p2wsh(script);
    // Core hands the witness script to InferDescriptor, which renders wsh(multi(...)) for
    // multisig (keys are compressed here) and gives up on other non-miniscript scripts.
    if (sol.type === "multisig") {
      segwitDesc = addChecksum(`wsh(multi(${sol.required},${sol.pubkeys.map(toHex).join(",")}))`);
    }
  }
  const inner = scriptPubKeyToJson(segwitScript, network);
  out.segwit = {
    asm: inner.asm,
    desc: segwitDesc ?? inner.desc,
    hex: inner.hex,
    ...(inner.address === undefined ? {} : { address: inner.address }),
    type: inner.type,
    "p2sh-segwit": encodeBase58Address(scriptHashVersion, hash160(segwitScript)),
  };
  return out;
}
