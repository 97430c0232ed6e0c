import { authenticate, type TokenOwner } from "../auth/tokens.ts";
import type { NetworkName } from "../config/schema.ts";
import { insertAudit } from "../ledger/audit.ts";
import type { App } from "./context.ts";

/** Who asks, before anything else of the request is read: the route and the token it carries. */
export interface CallRequest {
  requestId: string;
  /** The literal path segment, as written in the audit log. */
  backendSegment: string;
  network: NetworkName;
  token: string;
}

/**
 * The pipeline's first phase: the token's owner, or null for a missing, unknown or revoked
 * token. A refusal is audited (with no account) before it is answered, like every call; the
 * route answers it 401 in its own protocol.
 */
export async function authenticateCall(app: App, call: CallRequest): Promise<TokenOwner | null> {
  const owner = await authenticate(app.db, call.token);
  if (owner) return owner;
  await insertAudit(app.db, {
    requestId: call.requestId,
    accountId: null,
    tokenId: null,
    backend: call.backendSegment,
    network: call.network,
    method: "(unauthenticated)",
    outcome: "unauthenticated",
    errorCode: "UNAUTHENTICATED",
    httpStatus: 401,
    estimatedCc: 0,
    chargedCc: 0,
  });
  return null;
}
