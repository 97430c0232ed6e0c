/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers-10), as Structured
 * Fields: `RateLimit-Policy` lists each quota policy that applies to the caller (`q` quota, `w`
 * window in seconds, `qu` the unit where it is not requests), and `RateLimit` gives the state of
 * the policy with the fewest units left (`r` remaining, `t` seconds until it resets), as the draft
 * asks of a server with several windows.
 */
export interface PolicyState {
  /** An sf-token: lower-case letters, digits and `-`. */
  name: string;
  quota: number;
  windowSeconds?: number;
  unit?: "requests" | "concurrent-requests";
  remaining: number;
  resetSeconds: number;
}

export function rateLimitHeaders(states: readonly PolicyState[]): Record<string, string> {
  if (states.length === 0) return {};
  return { "ratelimit-policy": policyField(states), ratelimit: rateLimitField(states) };
}

/** `RateLimit-Policy`: the same for every call a plan admits, so its callers may keep it. */
export function policyField(states: readonly PolicyState[]): string {
  return states
    .map(
      (s) =>
        `${s.name};q=${s.quota}${s.windowSeconds === undefined ? "" : `;w=${s.windowSeconds}`}${
          s.unit && s.unit !== "requests" ? `;qu="${s.unit}"` : ""
        }`,
    )
    .join(", ");
}

/** `RateLimit`: the policy with the fewest units left. */
export function rateLimitField(states: readonly PolicyState[]): string {
  let lowest = states[0]!;
  for (const s of states) {
    if (s.remaining < lowest.remaining) lowest = s;
    else if (s.remaining === lowest.remaining && s.resetSeconds > lowest.resetSeconds) lowest = s;
  }
  return `${lowest.name};r=${Math.max(0, lowest.remaining)};t=${Math.max(0, lowest.resetSeconds)}`;
}
