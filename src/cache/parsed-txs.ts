import {
  fromHex,
  parseTransaction,
  type ScriptPubKeyParts,
  type Transaction,
} from "../bitcoin/index.ts";
import type { NetworkName } from "../config/schema.ts";
import { ByteLru, type ByteLruStats } from "../util/byte-lru.ts";

/** A transaction decoded once, with its outputs' scripts decoded as they are asked for. */
export interface ParsedTx {
  /** The hex it was decoded from, if it was: a later answer in hex is this one only if equal. */
  hex: string | undefined;
  tx: Transaction;
  /** Output scripts by index, decoded on first use (type, address…) for the entry's network. */
  scripts: (ScriptPubKeyParts | undefined)[];
}

/**
 * What an entry holds in memory, estimated: the hex string (one byte a digit), the bytes, and the
 * decoded form with its scripts' parts, taken as four times the bytes again (an object and a
 * typed array view per input and output, the inputs' txids as strings, addresses). An estimate,
 * not a measure: it only has to keep the total within a small multiple of the budget. A node plan
 * may also hold the text it wrote for an entry's transaction beside it, weakly (query-plans/
 * node-plan.ts), about as much again as its hex.
 */
const costOf = (entry: ParsedTx): number =>
  (entry.hex?.length ?? 0) + entry.tx.bytes.length * 5 + 256;

/**
 * Transactions of the full node's answers, decoded, by network and txid (cache.decodedBytesMax).
 * The unified API decodes every transaction the node sends it (the hex of getrawtransaction), and
 * a block's transactions are asked again and again: a transaction already decoded from the same
 * hex is served from here, with whatever of its outputs was decoded already (addresses are most
 * of the cost). Only the decoding is shared: the node is asked and the call charged as before, and
 * what changes between answers (confirmations, block fields, undo data) is read from each answer.
 * An entry is served only for the very hex it was decoded from, so a different answer under the
 * same txid (another witness) is decoded anew and replaces it. Entries are shared by concurrent
 * requests and never changed but for their scripts' parts, which are a function of the bytes.
 */
export class ParsedTxs {
  private readonly lru: ByteLru<ParsedTx> | null;

  constructor(bytesMax: number) {
    this.lru = bytesMax > 0 ? new ByteLru(bytesMax, costOf) : null;
  }

  get stats(): ByteLruStats | null {
    return this.lru?.stats ?? null;
  }

  /** The transaction `hex` decodes to (throws as fromHex and parseTransaction do). */
  fromHex(network: NetworkName, txid: string, hex: string): ParsedTx {
    const key = `${network}:${txid}`;
    if (!this.lru) return decoded(undefined, parseTransaction(fromHex(hex)));
    const kept = this.lru.get(key);
    if (kept !== undefined && kept.hex === hex) return kept;
    // Its own memory rather than a slice of Buffer's shared pool, which a kept entry would pin.
    const parsed = decoded(hex, parseTransaction(new Uint8Array(fromHex(hex))));
    this.lru.set(key, parsed);
    return parsed;
  }

  /** The transaction `bytes` holds (the response cache's entry; throws as parseTransaction). */
  fromBytes(network: NetworkName, txid: string, bytes: Uint8Array): ParsedTx {
    const key = `${network}:${txid}`;
    if (!this.lru) return decoded(undefined, parseTransaction(bytes));
    const kept = this.lru.get(key);
    if (kept !== undefined && sameBytes(kept.tx.bytes, bytes)) return kept;
    const parsed = decoded(undefined, parseTransaction(bytes));
    this.lru.set(key, parsed);
    return parsed;
  }
}

function decoded(hex: string | undefined, tx: Transaction): ParsedTx {
  return { hex, tx, scripts: new Array(tx.outputs.length) };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a === b || Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}
