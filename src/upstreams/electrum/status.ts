import { gatewayError } from "../../errors/codes.ts";
import { scripthashStatus } from "../../jsonrpc/electrum-status.ts";
import type { ElectrumPool, ElectrumPoolOutcome } from "./pool.ts";

/**
 * A script hash's status, read as its history (get_history) and hashed as ElectrumX hashes it
 * (src/jsonrpc/electrum-status.ts): the answer `{ result: status }`, or the server's own refusal
 * (a history too large) as it gave it. The gateway never asks its servers for subscriptions:
 * they would live on connections every client shares, count against the server's per-session
 * limit (ElectrumX's MAX_SESSION_SUBS) for all of them, and could not be unsubscribed reliably
 * over a pool; the status of the history is the same value without that state.
 */
export async function readScripthashStatus(
  pool: ElectrumPool,
  scripthash: string,
): Promise<ElectrumPoolOutcome> {
  const out = await pool.request("blockchain.scripthash.get_history", [scripthash]);
  if (!out.ok || !("result" in out.answer)) return out;
  const status = scripthashStatus(out.answer.result);
  if (status === undefined) {
    return {
      ok: false,
      error: gatewayError("UPSTREAM_BAD_RESPONSE", "the Electrum server's history is malformed"),
    };
  }
  return { ok: true, answer: { result: status }, upstream: out.upstream };
}
