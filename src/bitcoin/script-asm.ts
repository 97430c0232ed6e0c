import { toHex } from "./hex.ts";
import { opcodeName } from "./opcode-names.ts";
import { MAX_SCRIPT_SIZE, OP_PUSHDATA4, OP_RETURN, readOp } from "./script-ops.ts";
import { isStrictSignature, sighashToStr } from "./signature-encoding.ts";

/**
 * CScriptNum decoding of a push of at most 4 bytes (little-endian magnitude, sign in the top bit of
 * the last byte), without the minimal-encoding check, as ScriptToAsmStr uses it. Four bytes always
 * fit in CScriptNum::getint()'s int range, so no clamping is needed.
 */
export function decodeScriptNum(data: Uint8Array): number {
  const n = data.length;
  if (n === 0) return 0;
  let v = 0;
  for (let i = 0; i < n; i++) v += data[i]! * 2 ** (8 * i);
  const top = data[n - 1]!;
  if (top & 0x80) return -(v - 0x80 * 2 ** (8 * (n - 1)));
  return v;
}

export interface AsmOptions {
  /** Decode `[ALL]`-style sighash suffixes on signature-shaped pushes (Core does this for scriptSig). */
  sighashDecode?: boolean;
  /**
   * The script's hex when the caller has it already: pushes are then sliced out of it (V8 string
   * slices share memory) instead of being hex-encoded a second time.
   */
  hex?: string;
}

/** Core's CScript::IsUnspendable. */
function isUnspendable(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === OP_RETURN) || script.length > MAX_SCRIPT_SIZE;
}

/** Hex of script[start, end), sliced from the script's hex when given. */
function pushHex(script: Uint8Array, hex: string | undefined, start: number, end: number): string {
  return hex === undefined ? toHex(script.subarray(start, end)) : hex.slice(2 * start, 2 * end);
}

/** Core's ScriptToAsmStr (core_write.cpp). */
export function scriptToAsm(script: Uint8Array, opts: AsmOptions = {}): string {
  const decodeSighash = opts.sighashDecode === true && !isUnspendable(script);
  const hex = opts.hex;
  const parts: string[] = [];
  let pc = 0;
  while (pc < script.length) {
    const op = readOp(script, pc);
    if (op === null) {
      parts.push("[error]");
      break;
    }
    pc = op.end;
    const data = op.data;
    if (data !== null && op.opcode <= OP_PUSHDATA4) {
      if (data.length <= 4) {
        parts.push(String(decodeScriptNum(data)));
      } else if (decodeSighash && isStrictSignature(data)) {
        const name = sighashToStr(data[data.length - 1]!);
        parts.push(`${pushHex(script, hex, op.end - data.length, op.end - 1)}[${name}]`);
      } else {
        parts.push(pushHex(script, hex, op.end - data.length, op.end));
      }
    } else {
      parts.push(opcodeName(op.opcode));
    }
  }
  return parts.join(" ");
}
