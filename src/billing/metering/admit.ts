import type { TokenOwner } from "../../access/tokens.ts";
import type { Admission } from "../../limits/limits.ts";
import type { MeterServices } from "./context.ts";

/**
 * The pipeline's second phase, after authentication and before the body is read: the plan's
 * request rates and calls in flight (src/limits/). A refusal is not executed and not charged; it
 * is counted in metrics and audited aggregated per token, source, route and minute, like failed
 * authentications, so a runaway loop cannot grow the database by a row per request.
 */
export async function admitCall(
  app: Pick<MeterServices, "authFailures" | "limits" | "metrics">,
  owner: TokenOwner,
  from: { source: string; backendSegment: string; network: string; route: string },
  /**
   * A call admitted until its answer is sent (not a socket session): its admission may take its
   * token's last estimate on this route from the credit caps, for its cap phase to claim.
   */
  wholeCall = false,
): Promise<Admission> {
  const guessKey = wholeCall
    ? `${owner.tokenId}/${from.backendSegment}/${from.network}`
    : undefined;
  const admission = await app.limits.admit(owner, guessKey);
  if (admission.ok) return admission;
  app.metrics.rateLimited.inc({ route: from.route });
  app.authFailures.record({
    refusal: "rate_limited",
    source: from.source,
    backendSegment: from.backendSegment,
    network: from.network,
    tokenId: owner.tokenId,
    accountId: owner.accountId,
  });
  return admission;
}
