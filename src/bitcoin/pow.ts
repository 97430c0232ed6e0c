import type { Network } from "./network.ts";

/** Core's consensus.powLimit per chain (chainparams.cpp): the easiest target a header may claim. */
export const POW_LIMIT: Readonly<Record<Network, bigint>> = {
  mainnet: 0x00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffffn,
  testnet: 0x00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffffn,
  testnet4: 0x00000000ffffffffffffffffffffffffffffffffffffffffffffffffffffffffn,
  signet: 0x00000377ae000000000000000000000000000000000000000000000000000000n,
  regtest: 0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffn,
};

const UINT256_MASK = (1n << 256n) - 1n;

/**
 * Core's DeriveTarget (pow.cpp): arith_uint256::SetCompact, then the range check. Undefined for a
 * negative, zero or overflowing encoding and for a target above the chain's powLimit — nBits that
 * no header in Core's block index can carry.
 */
export function deriveTarget(bits: number, network: Network): bigint | undefined {
  const size = bits >>> 24;
  let word = bits & 0x007fffff;
  let target: bigint;
  if (size <= 3) {
    word >>>= 8 * (3 - size);
    target = BigInt(word);
  } else {
    // arith_uint256's shift drops what passes bit 255; the overflow flag below covers those cases.
    target = (BigInt(word) << BigInt(8 * (size - 3))) & UINT256_MASK;
  }
  const negative = word !== 0 && (bits & 0x00800000) !== 0;
  const overflow =
    word !== 0 && (size > 34 || (word > 0xff && size > 33) || (word > 0xffff && size > 32));
  if (negative || overflow || target === 0n || target > POW_LIMIT[network]) return undefined;
  return target;
}

/** A 256-bit value as uint256::GetHex prints it: 64 hex digits, most significant first. */
export function uint256Hex(value: bigint): string {
  return value.toString(16).padStart(64, "0");
}

/**
 * Core's GetDifficulty (rpc/blockchain.cpp): 0xffff over the mantissa, scaled by 256 per step of
 * the exponent away from 29. The same double operations in the same order, so the same double.
 */
export function getDifficulty(bits: number): number {
  let shift = (bits >>> 24) & 0xff;
  let diff = 0x0000ffff / (bits & 0x00ffffff);
  while (shift < 29) {
    diff *= 256.0;
    shift++;
  }
  while (shift > 29) {
    diff /= 256.0;
    shift--;
  }
  return diff;
}
