import { type ErrorCode, type GatewayError, gatewayError } from "../protocol/errors/codes.ts";
import type { AuthServices } from "./authenticate.ts";
import { requestOutOfScope, type ScopeName } from "./scope.ts";
import type { TokenOwner } from "./tokens.ts";

const CODES: Record<ScopeName, ErrorCode> = {
  backend: "SCOPE_BACKEND",
  network: "SCOPE_NETWORK",
  method: "SCOPE_METHOD",
  origin: "SCOPE_ORIGIN",
  address: "SCOPE_ADDRESS",
};

/** The 403 for a request outside its token's scope, with the scope named in code and message. */
export function scopeError(scope: ScopeName, what: string): GatewayError {
  return gatewayError(CODES[scope], `this token may not be used for ${scope} ${what}`, {
    data: { scope },
  });
}

/**
 * The pipeline's scope phase, after authentication and before the plan's limits: the token's
 * backends, networks, client address ranges and browser origins (its methods are checked once the
 * body is parsed, in meter()). A refusal is not executed, not charged, and audited aggregated per
 * token, source, code and minute, like the other refusals before the body.
 */
export function checkScope(
  app: Pick<AuthServices, "authFailures" | "metrics">,
  owner: TokenOwner,
  from: {
    source: string;
    backend: string;
    backendSegment: string;
    network: string;
    origin: string | null;
  },
): GatewayError | null {
  const outside = requestOutOfScope(owner.scope ?? null, {
    backend: from.backend,
    network: from.network,
    address: from.source,
    origin: from.origin,
  });
  if (!outside) return null;
  const what = {
    backend: from.backend,
    network: from.network,
    method: "",
    origin: from.origin ?? "",
    address: from.source,
  }[outside];
  const error = scopeError(outside, what);
  app.metrics.outOfScope.inc({ route: from.backend, scope: outside });
  app.authFailures.record({
    refusal: "forbidden",
    errorCode: error.code,
    source: from.source,
    backendSegment: from.backendSegment,
    network: from.network,
    tokenId: owner.tokenId,
    accountId: owner.accountId,
  });
  return error;
}
