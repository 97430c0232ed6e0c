/** secp256k1 field prime. */
const P = 2n ** 256n - 2n ** 32n - 977n;

function modPow(base: bigint, exp: bigint, mod: bigint): bigint {
  let result = 1n;
  let b = base % mod;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % mod;
    b = (b * b) % mod;
    e >>= 1n;
  }
  return result;
}

/**
 * Core's XOnlyPubKey::IsFullyValid: the 32 bytes are an x coordinate below p with a point on
 * secp256k1 (x³ + 7 is a square mod p, by Euler's criterion). InferDescriptor renders rawtr()
 * only for such keys and falls back to addr() otherwise.
 */
export function isValidXOnlyPubkey(x32: Uint8Array): boolean {
  if (x32.length !== 32) return false;
  const x = BigInt(`0x${Buffer.from(x32.buffer, x32.byteOffset, 32).toString("hex")}`);
  if (x >= P) return false;
  const c = (x * x * x + 7n) % P;
  return modPow(c, (P - 1n) / 2n, P) === 1n;
}
