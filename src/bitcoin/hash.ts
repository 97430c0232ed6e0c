import { createHash } from "node:crypto";

export function sha256(...parts: Uint8Array[]): Uint8Array {
  const h = createHash("sha256");
  for (const p of parts) h.update(p);
  return h.digest();
}

/** Double SHA-256 over the concatenation of `parts` (hashed piecewise, so nothing is copied). */
export function sha256d(...parts: Uint8Array[]): Uint8Array {
  return createHash("sha256")
    .update(sha256(...parts))
    .digest();
}

/** RIPEMD160(SHA256(x)), the hash inside P2PKH and P2WPKH. */
export function hash160(data: Uint8Array): Uint8Array {
  return createHash("ripemd160").update(sha256(data)).digest();
}
