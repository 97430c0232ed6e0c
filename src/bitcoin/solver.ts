import {
  isPushOnly,
  OP_0,
  OP_1,
  OP_16,
  OP_CHECKMULTISIG,
  OP_CHECKSIG,
  OP_DUP,
  OP_EQUAL,
  OP_EQUALVERIFY,
  OP_HASH160,
  OP_PUSHDATA1,
  OP_PUSHDATA2,
  OP_PUSHDATA4,
  OP_RETURN,
  readOp,
} from "./script-ops.ts";

/** Core's GetTxnOutputType names. */
export type ScriptType =
  | "nonstandard"
  | "anchor"
  | "pubkey"
  | "pubkeyhash"
  | "scripthash"
  | "multisig"
  | "nulldata"
  | "witness_v0_keyhash"
  | "witness_v0_scripthash"
  | "witness_v1_taproot"
  | "witness_unknown";

/** Solver result: the type and its "solutions" (hashes, keys, program), as Core returns them. */
export type Solution =
  | { type: "nonstandard" | "nulldata" | "anchor" }
  | { type: "pubkey"; pubkey: Uint8Array }
  | { type: "pubkeyhash" | "scripthash" | "witness_v0_keyhash"; hash: Uint8Array }
  | { type: "witness_v0_scripthash"; hash: Uint8Array }
  | { type: "witness_v1_taproot"; program: Uint8Array }
  | { type: "witness_unknown"; version: number; program: Uint8Array }
  | { type: "multisig"; required: number; pubkeys: Uint8Array[] };

const MAX_PUBKEYS_PER_MULTISIG = 20;

/** Core's CPubKey::ValidSize: the length the header byte announces (33 for 02/03, 65 for 04/06/07). */
export function pubkeyValidSize(key: Uint8Array): boolean {
  if (key.length === 0) return false;
  const h = key[0]!;
  if (h === 2 || h === 3) return key.length === 33;
  if (h === 4 || h === 6 || h === 7) return key.length === 65;
  return false;
}

/** Core's CScript::IsPayToScriptHash. */
export function isP2SH(s: Uint8Array): boolean {
  return s.length === 23 && s[0] === OP_HASH160 && s[1] === 0x14 && s[22] === OP_EQUAL;
}

/** Core's CScript::IsWitnessProgram: OP_n then one direct push of 2..40 bytes, nothing else. */
export function witnessProgram(s: Uint8Array): { version: number; program: Uint8Array } | null {
  if (s.length < 4 || s.length > 42) return null;
  const v = s[0]!;
  if (v !== OP_0 && (v < OP_1 || v > OP_16)) return null;
  if (s[1]! + 2 !== s.length) return null;
  return { version: v === OP_0 ? 0 : v - (OP_1 - 1), program: s.subarray(2) };
}

/** Core's CScript::IsPayToAnchor: OP_1 <0x4e73>. */
export function isPayToAnchor(s: Uint8Array): boolean {
  return s.length === 4 && s[0] === OP_1 && s[1] === 0x02 && s[2] === 0x4e && s[3] === 0x73;
}

/** Core's CheckMinimalPush (script/script.cpp). */
function checkMinimalPush(data: Uint8Array, opcode: number): boolean {
  const n = data.length;
  if (n === 0) return opcode === OP_0;
  if (n === 1 && data[0]! >= 1 && data[0]! <= 16) return false;
  if (n === 1 && data[0] === 0x81) return false;
  if (n <= 75) return opcode === n;
  if (n <= 255) return opcode === OP_PUSHDATA1;
  if (n <= 65535) return opcode === OP_PUSHDATA2;
  return true;
}

