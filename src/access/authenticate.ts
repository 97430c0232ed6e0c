import { setTimeout as sleep } from "node:timers/promises";
import type { Metrics } from "../log/metrics.ts";
import { type GatewayError, gatewayError } from "../protocol/errors/codes.ts";
import type { AuthFailures } from "./auth-failures.ts";
import type { AuthThrottle } from "./auth-throttle.ts";
import type { TokenCache } from "./token-cache.ts";
import type { TokenOwner } from "./tokens.ts";

/** What authentication uses of a running gateway. */
export interface AuthServices {
  /** Token hash → owner, dropped on revocation (every process is told). */
  tokens: TokenCache;
  /** Failed authentications per client address: growing delays, then a lock-out. */
  authThrottle: AuthThrottle;
  /** Failed authentications, written aggregated per source and minute. */
  authFailures: AuthFailures;
  metrics: Metrics;
}

export type Authentication =
  | { ok: true; owner: TokenOwner }
  | { ok: false; error: GatewayError; headers: Record<string, string> };

/**
 * The pipeline's first phase: the token's owner, from the token cache (src/access/token-cache.ts).
 * A refusal is counted in metrics and in one aggregated audit record per source, route and
 * minute (src/access/auth-failures.ts), never a row per request. Failures from one address are
 * throttled (src/access/auth-throttle.ts): past a free allowance each is answered later and later,
 * then the address is locked out for the rest of its window — a token this process has not seen
 * recently is then refused 429 at once, without a database lookup.
 */
export async function authenticateCall(
  app: AuthServices,
  token: string,
  from: { source: string; backendSegment: string; network: string; route: string },
  /** How the token was presented, when the 401 should say what was missing. */
  presented: { otherScheme?: boolean } = {},
): Promise<Authentication> {
  const throttle = app.authThrottle;
  const verdict = throttle.verdict(from.source);
  if (verdict.locked) {
    const owner = app.tokens.cached(token);
    if (owner) return { ok: true, owner };
    const retryAfter = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
    app.metrics.authFailures.inc({ route: from.route });
    app.authFailures.record({ ...refusal(from), refusal: "auth_locked" });
    return {
      ok: false,
      error: gatewayError(
        "RATE_LIMITED",
        "too many failed authentications from this address; try again later",
        { data: { retryAfter } },
      ),
      headers: { "retry-after": String(retryAfter) },
    };
  }
  const owner = await app.tokens.authenticate(token);
  if (owner) return { ok: true, owner };
  app.metrics.authFailures.inc({ route: from.route });
  app.authFailures.record(refusal(from));
  const delayMs = throttle.failed(from.source);
  // Core sleeps in its HTTP worker; here only this answer waits, on a timer.
  if (delayMs > 0) await sleep(delayMs);
  return {
    ok: false,
    error: gatewayError("UNAUTHENTICATED", unauthenticated(token, presented)),
    // RFC 6750 §3: a 401 names the scheme it takes (the path form works as well).
    headers: { "www-authenticate": 'Bearer realm="blockgate"' },
  };
}

/** Why no one is authenticated, in words that say what to send. */
function unauthenticated(token: string, presented: { otherScheme?: boolean }): string {
  if (token !== "") return "unknown, expired or revoked access token";
  if (presented.otherScheme) {
    return "no access token: send it as `Authorization: Bearer <token>` (the scheme is needed), `X-Api-Key: <token>`, or at the end of the path";
  }
  return "no access token: put it at the end of the path (/<backend>/<network>/<token>), or send it as `Authorization: Bearer <token>` or `X-Api-Key: <token>`";
}

function refusal(from: { source: string; backendSegment: string; network: string }) {
  return {
    source: from.source,
    backendSegment: from.backendSegment,
    network: from.network,
    tokenId: null,
    accountId: null,
  };
}
