import { toHex } from "../../bitcoin/hex.ts";
import {
  type AnswerCheck,
  blockMismatch,
  headerMismatch,
  txBytesMismatch,
  txMismatch,
} from "../answer-check.ts";
import type { EsploraAnswer } from "./client.ts";

const CHECKED_PATH = /^\/(tx|block)\/([0-9a-f]{64})\/(hex|raw|header)$/;

/** Whether the server's answer at `path` is checked against what the path names. */
export function bytesCheckedPath(path: string): boolean {
  const m = CHECKED_PATH.exec(path);
  return m !== null && !(m[1] === "tx" && m[3] === "header");
}

/**
 * The check of an answer whose bytes the path names: a transaction's hex or raw bytes hash to
 * its txid; a block's header, or its raw bytes (the header and the transactions its merkle root
 * commits to), hash to its hash. A refusal (a status other than 200) claims nothing.
 */
export function esploraAnswerCheck(path: string): AnswerCheck<EsploraAnswer> | undefined {
  if (!bytesCheckedPath(path)) return undefined;
  const [, kind, id, form] = CHECKED_PATH.exec(path) as unknown as [string, string, string, string];
  return (answer) => {
    if (answer.status !== 200) return null;
    if (kind === "tx") {
      return form === "raw"
        ? txMismatch(id, answer.body)
        : txBytesMismatch(id, answer.body.toString("latin1"));
    }
    if (form === "header") return headerMismatch(id, answer.body.toString("latin1"));
    return form === "raw" ? blockMismatch(id, toHex(answer.body)) : null;
  };
}
