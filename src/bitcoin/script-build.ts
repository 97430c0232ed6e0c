/**
 * Core's CScript `<<` for the two things block building pushes: integers (push_int64: OP_0,
 * OP_1..OP_16 and -1 as opcodes, others as minimal CScriptNum) and byte vectors (the smallest
 * push opcode for the length).
 */
export function pushInt(n: number): Uint8Array {
  if (n === 0) return Uint8Array.of(0x00);
  if (n === -1) return Uint8Array.of(0x4f);
  if (n >= 1 && n <= 16) return Uint8Array.of(0x50 + n);
  return pushBytes(scriptNum(n));
}

/** CScriptNum::serialize: little-endian magnitude, sign in the top bit of the last byte. */
export function scriptNum(n: number): Uint8Array {
  if (n === 0) return new Uint8Array(0);
  const neg = n < 0;
  let abs = Math.abs(n);
  const bytes: number[] = [];
  while (abs > 0) {
    bytes.push(abs & 0xff);
    abs = Math.floor(abs / 256);
  }
  if (bytes[bytes.length - 1]! & 0x80) bytes.push(neg ? 0x80 : 0);
  else if (neg) bytes[bytes.length - 1]! |= 0x80;
  return Uint8Array.from(bytes);
}

export function pushBytes(data: Uint8Array): Uint8Array {
  const n = data.length;
  const prefix =
    n < 0x4c
      ? [n]
      : n <= 0xff
        ? [0x4c, n]
        : n <= 0xffff
          ? [0x4d, n & 0xff, n >> 8]
          : [0x4e, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24];
  const out = new Uint8Array(prefix.length + n);
  out.set(prefix, 0);
  out.set(data, prefix.length);
  return out;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Bitcoin's CompactSize length prefix. */
export function compactSizeBytes(n: number): Uint8Array {
  if (n < 253) return Uint8Array.of(n);
  if (n <= 0xffff) return Uint8Array.of(253, n & 0xff, n >> 8);
  return Uint8Array.of(254, n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24);
}
