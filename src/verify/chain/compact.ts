const UINT256_MASK = (1n << 256n) - 1n;

function bitLength(value: bigint): number {
  return value === 0n ? 0 : value.toString(2).length;
}

/**
 * arith_uint256::GetCompact (non-negative): the mantissa's top three bytes and a size byte, the
 * mantissa shifted down a byte when its sign bit would be set.
 */
export function toCompact(value: bigint): number {
  let size = Math.ceil(bitLength(value) / 8);
  let compact: number;
  if (size <= 3) compact = Number((value << BigInt(8 * (3 - size))) & 0xffffffffn);
  else compact = Number((value >> BigInt(8 * (size - 3))) & 0xffffffffn);
  if (compact & 0x00800000) {
    compact >>>= 8;
    size += 1;
  }
  return ((compact | (size << 24)) >>> 0) as number;
}

/** arith_uint256 multiplication: the product modulo 2^256, as Core's type wraps it. */
export function mul256(a: bigint, b: bigint): bigint {
  return (a * b) & UINT256_MASK;
}
