import { DecodeError } from "./errors.ts";

/** Mainnet network magic as it appears on disk/wire (Core's blk*.dat, btcd's test records). */
export const MAINNET_MAGIC = Uint8Array.of(0xf9, 0xbe, 0xb4, 0xd9);

/**
 * Split a `[magic][u32 LE length][raw block]…` record file into raw block views (no copies).
 * Zero padding after the last record is tolerated, as in Core's preallocated blk files.
 */
export function* readBlockRecords(
  bytes: Uint8Array,
  magic: Uint8Array = MAINNET_MAGIC,
): Generator<Uint8Array> {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  while (pos < bytes.length) {
    if (bytes[pos] === 0 && bytes.subarray(pos).every((b) => b === 0)) return;
    if (bytes.length - pos < 8) throw new DecodeError("truncated block record header", pos);
    for (let i = 0; i < 4; i++) {
      if (bytes[pos + i] !== magic[i]) throw new DecodeError("bad network magic", pos);
    }
    const len = dv.getUint32(pos + 4, true);
    pos += 8;
    if (len > bytes.length - pos) {
      throw new DecodeError(`block record of ${len} bytes exceeds the file`, pos - 4);
    }
    yield bytes.subarray(pos, pos + len);
    pos += len;
  }
}
