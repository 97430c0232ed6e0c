import type { TokenOwner } from "../../access/tokens.ts";
import type { Admission } from "../../limits/limits.ts";
import type { CallContext, MeterServices } from "./context.ts";

/**
 * What a WebSocket session's messages need from the request that opened it: the pipeline's
 * phases that ran for the upgrade (authenticate, scope, admit) are run again per message where
 * their answer can change, so a long session is held to the same terms as a request.
 */
export interface SocketSession<S extends MeterServices = MeterServices> {
  /** The opening request's context: its owner, network and request id. */
  ctx: CallContext<S>;
  /** The token is checked again before each message: a revoked or expired one ends the session. */
  stillValid(): Promise<TokenOwner | null>;
  /** The admit phase (rate limits, calls in flight), per message as per HTTP request. */
  admit(owner: TokenOwner): Promise<Admission>;
  /** Runs a message's work as part of the server's requests in flight (drain waits for it). */
  inFlight<T>(work: () => Promise<T>): Promise<T>;
}
