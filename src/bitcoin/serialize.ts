import { compactSizeLength } from "./reader.ts";
import type { TxInput, TxOutput } from "./transaction.ts";

/** The fields serialization needs; a decoded Transaction satisfies it, so do hand-built ones. */
export interface TransactionFields {
  version: number;
  locktime: number;
  inputs: readonly TxInput[];
  outputs: readonly TxOutput[];
}

/** Sequential writer into a buffer sized exactly beforehand. */
class ByteWriter {
  readonly out: Uint8Array;
  private readonly dv: DataView;
  pos = 0;

  constructor(size: number) {
    this.out = new Uint8Array(size);
    this.dv = new DataView(this.out.buffer);
  }

  u8(v: number): void {
    this.out[this.pos++] = v;
  }

  u32(v: number): void {
    this.dv.setUint32(this.pos, v >>> 0, true);
    this.pos += 4;
  }

  i64(v: bigint): void {
    this.dv.setBigInt64(this.pos, v, true);
    this.pos += 8;
  }

  bytes(b: Uint8Array): void {
    this.out.set(b, this.pos);
    this.pos += b.length;
  }

  compactSize(n: number): void {
    if (n < 253) {
      this.u8(n);
    } else if (n <= 0xffff) {
      this.u8(253);
      this.dv.setUint16(this.pos, n, true);
      this.pos += 2;
    } else {
      this.u8(254);
      this.u32(n);
    }
  }

  varBytes(b: Uint8Array): void {
    this.compactSize(b.length);
    this.bytes(b);
  }
}

function varBytesLength(b: Uint8Array): number {
  return compactSizeLength(b.length) + b.length;
}

/** Core writes the extended form exactly when some input carries a non-empty witness. */
export function hasAnyWitness(tx: TransactionFields): boolean {
  return tx.inputs.some((i) => i.witness.length > 0);
}

/**
 * Serialize from the fields (not from any cached bytes), as Core's SerializeTransaction does:
 * BIP144 extended form when `witness` is allowed and some input has a witness, legacy otherwise.
 */
export function serializeTransaction(
  tx: TransactionFields,
  opts: { witness?: boolean } = {},
): Uint8Array {
  const extended = (opts.witness ?? true) && hasAnyWitness(tx);
  let size = 4 + compactSizeLength(tx.inputs.length) + compactSizeLength(tx.outputs.length) + 4;
  for (const i of tx.inputs) size += 32 + 4 + varBytesLength(i.scriptSig) + 4;
  for (const o of tx.outputs) size += 8 + varBytesLength(o.scriptPubKey);
  if (extended) {
    size += 2;
    for (const i of tx.inputs) {
      size += compactSizeLength(i.witness.length);
      for (const item of i.witness) size += varBytesLength(item);
    }
  }
  const w = new ByteWriter(size);
  w.u32(tx.version);
  if (extended) {
    w.u8(0);
    w.u8(1);
  }
  w.compactSize(tx.inputs.length);
  for (const i of tx.inputs) {
    w.bytes(i.prevTxidBytes);
    w.u32(i.vout);
    w.varBytes(i.scriptSig);
    w.u32(i.sequence);
  }
  w.compactSize(tx.outputs.length);
  for (const o of tx.outputs) {
    w.i64(o.value);
    w.varBytes(o.scriptPubKey);
  }
  if (extended) {
    for (const i of tx.inputs) {
      w.compactSize(i.witness.length);
      for (const item of i.witness) w.varBytes(item);
    }
  }
  w.u32(tx.locktime);
  return w.out;
}
