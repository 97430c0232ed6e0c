import { sha256d } from "./hash.ts";

const ALPHABET = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const ONE = 0x31; // "1", the digit zero
// The number is kept in limbs of four base-58 digits and fed three bytes at a time: a limb
// (< 58^4 < 2^24) × 2^24 + carry stays below 2^48, exact in a double. A 25-byte address payload
// is 9 steps over at most 9 limbs, where a digit-by-digit conversion does 25 over 34.
const LIMB = 58 ** 4;
const LIMB_DIGITS = 4;
// Scratch space, grown on demand (JS is single-threaded, so sharing it is safe).
let limbs = new Float64Array(16);
let chars = Buffer.alloc(64);

/**
 * Base58 as Core's EncodeBase58 writes it: a '1' per leading zero byte, then the rest as a
 * big-endian number in base 58. Replaces @scure/base's generic radix conversion, which was most of
 * the cost of an address (test/bitcoin/base58.test.ts checks the two agree).
 */
export function encodeBase58(bytes: Uint8Array): string {
  const n = bytes.length;
  let zeros = 0;
  while (zeros < n && bytes[zeros] === 0) zeros++;
  // log(256) / log(58^4) < 0.342 limbs per byte.
  const limbsMax = Math.ceil((n - zeros) * 0.342) + 2;
  if (limbs.length < limbsMax) limbs = new Float64Array(limbsMax * 2);
  let used = 0; // limbs[0] is the least significant
  // The first group takes what is left over, so that every later one is three whole bytes.
  let i = zeros;
  let take = (n - zeros) % 3 || 3;
  while (i < n) {
    let carry = 0;
    for (const end = i + take; i < end; i++) carry = carry * 256 + bytes[i]!;
    const factor = take === 3 ? 0x1000000 : take === 2 ? 0x10000 : 0x100;
    take = 3;
    for (let j = 0; j < used; j++) {
      const x = limbs[j]! * factor + carry;
      carry = Math.floor(x / LIMB);
      limbs[j] = x - carry * LIMB;
    }
    while (carry > 0) {
      const q = Math.floor(carry / LIMB);
      limbs[used++] = carry - q * LIMB;
      carry = q;
    }
  }
  const length = zeros + used * LIMB_DIGITS;
  if (chars.length < length) chars = Buffer.alloc(length * 2);
  // Digits from the least significant, written backwards from the end.
  let at = length;
  for (let j = 0; j < used; j++) {
    let v = limbs[j]!;
    for (let k = 0; k < LIMB_DIGITS; k++) {
      const q = Math.floor(v / 58);
      chars[--at] = CODES[v - q * 58]!;
      v = q;
    }
  }
  while (at < length && chars[at] === ONE) at++; // the top limb's leading zero digits
  for (let z = 0; z < zeros; z++) chars[--at] = ONE;
  return chars.toString("latin1", at, length);
}

/** Base58Check: the payload followed by the first four bytes of its double SHA-256. */
export function encodeBase58Check(payload: Uint8Array): string {
  const withSum = new Uint8Array(payload.length + 4);
  withSum.set(payload);
  withSum.set(sha256d(payload).subarray(0, 4), payload.length);
  return encodeBase58(withSum);
}
