import { scripthashStatus } from "../../protocol/electrum/status.ts";
import { gatewayError } from "../../protocol/errors/codes.ts";
import type { ElectrumPool, ElectrumPoolOutcome } from "./pool.ts";

/**
 * A script hash's status, read as its history (get_history) and hashed as ElectrumX hashes it
 * (src/protocol/electrum/status.ts): the answer `{ result: status }`, or the server's own refusal
 * (a history too large) as it gave it. The pool's connections never hold subscriptions: they
 * serve every client, and a request may go to any of them; subscriptions live on the feed's own
 * connection (scripthash-feed.ts). This read answers a session's subscribe, and stands in for
 * the feed at each chain event where it does not cover a script hash: the status of the history
 * is the value the server would have notified.
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
