import type { IncomingHttpHeaders } from "node:http";

/** Headers a browser script may send, and read back, on a backend route. */
const ALLOW_HEADERS =
  "authorization, content-type, idempotency-key, x-api-key, x-dry-run, x-blockgate-require-verified";
const EXPOSE_HEADERS =
  "x-request-id, x-credits-estimated, x-credits-charged, x-credits-balance, x-blockgate-verified, ratelimit, ratelimit-policy, retry-after";

/**
 * The Origin of a cross-origin request, or null for one that is not (no Origin, or the gateway's
 * own pages: GraphiQL and the dashboard post with an Origin naming the host they came from).
 */
export function crossOrigin(headers: IncomingHttpHeaders): string | null {
  const origin = headers.origin;
  if (!origin || origin === "null") return origin === "null" ? origin : null;
  try {
    return new URL(origin).host === headers.host ? null : origin;
  } catch {
    return origin;
  }
}

/** What an answer to an allowed cross-origin request carries, so the page may read it. */
export function corsHeaders(origin: string): Record<string, string> {
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": EXPOSE_HEADERS,
    vary: "origin",
  };
}

/** A preflight's answer for an origin the token allows (or any, where no token is known yet). */
export function preflightHeaders(
  origin: string,
  methods: readonly string[],
): Record<string, string> {
  return {
    "access-control-allow-origin": origin,
    "access-control-allow-methods": methods.join(", "),
    "access-control-allow-headers": ALLOW_HEADERS,
    "access-control-max-age": "600",
    vary: "origin",
  };
}
