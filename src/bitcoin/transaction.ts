import { DecodeError } from "./errors.ts";
import { sha256d } from "./hash.ts";
import { toHex, toHexReversed } from "./hex.ts";
import { ByteReader } from "./reader.ts";
import { hasValidOps, MAX_SCRIPT_SIZE } from "./script-ops.ts";

export interface TxInput {
  /** Spent txid in display order (reversed hex), as RPC output shows it. */
  readonly prevTxid: string;
  /** Spent txid in wire byte order. */
  readonly prevTxidBytes: Uint8Array;
  readonly vout: number;
  readonly scriptSig: Uint8Array;
  readonly sequence: number;
  /** Witness stack; empty when the input has none. */
  readonly witness: Uint8Array[];
}

export interface TxOutput {
  /** Satoshis; Core's CAmount is a signed 64-bit integer, so a raw tx may carry a negative one. */
  readonly value: bigint;
  readonly scriptPubKey: Uint8Array;
}

/** Where the non-witness parts of `bytes` lie, so txid hashing needs no copy. */
interface Layout {
  /** Offset of the input count (after the 0x00 0x01 marker and flag when present). */
  bodyStart: number;
  /** Offset just past the outputs (start of the witness section or of nLockTime). */
  bodyEnd: number;
}

/**
 * A decoded transaction. `bytes` is its exact serialization (a view into the buffer it was read
 * from); txid/wtxid/hex are computed on first use.
 */
export class Transaction {
  readonly version: number;
  readonly locktime: number;
  readonly inputs: TxInput[];
  readonly outputs: TxOutput[];
  readonly bytes: Uint8Array;
  /** Serialized in the BIP144 extended form (marker, flag, witnesses). */
  readonly hasWitness: boolean;
  /** Size without witness data (what the txid commits to). */
  readonly strippedSize: number;
  private readonly layout: Layout;
  private cachedTxid: Uint8Array | undefined;
  private cachedWtxid: Uint8Array | undefined;
  /** The txid as text: a decoded transaction is shared (cache/parsed-txs.ts) and asked it often. */
  private cachedTxidText: string | undefined;

  constructor(
    fields: {
      version: number;
      locktime: number;
      inputs: TxInput[];
      outputs: TxOutput[];
      hasWitness: boolean;
    },
    bytes: Uint8Array,
    layout: Layout,
  ) {
    this.version = fields.version;
    this.locktime = fields.locktime;
    this.inputs = fields.inputs;
    this.outputs = fields.outputs;
    this.hasWitness = fields.hasWitness;
    this.bytes = bytes;
    this.layout = layout;
    this.strippedSize = fields.hasWitness
      ? 4 + (layout.bodyEnd - layout.bodyStart) + 4
      : bytes.length;
  }

  get size(): number {
    return this.bytes.length;
  }

  /** BIP141 weight: stripped size × 3 + total size. */
  get weight(): number {
    return this.strippedSize * 3 + this.bytes.length;
  }

  /** Core's GetVirtualTransactionSize without the sigop term: ceil(weight / 4). */
  get vsize(): number {
    return Math.ceil(this.weight / 4);
  }

  /** txid in wire byte order (hash of the serialization without witness). */
  get txidBytes(): Uint8Array {
    if (this.cachedTxid === undefined) {
      const b = this.bytes;
      this.cachedTxid = this.hasWitness
        ? sha256d(
            b.subarray(0, 4),
            b.subarray(this.layout.bodyStart, this.layout.bodyEnd),
            b.subarray(b.length - 4),
          )
        : sha256d(b);
    }
    return this.cachedTxid;
  }

  /** wtxid in wire byte order; equals the txid for a transaction without witness. */
  get wtxidBytes(): Uint8Array {
    if (this.cachedWtxid === undefined) {
      this.cachedWtxid = this.hasWitness ? sha256d(this.bytes) : this.txidBytes;
    }
    return this.cachedWtxid;
  }

  get txid(): string {
    this.cachedTxidText ??= toHexReversed(this.txidBytes);
    return this.cachedTxidText;
  }

  get wtxid(): string {
    return toHexReversed(this.wtxidBytes);
  }

  get hex(): string {
    return toHex(this.bytes);
  }

  /** Core's CTransaction::IsCoinBase: one input spending the null outpoint. */
  get isCoinbase(): boolean {
    if (this.inputs.length !== 1) return false;
    const input = this.inputs[0]!;
    return input.vout === 0xffffffff && input.prevTxidBytes.every((b) => b === 0);
  }
}

// Smallest possible encodings, used to refuse counts that cannot fit in the remaining bytes.
const MIN_INPUT_BYTES = 32 + 4 + 1 + 4;
const MIN_OUTPUT_BYTES = 8 + 1;

function readInputs(r: ByteReader): TxInput[] {
  const n = r.count(MIN_INPUT_BYTES, "input");
  const inputs = new Array<TxInput>(n);
  for (let i = 0; i < n; i++) {
    const prevTxidBytes = r.bytesView(32, "prevout hash");
    const vout = r.u32();
    const scriptSig = r.varBytes("scriptSig");
    const sequence = r.u32();
    inputs[i] = {
      prevTxid: toHexReversed(prevTxidBytes),
      prevTxidBytes,
      vout,
      scriptSig,
      sequence,
      witness: [],
    };
  }
  return inputs;
}

