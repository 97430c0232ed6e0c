import { isJsonNumber, isJsonObject, type Json, jsonInteger } from "../../protocol/json/json.ts";
import { answerBytes, resultScalars } from "../../protocol/json/raw-answer.ts";
import type { RpcAnswer, RpcCall } from "../../protocol/json/types.ts";
import { LruMap } from "../../util/lru.ts";

/** Blocks remembered per network (some 150 bytes each): the oldest asked about go first. */
const BLOCKS_MAX = 10_000;

/**
 * What getblock at verbosity 2 or 3 writes per byte of block, at least. Each transaction's raw
 * hex is in it (2 characters a byte), and each byte again in the decoded fields — scripts and
 * witness items as hex, a 32-byte outpoint as 64 hex digits, an 8-byte amount as 18 characters —
 * save the few bytes of counts. Measured on devnet's real blocks: 4.5 (540107, large
 * transactions) to 8.5 (170); a bound below every answer, so a refusal made with it never turns
 * away a request that would have fitted.
 */
const DECODED_PER_BLOCK_BYTE = 4;
/** Verbosity 1 lists each txid: 64 hex digits, quotes and a comma. */
const PER_TXID = 67;

interface Known {
  /** The serialized block's size (Core's `size`), when an answer said it. */
  size?: number;
  nTx?: number;
  /** The length of the result at each verbosity (0–3) the node has answered with. */
  answers: (number | undefined)[];
}

/**
 * What the gateway has learnt of blocks from the node's getblock answers — any caller's: the node
 * route's, the unified API's, the chain watcher's — so that a request for blocks it has seen can
 * be told too large before anything is asked (server.responseBytesMax). The answer to a getblock
 * at a verbosity already answered is known to the byte; at another, bounded below from the
 * block's size and transaction count.
 */
export class BlockSizes {
  private readonly blocks = new LruMap<string, Known>(BLOCKS_MAX);

  /** Notes the blocks of a round trip's getblock answers. */
  learn(calls: readonly RpcCall[], answers: readonly RpcAnswer[]): void {
    calls.forEach((call, i) => {
      const answer = answers[i];
      if (call.method !== "getblock" || !answer || !("result" in answer)) return;
      const hash = call.params[0];
      const level = verbosityOf(call.params[1]);
      if (typeof hash !== "string" || level === undefined) return;
      const key = hash.toLowerCase();
      const known = this.blocks.get(key) ?? { answers: [] };
      known.answers[level] = answerBytes(answer);
      if (level === 0 && typeof answer.result === "string") {
        known.size = answer.result.length / 2;
      } else if (level > 0) {
        const scalars = resultScalars(answer);
        if (isJsonObject(scalars)) {
          known.size = jsonInteger(scalars.size) ?? known.size;
          known.nTx = jsonInteger(scalars.nTx) ?? known.nTx;
        }
      }
      this.blocks.set(key, known);
    });
  }

  /** Bytes the answer to `call` will take at least, as far as known; 0 for anything else. */
  answerBytesMin(call: RpcCall): number {
    if (call.method !== "getblock") return 0;
    const hash = call.params[0];
    const level = verbosityOf(call.params[1]);
    if (typeof hash !== "string" || level === undefined) return 0;
    const known = this.blocks.get(hash.toLowerCase());
    if (!known) return 0;
    const exact = known.answers[level];
    if (exact !== undefined) return exact;
    if (level === 0) return (known.size ?? 0) * 2;
    // Each verbosity from 1 up says all the one below says, and more.
    let below = 0;
    for (let l = 1; l < level; l++) below = Math.max(below, known.answers[l] ?? 0);
    const fromBlock =
      level === 1 ? (known.nTx ?? 0) * PER_TXID : (known.size ?? 0) * DECODED_PER_BLOCK_BYTE;
    return Math.max(below, fromBlock);
  }
}

/** getblock's verbosity as Core reads it (absent: 1; a boolean: 0 or 1), clamped to 0–3. */
function verbosityOf(value: Json | undefined): number | undefined {
  if (value === undefined || value === null) return 1;
  if (typeof value === "boolean") return value ? 1 : 0;
  const level =
    typeof value === "number" ? value : isJsonNumber(value) ? jsonInteger(value) : undefined;
  if (level === undefined || !Number.isInteger(level)) return undefined;
  return Math.min(Math.max(level, 0), 3);
}
