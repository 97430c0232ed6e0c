import { checkMerkleRoot, parseBlock } from "../bitcoin/block.ts";
import { sha256d } from "../bitcoin/hash.ts";
import { serializeHeader } from "../bitcoin/header-bytes.ts";
import { fromHex, toHexReversed } from "../bitcoin/hex.ts";
import { readMerkleProof } from "../bitcoin/merkle-proof.ts";
import { parseTransaction } from "../bitcoin/transaction.ts";
import { isJsonObject, type Json, jsonInteger } from "../protocol/json/json.ts";

/**
 * A check of one upstream's answer before the pool takes it (FailoverPool.run's `check`): null
 * when it holds, else why not. A failed check is the upstream's failure: its breaker counts it and
 * the call goes to another upstream; the answer is never passed on, cached or charged.
 */
export type AnswerCheck<T> = (answer: T) => string | null;

const HEX = /^(?:[0-9a-fA-F]{2})+$/;

/**
 * Why a transaction's hex is not the transaction `txid` names, or null when it is: its bytes
 * decode as one transaction whose non-witness serialization double-SHA-256es to the txid.
 */
export function txBytesMismatch(txid: string, hex: unknown): string | null {
  const bytes = typeof hex === "string" && hex.length > 0 ? hexBytes(hex) : null;
  if (bytes === null) return `transaction ${txid}: no hex`;
  return txMismatch(txid, bytes);
}

/** The bytes of a hex string, or null when it is not one (fromHex checks every digit as it decodes). */
function hexBytes(hex: string): Uint8Array | null {
  try {
    return fromHex(hex);
  } catch {
    return null;
  }
}

/** As txBytesMismatch, for the bytes themselves (Esplora's /raw). */
export function txMismatch(txid: string, bytes: Uint8Array): string | null {
  let actual: string;
  try {
    actual = parseTransaction(bytes).txid;
  } catch {
    return `transaction ${txid}: its bytes do not decode`;
  }
  return actual === txid.toLowerCase() ? null : `transaction ${txid}: its bytes hash to ${actual}`;
}

/** Why 80 header bytes (hex) are not the block `hash` names, or null when they are. */
export function headerMismatch(hash: string, hex: unknown): string | null {
  if (typeof hex !== "string" || hex.length < 160 || !HEX.test(hex.slice(0, 160))) {
    return `block ${hash}: no header`;
  }
  const actual = toHexReversed(sha256d(fromHex(hex.slice(0, 160))));
  return actual === hash.toLowerCase() ? null : `block ${hash}: its header hashes to ${actual}`;
}

/** As headerMismatch, for a whole block's bytes: the header, and the transactions its merkle root commits to. */
export function blockMismatch(hash: string, hex: unknown): string | null {
  const header = headerMismatch(hash, hex);
  if (header !== null) return header;
  try {
    if (checkMerkleRoot(parseBlock(fromHex(hex as string)))) return null;
  } catch {
    return `block ${hash}: its bytes do not decode`;
  }
  return `block ${hash}: its transactions are not the ones its header commits to`;
}

const ZERO_HASH = "0".repeat(64);

/** An integer as an upstream's answer holds it (a kept literal) or as the gateway built it. */
const integer = (v: Json | undefined) =>
  typeof v === "number" && Number.isInteger(v) ? v : jsonInteger(v);

/**
 * Why a verbose header's fields (getblockheader, getblock at verbosity 1 or more) are not the
 * block `hash` names: the six fields the hash commits to, serialized again and hashed.
 */
export function headerFieldsMismatch(asked: string, result: Json): string | null {
  // Core takes a hash in either case and names it in lower case.
  const hash = asked.toLowerCase();
  if (!isJsonObject(result)) return `block ${hash}: neither hex nor an object`;
  if (result.hash !== hash) return `block ${hash}: the answer names ${String(result.hash)}`;
  const version = integer(result.version);
  const time = integer(result.time);
  const nonce = integer(result.nonce);
  const { bits, merkleroot } = result;
  const previous = result.previousblockhash ?? ZERO_HASH;
  if (
    version === undefined ||
    time === undefined ||
    nonce === undefined ||
    typeof bits !== "string" ||
    typeof merkleroot !== "string" ||
    typeof previous !== "string"
  ) {
    return `block ${hash}: header fields missing`;
  }
  const bytes = serializeHeader({
    version,
    previousblockhash: previous,
    merkleroot,
    time,
    bits: Number.parseInt(bits, 16),
    nonce,
  });
  const actual = toHexReversed(sha256d(bytes));
  return actual === hash ? null : `block ${hash}: its header fields hash to ${actual}`;
}

/**
 * Why a merkle proof (Core's gettxoutproof, hex) does not prove `txids` in a block (`blockhash`,
 * when the call named one), or null when it does.
 */
export function proofMismatch(
  txids: readonly string[],
  blockhash: unknown,
  hex: unknown,
): string | null {
  if (typeof hex !== "string" || !HEX.test(hex)) return "a merkle proof without hex";
  try {
    const proof = readMerkleProof(fromHex(hex));
    if (typeof blockhash === "string" && proof.header.hash !== blockhash.toLowerCase()) {
      return `a merkle proof of block ${proof.header.hash}, not ${blockhash}`;
    }
    const matched = new Set(proof.matched.map((m) => m.txid));
    const missing = txids.find((t) => !matched.has(t.toLowerCase()));
    return missing === undefined ? null : `a merkle proof that does not match ${missing}`;
  } catch (err) {
    return `a merkle proof that does not hold: ${(err as Error).message}`;
  }
}
