import type { TokenOwner } from "../auth/tokens.ts";
import type { App } from "./context.ts";

/**
 * The pipeline's first phase: the token's owner, from the token cache (src/auth/token-cache.ts),
 * or null. A refusal is counted in metrics and in one aggregated audit record per source, route
 * and minute (src/metering/auth-failures.ts), never a row per request.
 */
export async function authenticateCall(
  app: App,
  token: string,
  from: { source: string; backendSegment: string; network: string; route: string },
): Promise<TokenOwner | null> {
  const owner = await app.tokens.authenticate(token);
  if (owner) return owner;
  app.metrics.authFailures.inc({ route: from.route });
  app.authFailures.record({
    source: from.source,
    backendSegment: from.backendSegment,
    network: from.network,
    tokenId: null,
    accountId: null,
  });
  return null;
}
