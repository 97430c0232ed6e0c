import { createHash, hash } from "node:crypto";

// SHA-256 (FIPS 180-4) of one block, in JS, for inputs of at most 55 bytes: address checksums,
// script hashes, the second round of a double hash. A call into OpenSSL costs about 1.5 µs
// whatever the size (argument checks, the EVP context, the result Buffer); one block here costs
// about 0.5 µs. Longer inputs go to OpenSSL, which is faster from the second block on.
const SHORT_BYTES_MAX = 55;
const K = Uint32Array.of(
  0x428a2f98,
  0x71374491,
  0xb5c0fbcf,
  0xe9b5dba5,
  0x3956c25b,
  0x59f111f1,
  0x923f82a4,
  0xab1c5ed5,
  0xd807aa98,
  0x12835b01,
  0x243185be,
  0x550c7dc3,
  0x72be5d74,
  0x80deb1fe,
  0x9bdc06a7,
  0xc19bf174,
  0xe49b69c1,
  0xefbe4786,
  0x0fc19dc6,
  0x240ca1cc,
  0x2de92c6f,
  0x4a7484aa,
  0x5cb0a9dc,
  0x76f988da,
  0x983e5152,
  0xa831c66d,
  0xb00327c8,
  0xbf597fc7,
  0xc6e00bf3,
  0xd5a79147,
  0x06ca6351,
  0x14292967,
  0x27b70a85,
  0x2e1b2138,
  0x4d2c6dfc,
  0x53380d13,
  0x650a7354,
  0x766a0abb,
  0x81c2c92e,
  0x92722c85,
  0xa2bfe8a1,
  0xa81a664b,
  0xc24b8b70,
  0xc76c51a3,
  0xd192e819,
  0xd6990624,
  0xf40e3585,
  0x106aa070,
  0x19a4c116,
  0x1e376c08,
  0x2748774c,
  0x34b0bcb5,
  0x391c0cb3,
  0x4ed8aa4a,
  0x5b9cca4f,
  0x682e6ff3,
  0x748f82ee,
  0x78a5636f,
  0x84c87814,
  0x8cc70208,
  0x90befffa,
  0xa4506ceb,
  0xbef9a3f7,
  0xc67178f2,
);
// The message schedule and the padded block (JS is single-threaded, so sharing them is safe).
const W = new Int32Array(64);
const BLOCK = new Uint8Array(64);

function put(out: Uint8Array, at: number, word: number): void {
  out[at] = word >>> 24;
  out[at + 1] = word >>> 16;
  out[at + 2] = word >>> 8;
  out[at + 3] = word;
}

function sha256Short(data: Uint8Array): Uint8Array {
  const len = data.length;
  BLOCK.fill(0);
  BLOCK.set(data);
  BLOCK[len] = 0x80;
  // The length in bits, big-endian, in the last bytes (len ≤ 55, so it fits in two).
  BLOCK[62] = (len * 8) >>> 8;
  BLOCK[63] = (len * 8) & 0xff;
  for (let i = 0; i < 16; i++) {
    const j = i * 4;
    W[i] = (BLOCK[j]! << 24) | (BLOCK[j + 1]! << 16) | (BLOCK[j + 2]! << 8) | BLOCK[j + 3]!;
  }
  for (let i = 16; i < 64; i++) {
    const x = W[i - 15]!;
    const y = W[i - 2]!;
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
  }
  let a = 0x6a09e667 | 0;
  let b = 0xbb67ae85 | 0;
  let c = 0x3c6ef372 | 0;
  let d = 0xa54ff53a | 0;
  let e = 0x510e527f | 0;
  let f = 0x9b05688c | 0;
  let g = 0x1f83d9ab | 0;
  let h = 0x5be0cd19 | 0;
  for (let i = 0; i < 64; i++) {
    const s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[i]! + W[i]!) | 0;
    const s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  // Its own memory, not a slice of Buffer's shared pool: callers keep hashes (txids) for long.
  const out = new Uint8Array(32);
  put(out, 0, 0x6a09e667 + a);
  put(out, 4, 0xbb67ae85 + b);
  put(out, 8, 0x3c6ef372 + c);
  put(out, 12, 0xa54ff53a + d);
  put(out, 16, 0x510e527f + e);
  put(out, 20, 0x9b05688c + f);
  put(out, 24, 0x1f83d9ab + g);
  put(out, 28, 0x5be0cd19 + h);
  return out;
}

// One-shot crypto.hash (Node ≥ 20.12) skips the Hash object setup that dominates for the many
// small inputs here (txids); createHash is kept for multi-part input.
function sha256Once(data: Uint8Array): Uint8Array {
  return data.length <= SHORT_BYTES_MAX ? sha256Short(data) : hash("sha256", data, "buffer");
}

export function sha256(...parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return sha256Once(parts[0]!);
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
}

/** Double SHA-256 over the concatenation of `parts` (hashed piecewise, so nothing is copied). */
export function sha256d(...parts: Uint8Array[]): Uint8Array {
  return sha256Once(sha256(...parts));
}

/** RIPEMD160(SHA256(x)), the hash inside P2PKH and P2WPKH. */
export function hash160(data: Uint8Array): Uint8Array {
  return hash("ripemd160", sha256Once(data), "buffer");
}
