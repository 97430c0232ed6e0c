import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/**
 * Operator tokens guard /metrics and /admin/*. They are not access tokens: they belong to no
 * account, live in no database (config holds their SHA-256 digests), and carry their own prefix,
 * so an access token (`bgt_…`) can never pass for one even if its digest were configured.
 */
export const OPERATOR_TOKEN_PREFIX = "bgo_";
const OPERATOR_TOKEN_RE = /^bgo_[A-Za-z0-9_-]{43}$/;
const TOKEN_BYTES = 32;

export interface IssuedOperatorToken {
  /** Shown once by `blockgate operator-token`; nothing keeps it. */
  token: string;
  /** What goes into `operator.tokenSha256`. */
  sha256: string;
}

export function issueOperatorToken(): IssuedOperatorToken {
  const token = OPERATOR_TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString("base64url");
  return { token, sha256: createHash("sha256").update(token, "utf8").digest("hex") };
}

/** The bearer token of an `Authorization` header, or null when there is none of that form. */
export function bearerToken(header: string | undefined): string | null {
  const match = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header ?? "");
  return match ? match[1]! : null;
}

/**
 * Whether `header` carries an operator token whose digest is configured. The token is hashed
 * first, so what is compared is a digest the caller cannot steer byte by byte; every configured
 * digest is compared (no early exit) with timingSafeEqual, so the time taken does not say how
 * close a guess came or which entry matched.
 */
export function operatorAuthorized(
  header: string | undefined,
  digestsHex: readonly string[],
): boolean {
  const token = bearerToken(header);
  const given = createHash("sha256")
    .update(token ?? "", "utf8")
    .digest();
  let match = false;
  for (const hex of digestsHex) {
    const expected = Buffer.from(hex, "hex");
    // Config guarantees 32 bytes; the length check keeps timingSafeEqual from throwing anyway.
    if (expected.length === given.length && timingSafeEqual(given, expected)) match = true;
  }
  return match && token !== null && OPERATOR_TOKEN_RE.test(token);
}