function readOutputs(r: ByteReader): TxOutput[] {
  const n = r.count(MIN_OUTPUT_BYTES, "output");
  const outputs = new Array<TxOutput>(n);
  for (let i = 0; i < n; i++) {
    const value = r.i64();
    outputs[i] = { value, scriptPubKey: r.varBytes("scriptPubKey") };
  }
  return outputs;
}

/** Stacks longer than this get their items made on first use (see lazyWitness). */
const LAZY_WITNESS_ITEMS = 1_000;

/**
 * A very long witness stack (mainnet has one of 500,003 items) is checked now but its items are
 * made only when something reads them: half a million views cost a quarter of a second and as
 * much again in garbage collection, for a stack that is mostly hashed, sized or skipped.
 */
function lazyWitness(input: TxInput, r: ByteReader, n: number): void {
  const bytes = r.bytes;
  const start = r.pos;
  for (let i = 0; i < n; i++) r.skipVarBytes("witness item");
  let items: Uint8Array[] | undefined;
  Object.defineProperty(input, "witness", {
    enumerable: true,
    get(): Uint8Array[] {
      if (!items) {
        const again = new ByteReader(bytes, start);
        items = [];
        for (let i = 0; i < n; i++) items.push(again.varBytes("witness item"));
      }
      return items;
    },
  });
}

/**
 * Read one transaction at the reader's position, as Core's UnserializeTransaction does. With
 * `allowWitness` an empty input vector is taken as the BIP144 marker and the next byte as flags.
 */
export function readTransaction(r: ByteReader, allowWitness: boolean): Transaction {
  const start = r.pos;
  const version = r.u32();
  let bodyStart = r.pos;
  let inputs = readInputs(r);
  let outputs: TxOutput[] = [];
  let flags = 0;
  if (inputs.length === 0 && allowWitness) {
    flags = r.u8();
    if (flags !== 0) {
      bodyStart = r.pos;
      inputs = readInputs(r);
      outputs = readOutputs(r);
    }
  } else {
    outputs = readOutputs(r);
  }
  const bodyEnd = r.pos;
  let hasWitness = false;
  if (flags & 1 && allowWitness) {
    flags ^= 1;
    for (const input of inputs) {
      const n = r.count(1, "witness item");
      if (n > LAZY_WITNESS_ITEMS) lazyWitness(input, r, n);
      // One push at a time: spreading a 500,000-item stack would overflow the call stack.
      else for (let i = 0; i < n; i++) input.witness.push(r.varBytes("witness item"));
      if (n > 0) hasWitness = true;
    }
    if (!hasWitness) throw new DecodeError("superfluous witness record", r.pos);
  }
  if (flags !== 0) throw new DecodeError("unknown transaction optional data", r.pos);
  const locktime = r.u32();
  const bytes = r.bytes.subarray(start, r.pos);
  return new Transaction({ version, locktime, inputs, outputs, hasWitness }, bytes, {
    bodyStart: bodyStart - start,
    bodyEnd: bodyEnd - start,
  });
}

/** Core's CheckTxScriptsSanity (core_read.cpp): decodable scripts of sane size. */
function scriptsSane(tx: Transaction): boolean {
  if (!tx.isCoinbase) {
    for (const input of tx.inputs) {
      if (input.scriptSig.length > MAX_SCRIPT_SIZE || !hasValidOps(input.scriptSig)) return false;
    }
  }
  for (const output of tx.outputs) {
    if (output.scriptPubKey.length > MAX_SCRIPT_SIZE || !hasValidOps(output.scriptPubKey)) {
      return false;
    }
  }
  return true;
}

function tryRead(bytes: Uint8Array, allowWitness: boolean): Transaction | DecodeError {
  try {
    const r = new ByteReader(bytes);
    const tx = readTransaction(r, allowWitness);
    if (r.remaining !== 0) return new DecodeError(`${r.remaining} trailing bytes`, r.pos);
    return tx;
  } catch (e) {
    if (e instanceof DecodeError) return e;
    throw e;
  }
}

/**
 * Decode a standalone transaction like Core's DecodeTx: try the extended (witness) reading, then
 * the legacy one; prefer whichever consumed every byte and passes CheckTxScriptsSanity. This is
 * what makes a zero-input transaction such as `02000000 00 01 …` decode as legacy.
 */
export function parseTransaction(bytes: Uint8Array): Transaction {
  const extended = tryRead(bytes, true);
  if (extended instanceof Transaction && scriptsSane(extended)) return extended;
  const legacy = tryRead(bytes, false);
  if (legacy instanceof Transaction && scriptsSane(legacy)) return legacy;
  if (extended instanceof Transaction) return extended;
  if (legacy instanceof Transaction) return legacy;
  throw new DecodeError(`TX decode failed: ${extended.message}`, extended.offset);
}
