import { DecodeError } from "./errors.ts";
import { sha256d } from "./hash.ts";
import { toHexReversed } from "./hex.ts";
import { computeMerkleRoot } from "./merkle.ts";
import { ByteReader, compactSizeLength } from "./reader.ts";
import { readTransaction, type Transaction } from "./transaction.ts";

export const BLOCK_HEADER_SIZE = 80;

export interface BlockHeader {
  /** Block hash, display order. */
  readonly hash: string;
  readonly hashBytes: Uint8Array;
  /** Signed, as Core's CBlockHeader::nVersion (int32). */
  readonly version: number;
  readonly previousblockhash: string;
  readonly merkleroot: string;
  readonly merklerootBytes: Uint8Array;
  readonly time: number;
  /** Compact target as 8 hex digits, as getblock prints it (`%08x`). */
  readonly bits: string;
  readonly nonce: number;
  /** The 80 header bytes. */
  readonly headerBytes: Uint8Array;
}

export interface Block extends BlockHeader {
  readonly transactions: Transaction[];
  readonly size: number;
  /** Size with every transaction's witness removed (getblock's strippedsize). */
  readonly strippedsize: number;
  readonly weight: number;
  /** The exact block bytes (a view into the input). */
  readonly bytes: Uint8Array;
}

function readHeader(r: ByteReader): BlockHeader {
  const headerBytes = r.bytesView(BLOCK_HEADER_SIZE, "block header");
  const h = new ByteReader(headerBytes);
  const version = h.i32();
  const prev = h.bytesView(32);
  const merklerootBytes = h.bytesView(32);
  const time = h.u32();
  const bits = h.u32();
  const nonce = h.u32();
  const hashBytes = sha256d(headerBytes);
  return {
    hash: toHexReversed(hashBytes),
    hashBytes,
    version,
    previousblockhash: toHexReversed(prev),
    merkleroot: toHexReversed(merklerootBytes),
    merklerootBytes,
    time,
    bits: bits.toString(16).padStart(8, "0"),
    nonce,
    headerBytes,
  };
}

export function parseBlockHeader(bytes: Uint8Array): BlockHeader {
  if (bytes.length !== BLOCK_HEADER_SIZE) {
    throw new DecodeError(`block header must be 80 bytes, got ${bytes.length}`);
  }
  return readHeader(new ByteReader(bytes));
}

// A transaction takes at least 10 bytes (version, two empty counts, locktime).
const MIN_TX_BYTES = 10;

/**
 * Decode a raw block (80-byte header, compact-size count, transactions in BIP144 form). Block
 * transactions are always read with witness allowed, as Core does; the bytes must be consumed
 * exactly.
 */
export function parseBlock(bytes: Uint8Array): Block {
  const r = new ByteReader(bytes);
  const header = readHeader(r);
  const n = r.count(MIN_TX_BYTES, "transaction");
  const transactions = new Array<Transaction>(n);
  let strippedsize = BLOCK_HEADER_SIZE + compactSizeLength(n);
  for (let i = 0; i < n; i++) {
    const tx = readTransaction(r, true);
    transactions[i] = tx;
    strippedsize += tx.strippedSize;
  }
  if (r.remaining !== 0) throw new DecodeError(`${r.remaining} trailing bytes after block`, r.pos);
  return {
    ...header,
    transactions,
    size: bytes.length,
    strippedsize,
    weight: strippedsize * 3 + bytes.length,
    bytes,
  };
}

/** Merkle root recomputed from the block's transactions, wire byte order. */
export function blockMerkleRoot(block: Block): Uint8Array {
  return computeMerkleRoot(block.transactions.map((tx) => tx.txidBytes));
}

/** Whether the header's merkle root matches the transactions. */
export function checkMerkleRoot(block: Block): boolean {
  return Buffer.from(blockMerkleRoot(block)).equals(block.merklerootBytes);
}
