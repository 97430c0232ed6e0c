import { isJsonObject, type Json } from "../../protocol/json/json.ts";
import { resultScalars } from "../../protocol/json/raw-answer.ts";
import type { RpcAnswer, RpcCall } from "../../protocol/json/types.ts";
import {
  type AnswerCheck,
  blockMismatch,
  headerFieldsMismatch,
  headerMismatch,
  proofMismatch,
  txBytesMismatch,
} from "../answer-check.ts";

/** Methods whose answers carry bytes that hash to what the call named (checkedMethod). */
const CHECKED: ReadonlySet<string> = new Set([
  "getrawtransaction",
  "getblockheader",
  "getblock",
  "gettxoutproof",
]);

/** Whether the node's answers to `method` are checked against what was asked. */
export function bytesCheckedMethod(method: string): boolean {
  return CHECKED.has(method);
}

/**
 * The check of a batch's answers (FailoverPool.run): each getrawtransaction's hex hashes to the
 * txid asked, its `txid` says so too; each getblockheader's and getblock's header (its bytes, or
 * its verbose fields) hashes to the block asked for, and a raw block's transactions are the ones
 * its merkle root commits to; each gettxoutproof's proof holds, for the txids and block asked. An
 * error answer claims nothing.
 * Undefined when the batch has nothing to check, so the common batch pays nothing.
 */
export function coreAnswersCheck(
  calls: readonly RpcCall[],
): AnswerCheck<{ answers: RpcAnswer[] }> | undefined {
  if (!calls.some((c) => CHECKED.has(c.method))) return undefined;
  return ({ answers }) => {
    for (let i = 0; i < calls.length; i++) {
      const call = calls[i]!;
      const answer = answers[i];
      if (!CHECKED.has(call.method) || !answer || "error" in answer) continue;
      const asked = call.params[0];
      const why =
        call.method === "gettxoutproof"
          ? proofCheck(call.params, resultScalars(answer))
          : typeof asked === "string"
            ? answerMismatch(call.method, asked, resultScalars(answer))
            : null;
      if (why !== null) return why;
    }
    return null;
  };
}

function proofCheck(params: readonly Json[], result: Json): string | null {
  const [txids, blockhash] = params;
  if (!Array.isArray(txids) || !txids.every((t) => typeof t === "string")) return null;
  return proofMismatch(txids as string[], blockhash, result);
}

function answerMismatch(method: string, asked: string, result: Json): string | null {
  if (method === "getrawtransaction") {
    if (typeof result === "string") return txBytesMismatch(asked, result);
    if (!isJsonObject(result)) return `transaction ${asked}: neither hex nor an object`;
    // Core takes a txid in either case and names it in lower case.
    if (result.txid !== asked.toLowerCase()) {
      return `transaction ${asked}: the answer names ${String(result.txid)}`;
    }
    return txBytesMismatch(asked, result.hex);
  }
  if (typeof result === "string") {
    return method === "getblock" ? blockMismatch(asked, result) : headerMismatch(asked, result);
  }
  return headerFieldsMismatch(asked, result);
}
