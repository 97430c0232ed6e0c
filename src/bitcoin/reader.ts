import { DecodeError } from "./errors.ts";

/** Core's MAX_SIZE: ReadCompactSize refuses anything larger (serialize.h). */
export const MAX_COMPACT_SIZE = 0x02000000;

/**
 * Cursor over a byte array with Bitcoin's little-endian primitives. Every read checks the remaining
 * length first, so malformed input ends in a DecodeError instead of reading past the end.
 */
export class ByteReader {
  readonly bytes: Uint8Array;
  private readonly dv: DataView;
  pos: number;

  constructor(bytes: Uint8Array, pos = 0) {
    this.bytes = bytes;
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = pos;
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  private need(n: number, what: string): void {
    if (this.bytes.length - this.pos < n) {
      throw new DecodeError(`unexpected end of data reading ${what}`, this.pos);
    }
  }

  u8(): number {
    this.need(1, "u8");
    return this.bytes[this.pos++]!;
  }

  u16(): number {
    this.need(2, "u16");
    const v = this.dv.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }

  u32(): number {
    this.need(4, "u32");
    const v = this.dv.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  i32(): number {
    this.need(4, "i32");
    const v = this.dv.getInt32(this.pos, true);
    this.pos += 4;
    return v;
  }

  i64(): bigint {
    this.need(8, "i64");
    const v = this.dv.getBigInt64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** A view (no copy) of the next n bytes. */
  bytesView(n: number, what = "bytes"): Uint8Array {
    this.need(n, what);
    const out = this.bytes.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /**
   * Core's ReadCompactSize with range_check: the shortest encoding is mandatory
   * ("non-canonical ReadCompactSize()") and values above MAX_SIZE are refused.
   */
  compactSize(what = "compact size"): number {
    const start = this.pos;
    const first = this.u8();
    let v: number;
    if (first < 253) {
      v = first;
    } else if (first === 253) {
      v = this.u16();
      if (v < 253) throw new DecodeError(`non-canonical compact size for ${what}`, start);
    } else if (first === 254) {
      v = this.u32();
      if (v < 0x10000) throw new DecodeError(`non-canonical compact size for ${what}`, start);
    } else {
      this.need(8, what);
      const big = this.dv.getBigUint64(this.pos, true);
      this.pos += 8;
      if (big < 0x100000000n)
        throw new DecodeError(`non-canonical compact size for ${what}`, start);
      throw new DecodeError(`compact size too large for ${what}`, start);
    }
    if (v > MAX_COMPACT_SIZE) throw new DecodeError(`compact size too large for ${what}`, start);
    return v;
  }

  /**
   * A count of items that each take at least `minItemBytes`: refusing counts that could not fit in
   * the bytes left keeps a 5-byte header from making us allocate or loop for millions of items.
   */
  count(minItemBytes: number, what: string): number {
    const start = this.pos;
    const n = this.compactSize(what);
    if (n * minItemBytes > this.remaining) {
      throw new DecodeError(
        `${what} count ${n} exceeds the remaining ${this.remaining} bytes`,
        start,
      );
    }
    return n;
  }

  /** compact-size length followed by that many bytes (a script or a witness item). */
  varBytes(what: string): Uint8Array {
    return this.bytesView(this.varLength(what), what);
  }

  /** Passes over what varBytes would read, with the same checks, without making a view. */
  skipVarBytes(what: string): void {
    const n = this.varLength(what); // first: it moves past the length prefix
    this.pos += n;
  }

  private varLength(what: string): number {
    const start = this.pos;
    const n = this.compactSize(what);
    if (n > this.remaining) {
      throw new DecodeError(
        `${what} length ${n} exceeds the remaining ${this.remaining} bytes`,
        start,
      );
    }
    return n;
  }
}

export function compactSizeLength(n: number): number {
  return n < 253 ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}
