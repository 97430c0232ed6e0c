import { DecodeError } from "./errors.ts";

// Buffer's native hex codec is far faster than building strings byte by byte; these helpers only
// wrap the same memory (no copy) so callers can stay on plain Uint8Array.
function view(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function toHex(bytes: Uint8Array): string {
  return view(bytes).toString("hex");
}

/** Hex of the bytes in reverse order: how Bitcoin displays hashes (txid, block hash). */
export function toHexReversed(bytes: Uint8Array): string {
  const copy = Buffer.allocUnsafe(bytes.length);
  for (let i = 0, j = bytes.length - 1; j >= 0; i++, j--) copy[i] = bytes[j]!;
  return copy.toString("hex");
}

/**
 * Strict hex decode. Buffer.from(…, "hex") silently stops at the first pair holding a non-hex
 * digit (and drops an odd last digit), so the string was all hex exactly when it decoded to half
 * its length: a check after the native decode, rather than a regular expression before it.
 */
export function fromHex(hex: string): Uint8Array {
  const buf = Buffer.from(hex, "hex");
  if (buf.byteLength * 2 !== hex.length) throw new DecodeError("invalid hex string");
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

/** Display-order hex (e.g. a txid) to internal byte order. */
export function fromHexReversed(hex: string): Uint8Array {
  return fromHex(hex).reverse();
}
