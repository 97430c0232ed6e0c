import type { IncomingHttpHeaders } from "node:http";

/** A call's access token, and whether it came in the path (the request line logs its hint there). */
export interface PresentedToken {
  token: string;
  inPath: boolean;
  /** No token found, but an Authorization header of another scheme: what a 401 should point at. */
  otherScheme?: boolean;
}

/** RFC 6750 §2.1: the scheme is case-insensitive; one or more spaces before the credentials. */
const BEARER_RE = /^bearer +(\S+) *$/i;
/** One of our tokens sent as the whole header, without a scheme: taken as what it plainly is. */
const BARE_TOKEN_RE = /^ *(bgt_[A-Za-z0-9_-]+) *$/;

/**
 * The token a backend call presents: in the path (`/<backend>/<network>/<token>`, as the interface
 * gives it) or, so that tokens need not appear in proxy and browser logs, as `X-Api-Key: <token>`
 * or `Authorization: Bearer <token>` on `/<backend>/<network>`. When several are given the most
 * explicit wins: the path, then X-Api-Key (a header only we read), then Authorization (which a
 * proxy in front may set for itself). Nothing at all is the empty token, which authenticates no
 * one: 401.
 */
export function presentedToken(
  pathToken: string | undefined,
  headers: IncomingHttpHeaders,
): PresentedToken {
  if (pathToken !== undefined) return { token: pathToken, inPath: true };
  const apiKey = headers["x-api-key"];
  // Sent twice, the header is ambiguous: the first one is used, as for any repeated header.
  const key = Array.isArray(apiKey) ? apiKey[0] : apiKey;
  if (key !== undefined) return { token: key.trim(), inPath: false };
  // Another scheme (a proxy's Basic credentials, say) is not our token.
  const authorization = headers.authorization ?? "";
  const found = BEARER_RE.exec(authorization) ?? BARE_TOKEN_RE.exec(authorization);
  if (found) return { token: found[1]!, inPath: false };
  return { token: "", inPath: false, ...(authorization ? { otherScheme: true } : {}) };
}
