import { fromHexReversed } from "./hex.ts";

/** The fields of an 80-byte block header, hashes in display order. */
export interface HeaderFields {
  version: number;
  previousblockhash: string;
  merkleroot: string;
  time: number;
  bits: number;
  nonce: number;
}

/** CBlockHeader's serialization: what the block hash and proof of work are computed over. */
export function serializeHeader(h: HeaderFields): Uint8Array {
  const out = new Uint8Array(80);
  const dv = new DataView(out.buffer);
  dv.setInt32(0, h.version, true);
  out.set(fromHexReversed(h.previousblockhash), 4);
  out.set(fromHexReversed(h.merkleroot), 36);
  dv.setUint32(68, h.time, true);
  dv.setUint32(72, h.bits, true);
  dv.setUint32(76, h.nonce, true);
  return out;
}