/** Minimal CScriptNum of at most 4 bytes, or null (Core throws scriptnum_error). */
function minimalScriptNum(data: Uint8Array): number | null {
  const n = data.length;
  if (n > 4) return null;
  if (n === 0) return 0;
  if ((data[n - 1]! & 0x7f) === 0 && (n <= 1 || (data[n - 2]! & 0x80) === 0)) return null;
  let v = 0;
  for (let i = 0; i < n; i++) v += data[i]! * 2 ** (8 * i);
  if (data[n - 1]! & 0x80) return -(v - 0x80 * 2 ** (8 * (n - 1)));
  return v;
}

/** Core's GetScriptNumber in solver.cpp: OP_1..OP_16 or a minimal numeric push within [min, max]. */
function scriptNumber(
  opcode: number,
  data: Uint8Array | null,
  min: number,
  max: number,
): number | null {
  let count: number;
  if (opcode >= OP_1 && opcode <= OP_16) {
    count = opcode - (OP_1 - 1);
  } else if (opcode > OP_0 && opcode <= OP_PUSHDATA4 && data !== null) {
    if (!checkMinimalPush(data, opcode)) return null;
    const v = minimalScriptNum(data);
    if (v === null) return null;
    count = v;
  } else {
    return null;
  }
  return count < min || count > max ? null : count;
}

function matchMultisig(s: Uint8Array): { required: number; pubkeys: Uint8Array[] } | null {
  if (s.length < 1 || s[s.length - 1] !== OP_CHECKMULTISIG) return null;
  let op = readOp(s, 0);
  if (op === null) return null;
  const required = scriptNumber(op.opcode, op.data, 1, MAX_PUBKEYS_PER_MULTISIG);
  if (required === null) return null;
  const pubkeys: Uint8Array[] = [];
  let pc = op.end;
  for (;;) {
    op = readOp(s, pc);
    if (op === null) return null; // Core: GetOp fails → OP_INVALIDOPCODE, which is no number.
    if (op.data === null || !pubkeyValidSize(op.data)) break;
    pubkeys.push(op.data);
    pc = op.end;
  }
  const n = scriptNumber(op.opcode, op.data, required, MAX_PUBKEYS_PER_MULTISIG);
  if (n === null || pubkeys.length !== n) return null;
  return op.end + 1 === s.length ? { required, pubkeys } : null;
}

/** Core's Solver (script/solver.cpp), in its order of precedence. */
export function solve(s: Uint8Array): Solution {
  if (isP2SH(s)) return { type: "scripthash", hash: s.subarray(2, 22) };

  const wp = witnessProgram(s);
  if (wp !== null) {
    if (wp.version === 0 && wp.program.length === 20) {
      return { type: "witness_v0_keyhash", hash: wp.program };
    }
    if (wp.version === 0 && wp.program.length === 32) {
      return { type: "witness_v0_scripthash", hash: wp.program };
    }
    if (wp.version === 1 && wp.program.length === 32) {
      return { type: "witness_v1_taproot", program: wp.program };
    }
    if (isPayToAnchor(s)) return { type: "anchor" };
    if (wp.version !== 0) return { type: "witness_unknown", ...wp };
    return { type: "nonstandard" };
  }

  if (s.length >= 1 && s[0] === OP_RETURN && isPushOnly(s.subarray(1))) return { type: "nulldata" };

  const keyLen = s.length - 2;
  if ((keyLen === 33 || keyLen === 65) && s[0] === keyLen && s[s.length - 1] === OP_CHECKSIG) {
    const key = s.subarray(1, s.length - 1);
    if (pubkeyValidSize(key)) return { type: "pubkey", pubkey: key };
  }

  if (
    s.length === 25 &&
    s[0] === OP_DUP &&
    s[1] === OP_HASH160 &&
    s[2] === 20 &&
    s[23] === OP_EQUALVERIFY &&
    s[24] === OP_CHECKSIG
  ) {
    return { type: "pubkeyhash", hash: s.subarray(3, 23) };
  }

  const ms = matchMultisig(s);
  if (ms !== null) return { type: "multisig", ...ms };

  return { type: "nonstandard" };
}
