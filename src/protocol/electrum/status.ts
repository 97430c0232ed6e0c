import { createHash } from "node:crypto";
import { isJsonObject, type Json, jsonInteger } from "../json/json.ts";

/**
 * A script hash's status as ElectrumX computes it (session.py address_status): SHA-256 of
 * `<tx_hash>:<height>:` for each entry of its history in get_history's order (confirmed by
 * height, then the mempool's at 0 or -1), as hex; null when the history is empty. Fulcrum and
 * electrs compute the same, so a status read from any server's history compares with another's.
 * Returns undefined for an answer that is not a history.
 */
export function scripthashStatus(history: Json | undefined): string | null | undefined {
  if (!Array.isArray(history)) return undefined;
  let text = "";
  for (const entry of history) {
    if (!isJsonObject(entry) || typeof entry.tx_hash !== "string") return undefined;
    const height = jsonInteger(entry.height);
    if (height === undefined) return undefined;
    text += `${entry.tx_hash}:${height}:`;
  }
  return text === "" ? null : createHash("sha256").update(text).digest("hex");
}
