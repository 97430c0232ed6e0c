/** Script opcode constants and the GetOp walk that every script consumer here shares. */

export const OP_0 = 0x00;
export const OP_PUSHDATA1 = 0x4c;
export const OP_PUSHDATA2 = 0x4d;
export const OP_PUSHDATA4 = 0x4e;
export const OP_1NEGATE = 0x4f;
export const OP_1 = 0x51;
export const OP_16 = 0x60;
export const OP_RETURN = 0x6a;
export const OP_DUP = 0x76;
export const OP_EQUAL = 0x87;
export const OP_EQUALVERIFY = 0x88;
export const OP_HASH160 = 0xa9;
export const OP_CHECKSIG = 0xac;
export const OP_CHECKMULTISIG = 0xae;
export const OP_CHECKSIGADD = 0xba;
export const OP_INVALIDOPCODE = 0xff;

/** Core's MAX_OPCODE (script.h) is still OP_NOP10: OP_CHECKSIGADD (0xba) counts as invalid for HasValidOps. */
export const MAX_OPCODE = 0xb9;
/** Core's MAX_SCRIPT_SIZE. */
export const MAX_SCRIPT_SIZE = 10_000;

/** One decoded instruction. `data` is set for push opcodes (0x00..0x4e), null otherwise. */
export interface ScriptOp {
  opcode: number;
  data: Uint8Array | null;
  /** Offset just past this instruction. */
  end: number;
}

/**
 * Core's CScript::GetOp2: the instruction at `pc`, or null when the script ends inside a push
 * (truncated length field or data). Callers treat null as "stop here".
 */
export function readOp(script: Uint8Array, pc: number): ScriptOp | null {
  const len = script.length;
  if (pc >= len) return null;
  const opcode = script[pc++]!;
  if (opcode > OP_PUSHDATA4) return { opcode, data: null, end: pc };
  let size: number;
  if (opcode < OP_PUSHDATA1) {
    size = opcode;
  } else if (opcode === OP_PUSHDATA1) {
    if (len - pc < 1) return null;
    size = script[pc]!;
    pc += 1;
  } else if (opcode === OP_PUSHDATA2) {
    if (len - pc < 2) return null;
    size = script[pc]! | (script[pc + 1]! << 8);
    pc += 2;
  } else {
    if (len - pc < 4) return null;
    size =
      (script[pc]! | (script[pc + 1]! << 8) | (script[pc + 2]! << 16)) +
      script[pc + 3]! * 0x1000000;
    pc += 4;
  }
  if (len - pc < size) return null;
  return { opcode, data: script.subarray(pc, pc + size), end: pc + size };
}

/** Core's CScript::HasValidOps: every instruction decodes and none is above MAX_OPCODE. */
export function hasValidOps(script: Uint8Array): boolean {
  let pc = 0;
  while (pc < script.length) {
    const op = readOp(script, pc);
    if (op === null || op.opcode > MAX_OPCODE) return false;
    pc = op.end;
  }
  return true;
}

/** Core's CScript::IsPushOnly: only push opcodes (OP_0..OP_16, incl. OP_RESERVED) and every push decodes. */
export function isPushOnly(script: Uint8Array): boolean {
  let pc = 0;
  while (pc < script.length) {
    const op = readOp(script, pc);
    if (op === null || op.opcode > OP_16) return false;
    pc = op.end;
  }
  return true;
}
