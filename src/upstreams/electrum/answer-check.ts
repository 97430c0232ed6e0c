import { isJsonObject, type Json } from "../../protocol/json/json.ts";
import type { RpcAnswer, RpcCall } from "../../protocol/json/types.ts";
import { type AnswerCheck, txBytesMismatch } from "../answer-check.ts";
import type { ChainView } from "../chain-view.ts";
import { chainMismatch } from "./chain-check.ts";

const TX_GET = "blockchain.transaction.get";

/** Methods whose answers are checked against the verified chain, when there is one. */
const CHAIN_CHECKED: ReadonlySet<string> = new Set([
  "blockchain.transaction.get_merkle",
  "blockchain.block.header",
  "blockchain.block.headers",
]);

/** Whether a server's answers to `method` are checked against what was asked. */
export function bytesCheckedMethod(method: string): boolean {
  return method === TX_GET;
}

/**
 * The check of blockchain.transaction.get's answer: the hex (alone, or the verbose form's `hex`)
 * hashes to the txid asked. With a verified chain, merkle branches and headers are checked
 * against it too (chain-check.ts). A refusal claims nothing; a txid asked with spaces or in capitals
 * (ElectrumX takes both) is compared as the plain txid it stands for.
 */
export function electrumAnswerCheck(
  method: string,
  params: readonly Json[],
  chain?: ChainView,
): AnswerCheck<{ answer: RpcAnswer }> | undefined {
  if (chain && CHAIN_CHECKED.has(method)) {
    return ({ answer }) =>
      "error" in answer ? null : chainMismatch(chain, method, params, answer.result);
  }
  if (method !== TX_GET || typeof params[0] !== "string") return undefined;
  const txid = params[0].replace(/\s/g, "").toLowerCase();
  return ({ answer }) => {
    if ("error" in answer) return null;
    const { result } = answer;
    return txBytesMismatch(txid, isJsonObject(result) ? result.hex : result);
  };
}

/** The check of a batch's answers: each call's as electrumAnswerCheck checks it alone. */
export function electrumBatchCheck(
  calls: readonly RpcCall[],
  chain?: ChainView,
):
  | AnswerCheck<{ outcomes: readonly ({ ok: true; answer: RpcAnswer } | { ok: false })[] }>
  | undefined {
  const checks = calls.map((c) => electrumAnswerCheck(c.method, c.params, chain));
  if (!checks.some((c) => c !== undefined)) return undefined;
  return ({ outcomes }) => {
    for (let i = 0; i < checks.length; i++) {
      const out = outcomes[i];
      const why = out?.ok ? (checks[i]?.(out) ?? null) : null;
      if (why !== null) return why;
    }
    return null;
  };
}
