import { createHash, hash } from "node:crypto";

// One-shot crypto.hash (Node ≥ 20.12) skips the Hash object setup that dominates for the many
// small inputs here (txids, address checksums); createHash is kept for multi-part input.
function sha256Once(data: Uint8Array): Buffer {
  return hash("sha256", data, "buffer");
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
