/**
 * BIP66 strict DER check, as Core's IsValidSignatureEncoding (script/interpreter.cpp). The last
 * byte is the sighash type and is not part of the DER structure.
 */
export function isValidSignatureEncoding(sig: Uint8Array): boolean {
  const len = sig.length;
  if (len < 9 || len > 73) return false;
  if (sig[0] !== 0x30) return false;
  if (sig[1] !== len - 3) return false;
  const lenR = sig[3]!;
  if (5 + lenR >= len) return false;
  const lenS = sig[5 + lenR]!;
  if (lenR + lenS + 7 !== len) return false;
  if (sig[2] !== 0x02) return false;
  if (lenR === 0) return false;
  if (sig[4]! & 0x80) return false;
  if (lenR > 1 && sig[4] === 0x00 && !(sig[5]! & 0x80)) return false;
  if (sig[lenR + 4] !== 0x02) return false;
  if (lenS === 0) return false;
  if (sig[lenR + 6]! & 0x80) return false;
  if (lenS > 1 && sig[lenR + 6] === 0x00 && !(sig[lenR + 7]! & 0x80)) return false;
  return true;
}

const SIGHASH_NAMES = new Map<number, string>([
  [0x01, "ALL"],
  [0x81, "ALL|ANYONECANPAY"],
  [0x02, "NONE"],
  [0x82, "NONE|ANYONECANPAY"],
  [0x03, "SINGLE"],
  [0x83, "SINGLE|ANYONECANPAY"],
]);

/** Core's SighashToStr: the name of a defined hashtype, or "" for anything else. */
export function sighashToStr(hashtype: number): string {
  return SIGHASH_NAMES.get(hashtype) ?? "";
}

/**
 * Core's CheckSignatureEncoding under SCRIPT_VERIFY_STRICTENC for a non-empty push: strict DER
 * plus a defined hashtype (ALL/NONE/SINGLE, optionally |ANYONECANPAY).
 */
export function isStrictSignature(sig: Uint8Array): boolean {
  if (!isValidSignatureEncoding(sig)) return false;
  const base = sig[sig.length - 1]! & ~0x80;
  return base >= 0x01 && base <= 0x03;
}
